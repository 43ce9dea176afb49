#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/model/mapped_file.h"
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
    // The files the weights point into (the GGUF, the safetensors shards), for check_readable().
    std::vector<std::shared_ptr<const ByteSource>> files;
};

// ModelError(Truncated) when a file the weights are mapped from shrank since it was loaded
// (ByteSource::check_readable); a session calls it before each command that reads weights.
void check_model_files(const Model& model);

}  // namespace kvw
