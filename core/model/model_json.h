#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/json/json_error.h"
#include "core/model/model_error.h"

namespace kvw {

// The JSON files of a model folder (config.json, tokenizer.json, the safetensors header and
// index) are parsed and read through core/json; these turn its faults into ModelErrors naming
// the file. `kind` is the error kind; with BadMetadata an absent key is MissingMetadata.
// `base_offset` is where the JSON text starts in the file (8 for a safetensors header).
ModelError model_error_from(const JsonError& e, const std::string& file, ModelErrorKind kind,
                            uint64_t base_offset = 0);

// parse_json_bounded() with its faults rethrown by model_error_from().
nlohmann::json parse_model_json(std::string_view text, const std::string& file, ModelErrorKind kind,
                                uint64_t base_offset = 0);

}  // namespace kvw
