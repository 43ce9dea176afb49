#pragma once
#include <memory>
#include <string>

#include "core/model/model.h"

namespace kvw {

// Loads a model from a spec: a .gguf file, a Hugging Face folder (config.json +
// model.safetensors or model.safetensors.index.json + tokenizer.json), "builtin:NAME" (a GGUF
// file that ships with the project, builtin_models.h; "builtin:default" is the embedded default)
// or "synthetic:NAME" (random weights in any shape, written as GGUF in memory and read by the
// same GGUF loader; for benchmarks and tests). Throws ModelError.
std::shared_ptr<const Model> load_model(const std::string& spec);

// What the window, `kvw` and scripts load when no model is named.
inline constexpr const char* kDefaultModelSpec = "builtin:default";

}  // namespace kvw
