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

JsonError::JsonError(JsonFaultKind kind, std::string key, std::string detail,
                     std::optional<uint64_t> offset)
    : std::runtime_error(compose_message(key, detail, offset)),
      kind_(kind),
      key_(std::move(key)),
      detail_(std::move(detail)),
      offset_(offset) {}

}  // namespace kvw
