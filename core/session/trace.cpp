#include "core/session/trace.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace kvw {

TraceError::TraceError(const std::string& message, size_t line)
    : std::runtime_error(line ? "trace line " + std::to_string(line) + ": " + message : message),
      line_(line) {}

std::string hash_hex(uint64_t hash) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
    return text;
}

std::string Trace::to_ndjson() const {
    std::string out;
    for (const nlohmann::json& e : events_) out += e.dump() + "\n";
    return out;
}

void Trace::write(const std::filesystem::path& path) const {
    std::ofstream file(path, std::ios::binary);
    file << to_ndjson();
    if (!file.flush()) throw TraceError("cannot write " + path.string());
}

Trace Trace::parse(std::string_view ndjson) {
    Trace trace;
    size_t line_no = 0;
    std::istringstream in{std::string(ndjson)};
    for (std::string line; std::getline(in, line);) {
        ++line_no;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        nlohmann::json event = nlohmann::json::parse(line, nullptr, false);
        if (event.is_discarded()) throw TraceError("not valid JSON", line_no);
        if (!event.is_object()) throw TraceError("not a JSON object", line_no);
        trace.add(std::move(event));
    }
    if (trace.events_.empty() || !trace.events_.front().contains("kvw_trace"))
        throw TraceError("the first line is not a kvw trace header", 1);
    return trace;
}

Trace Trace::read(const std::filesystem::path& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) throw TraceError("cannot open " + path.string());
    std::ostringstream text;
    text << file.rdbuf();
    return parse(text.str());
}

}  // namespace kvw
