#include "core/model/model_json.h"

#include "core/json/bounded_parse.h"

namespace kvw {

ModelError model_error_from(const JsonError& e, const std::string& file, ModelErrorKind kind,
                            uint64_t base_offset) {
    std::string detail = e.key().empty() ? e.detail() : "\"" + e.key() + "\" " + e.detail();
    if (e.kind() == JsonFaultKind::Syntax) detail = "not valid JSON: " + detail;
    std::optional<uint64_t> offset;
    if (e.offset()) offset = base_offset + *e.offset();
    const bool missing_metadata =
        kind == ModelErrorKind::BadMetadata && e.kind() == JsonFaultKind::Missing;
    return ModelError(missing_metadata ? ModelErrorKind::MissingMetadata : kind, file, detail,
                      offset);
}

nlohmann::json parse_model_json(std::string_view text, const std::string& file, ModelErrorKind kind,
                                uint64_t base_offset) {
    try {
        return parse_json_bounded(text);
    } catch (const JsonError& e) {
        throw model_error_from(e, file, kind, base_offset);
    }
}

}  // namespace kvw
