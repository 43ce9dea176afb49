#pragma once
#include <span>
#include <string>

#include "cli_args.h"
#include "core/model/gguf_types.h"

namespace kvw::cli {

struct WeightTypeName {
    const char* name;
    GgufType type;
};

// The weight types the synthetic GGUF writer stores matrices in, by their command-line name:
// the one table `kvw make-model --type` and `kvw bench decode --types` derive their lists from.
inline std::span<const WeightTypeName> weight_type_table() {
    static constexpr WeightTypeName kTable[] = {
        {"f32", GgufType::F32},
        {"f16", GgufType::F16},
        {"bf16", GgufType::BF16},
    };
    return kTable;
}

// "f32, f16, bf16": the table's names for help texts and errors.
inline std::string weight_type_names() {
    std::string out;
    for (const WeightTypeName& w : weight_type_table())
        out += (out.empty() ? "" : ", ") + std::string(w.name);
    return out;
}

// A name of the table -> the GGUF type the synthetic writer stores matrices in.
inline GgufType parse_weight_type(const std::string& text) {
    for (const WeightTypeName& w : weight_type_table())
        if (text == w.name) return w.type;
    throw UsageError("weight type must be one of " + weight_type_names() + ", got '" + text + "'");
}

}  // namespace kvw::cli
