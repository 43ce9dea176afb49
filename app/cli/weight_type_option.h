#pragma once
#include <string>

#include "cli_args.h"
#include "core/model/gguf_types.h"

namespace kvw::cli {

// "f32" | "f16" | "bf16" -> the GGUF type the synthetic writer stores matrices in.
inline GgufType parse_weight_type(const std::string& text) {
    if (text == "f32") return GgufType::F32;
    if (text == "f16") return GgufType::F16;
    if (text == "bf16") return GgufType::BF16;
    throw UsageError("weight type must be f32, f16 or bf16, got '" + text + "'");
}

}  // namespace kvw::cli
