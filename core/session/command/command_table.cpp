#include "core/session/command/command_table.h"

#include <algorithm>
#include <array>
#include <utility>

#include "core/session/trace.h"

namespace kvw {

namespace {

template <typename Command>
std::optional<SessionCommand> decode_as(const JsonFields& event, size_t line,
                                        const std::string& file) {
    return Command::from_json(event, line, file);
}

template <size_t... I>
constexpr std::array<CommandRow, sizeof...(I)> rows_of(std::index_sequence<I...>) {
    return {CommandRow{std::variant_alternative_t<I, SessionCommand>::kEvent,
                       &decode_as<std::variant_alternative_t<I, SessionCommand>>}...};
}

constexpr auto kRows = rows_of(std::make_index_sequence<std::variant_size_v<SessionCommand>>{});

constexpr bool names_are_unique() {
    for (size_t i = 0; i < kRows.size(); ++i)
        for (size_t j = i + 1; j < kRows.size(); ++j)
            if (kRows[i].event == kRows[j].event) return false;
    return true;
}
static_assert(names_are_unique(), "two session commands record the same event name");

std::string known_names() {
    std::string known;
    for (const CommandRow& row : kRows)
        known += (known.empty() ? "" : ", ") + std::string(row.event);
    return known;
}

}  // namespace

std::span<const CommandRow> command_table() { return kRows; }

std::vector<std::string_view> command_event_names() {
    std::vector<std::string_view> names;
    for (const CommandRow& row : kRows) names.push_back(row.event);
    return names;
}

const CommandRow* find_command_row(std::string_view event) {
    const auto row = std::find_if(kRows.begin(), kRows.end(),
                                  [&](const CommandRow& r) { return r.event == event; });
    return row == kRows.end() ? nullptr : &*row;
}

std::optional<SessionCommand> decode_command(const nlohmann::json& event, size_t line,
                                             const std::string& file) {
    try {
        const JsonFields fields(event);
        const std::string name = fields.get<std::string>("event");
        const CommandRow* row = find_command_row(name);
        if (!row)
            throw TraceError("unknown event \"" + name + "\" (known: " + known_names() + ")", line,
                             file);
        return row->decode(fields, line, file);
    } catch (const JsonError& e) {
        throw TraceError(e.what(), line, file);
    }
}

}  // namespace kvw
