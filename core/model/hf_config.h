#pragma once
#include <string>
#include <string_view>

#include "core/model/model_config.h"

namespace kvw {

// What a Hugging Face config.json says about a Llama checkpoint.
struct HfConfig {
    ModelConfig model;  // rope_layout is HalfSplit: HF keeps Q/K rows in rotate-half order
    bool tie_word_embeddings = false;  // lm_head shares model.embed_tokens when true
};

// Parses config.json text; `file` names it in errors. Accepts architectures
// ["LlamaForCausalLM"] or model_type "llama". Throws ModelError: BadMetadata (bad JSON, wrong
// type or value, another architecture, rope_scaling set), MissingMetadata (required key absent).
HfConfig parse_hf_config(std::string_view json_text, const std::string& file);
HfConfig load_hf_config(const std::string& path);  // reads the file; CannotOpen if unreadable

}  // namespace kvw
