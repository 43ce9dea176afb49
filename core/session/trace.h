#pragma once
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvw {

// A trace that cannot be read or written; line is 1-based (0: not about a line).
class TraceError : public std::runtime_error {
public:
    TraceError(const std::string& message, size_t line = 0);
    size_t line() const { return line_; }

private:
    size_t line_;
};

// What a Session did, one JSON object per line (NDJSON): a header with the options, then one
// event per command ("start", "inject", "tick", "apply_now", "rebuild", "drift",
// "set_proposer", "set_rope_policy", "set_guard", "desync"). Events that change the state carry
// the state hash after them, so replay can check every one.
class Trace {
public:
    void add(nlohmann::json event) { events_.push_back(std::move(event)); }
    const std::vector<nlohmann::json>& events() const { return events_; }
    void clear() { events_.clear(); }

    std::string to_ndjson() const;
    void write(const std::filesystem::path& path) const;
    static Trace parse(std::string_view ndjson);
    static Trace read(const std::filesystem::path& path);

private:
    std::vector<nlohmann::json> events_;
};

// State hashes travel as 16 hex digits: JSON numbers are not safe beyond 2^53 for most readers.
std::string hash_hex(uint64_t hash);

}  // namespace kvw
