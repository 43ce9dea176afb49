#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace kvw {

// Every way a JSON input can be wrong, before its meaning is judged.
enum class JsonFaultKind {
    Syntax,     // not JSON
    TooDeep,    // arrays/objects nested deeper than kMaxJsonDepth
    Missing,    // a required key is absent (or null)
    WrongType,  // a key holds another JSON type than the reader needs
    BadNumber,  // a number that does not fit the reader's type (out of range, not finite)
};

// A fault found by parse_json_bounded() or JsonFields. It knows the key (a dotted path such as
// "sampling.top_k"; empty when the fault is not about a key) and the byte offset in the parsed
// text where one is known, but not the file: each reader catches it and rethrows its own typed
// error (ModelError, TraceError, ActionParseError) naming the file and, for NDJSON, the line.
// detail reads on from the key ("is absent", "is string \"x\", expected an integer"); what()
// is the key and the detail together.
class JsonError : public std::runtime_error {
public:
    JsonError(JsonFaultKind kind, std::string key, std::string detail,
              std::optional<uint64_t> offset = std::nullopt);

    JsonFaultKind kind() const { return kind_; }
    const std::string& key() const { return key_; }
    const std::string& detail() const { return detail_; }
    const std::optional<uint64_t>& offset() const { return offset_; }

private:
    JsonFaultKind kind_;
    std::string key_;
    std::string detail_;
    std::optional<uint64_t> offset_;
};

}  // namespace kvw
