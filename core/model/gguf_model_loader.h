#pragma once
#include <memory>

#include "core/model/mapped_file.h"
#include "core/model/model.h"

namespace kvw {

// Loads a llama-architecture GGUF model (a mapped file or the synthetic writer's bytes).
// Config from the llama.* keys (RopeLayout::Interleaved), vocabulary from tokenizer.ggml.*,
// weights by llama.cpp's tensor names; output.weight absent means tied to token_embd.
// F32/F16/BF16 weights stay in the source (zero copy, WeightTensor::owner keeps it alive);
// Q8_0/Q4_0/Q4_K/Q6_K are dequantised to F32 at load.
//
// Throws ModelError: everything GgufFile and read_gguf_vocabulary throw; BadMetadata (an
// architecture other than "llama", inconsistent head counts or rope dimension);
// MissingMetadata; VocabMismatch (llama.vocab_size or the embedding rows disagree with the
// tokenizer); MissingTensor; ShapeMismatch (tensor, expected and found shape);
// NonFiniteWeight (tensor and element index of the first NaN/Inf).
std::shared_ptr<Model> load_gguf_model(std::shared_ptr<const ByteSource> source);

}  // namespace kvw
