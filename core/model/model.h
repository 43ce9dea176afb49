#pragma once
#include <memory>
#include <string>

#include "core/model/model_config.h"
#include "core/model/tokenizer.h"
#include "core/model/weights.h"

namespace kvw {

// A loaded checkpoint: immutable after load, shared by every session that uses it.
struct Model {
    ModelConfig config;
    ModelWeights weights;
    Tokenizer tokenizer;
    std::string source;     // what it was loaded from: a path or "synthetic:tiny"
    std::string file_type;  // storage of the file, e.g. "gguf Q4_K" or "safetensors bf16"
};

}  // namespace kvw
