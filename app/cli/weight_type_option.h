#pragma once
#include <string>

#include "cli_args.h"
#include "core/model/gguf_types.h"

namespace kvw::cli {

// "f32" | "f16" | "bf16" | "q8_0" | "q4_0" | "q4_k" | "q6_k" -> the GGUF type the writer
// stores matrices in.
inline GgufType parse_weight_type(const std::string& text) {
    if (const auto type = gguf_type_from_name(text)) return *type;
    throw UsageError("weight type must be one of " + gguf_type_names(", ") + ", got '" + text +
                     "'");
}

}  // namespace kvw::cli
