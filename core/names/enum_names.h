#pragma once
// One {value, name} table per enum that users name (cache layouts, ring modes, RoPE policies,
// K/V storage types): the name of a value, the value of a name, and the list of names that help
// texts, usage lines and error messages print all come from it, so each name is spelled once
// and a value added to the table reaches every parser and message.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kvw {

template <typename Enum>
struct EnumName {
    Enum value;
    const char* name;
};

// "?" for a value the table lacks (a corrupt byte read from memory, never from text).
template <typename Enum, size_t N>
constexpr const char* name_in(const EnumName<Enum> (&table)[N], Enum value) {
    for (const EnumName<Enum>& row : table)
        if (row.value == value) return row.name;
    return "?";
}

template <typename Enum, size_t N>
constexpr std::optional<Enum> value_in(const EnumName<Enum> (&table)[N], std::string_view name) {
    for (const EnumName<Enum>& row : table)
        if (name == row.name) return row.value;
    return std::nullopt;
}

// The names in table order, joined: "roll|pointer|lut", "final_index, reindex, original".
template <typename Enum, size_t N>
std::string names_in(const EnumName<Enum> (&table)[N], std::string_view separator) {
    std::string names;
    for (const EnumName<Enum>& row : table)
        names += (names.empty() ? "" : std::string(separator)) + row.name;
    return names;
}

}  // namespace kvw
