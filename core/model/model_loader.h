#pragma once
#include <memory>
#include <string>

#include "core/model/model.h"

namespace kvw {

// Loads a model from a spec: a .gguf file, a Hugging Face folder (config.json +
// model.safetensors or model.safetensors.index.json + tokenizer.json), or "synthetic:NAME"
// (the project's own models, written as GGUF in memory and read by the same GGUF loader).
// Throws ModelError.
std::shared_ptr<const Model> load_model(const std::string& spec);

}  // namespace kvw
