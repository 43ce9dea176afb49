#pragma once
#include <memory>
#include <string>

#include "core/model/model.h"

namespace kvw {

// Loads a Hugging Face Llama folder: config.json, model.safetensors (or the shards listed by
// model.safetensors.index.json, each mapped once) and tokenizer.json (+ tokenizer_config.json
// when present). F16/BF16 weights stay in the mapping (zero copy, WeightTensor::owner keeps it
// alive); a tensor whose address is not a multiple of its element size is copied into an
// aligned buffer. The config's rope_layout is HalfSplit.
//
// Throws ModelError: CannotOpen (a file is missing), everything SafetensorsFile, parse_hf_config
// and parse_hf_tokenizer_json throw, MissingTensor, ShapeMismatch (tensor, expected, found),
// VocabMismatch (tokenizer size, config vocab_size and embedding rows must agree),
// NonFiniteWeight (tensor and element index of the first NaN/Inf).
std::shared_ptr<Model> load_hf_model(const std::string& folder);

}  // namespace kvw
