#pragma once
#include <cctype>
#include <string>
#include <vector>

#include "cli_args.h"
#include "core/model/gguf_types.h"

namespace kvw::cli {

struct WeightTypeName {
    std::string name;  // lower case, as options spell it: "f16", "q4_k"
    GgufType type;
};

// The weight types the GGUF writer stores matrices in, by their command-line name, derived from
// the core's one list (gguf_named_types): `kvw make-model --type` and `kvw bench decode --types`
// take their lists from here.
inline const std::vector<WeightTypeName>& weight_type_table() {
    static const std::vector<WeightTypeName> table = [] {
        std::vector<WeightTypeName> out;
        for (const GgufType type : gguf_named_types()) {
            std::string name(gguf_type_name(type));
            for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
            out.push_back({name, type});
        }
        return out;
    }();
    return table;
}

// "f32, f16, bf16, q8_0, ...": the table's names for help texts and errors.
inline std::string weight_type_names() { return gguf_type_names(", "); }

// A name of the table -> the GGUF type the writer stores matrices in.
inline GgufType parse_weight_type(const std::string& text) {
    if (const auto type = gguf_type_from_name(text)) return *type;
    throw UsageError("weight type must be one of " + weight_type_names() + ", got '" + text + "'");
}

}  // namespace kvw::cli
