#pragma once
#include <string>
#include <string_view>

#include "core/model/model_config.h"

namespace kvw {

// What a Hugging Face config.json says about a Llama checkpoint.
struct Architecture;

struct HfConfig {
    const Architecture* arch = nullptr;  // the row of core/model/architecture.h
    ModelConfig model;  // rope_layout is HalfSplit: HF keeps Q/K rows in rotate-half order
    bool tie_word_embeddings = false;  // lm_head shares model.embed_tokens when true
};

// Parses config.json text; `file` names it in errors. Accepts the "architectures" of
// core/model/architecture.h's table (or, without that key, a model_type that names a row).
// Throws ModelError: BadMetadata (bad JSON, wrong type or value, another architecture,
// something the forward pass cannot run, named), MissingMetadata (required key absent).
HfConfig parse_hf_config(std::string_view json_text, const std::string& file);
HfConfig load_hf_config(const std::string& path);  // reads the file; CannotOpen if unreadable

}  // namespace kvw
