#include "core/json/json_error.h"

namespace kvw {
namespace {

std::string compose_message(const std::string& key, const std::string& detail,
                            const std::optional<uint64_t>& offset) {
    std::string message;
    if (!key.empty()) message = "\"" + key + "\" ";
    message += detail;
    if (offset) message += " (byte " + std::to_string(*offset) + ")";
    return message;
}

}  // namespace

const char* json_fault_kind_name(JsonFaultKind kind) {
    switch (kind) {
        case JsonFaultKind::Syntax: return "syntax";
        case JsonFaultKind::TooDeep: return "too deep";
        case JsonFaultKind::Missing: return "missing";
        case JsonFaultKind::WrongType: return "wrong type";
        case JsonFaultKind::BadNumber: return "bad number";
    }
    return "json fault";
}

JsonError::JsonError(JsonFaultKind kind, std::string key, std::string detail,
                     std::optional<uint64_t> offset)
    : std::runtime_error(compose_message(key, detail, offset)),
      kind_(kind),
      key_(std::move(key)),
      detail_(std::move(detail)),
      offset_(offset) {}

}  // namespace kvw
