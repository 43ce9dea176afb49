#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/gist/gist_net.h"
#include "core/model/mapped_file.h"

namespace kvw {

// A learned GistNet's GGUF sidecar, `NAME.gist.gguf` (docs/ARCHITECTURE.md §14): metadata
// `general.architecture` = "kvw-gist", `gist.embedding_length` (the model's n_embd) and
// `gist.block_size` (K), and per gist level L = 1, 2 the F32 or F16 tensors `gist.L.pool`
// ([K]: the weight of each child, in timeline order), `gist.L.proj.weight` (GGUF shape
// [n_embd, n_embd], in × out) and `gist.L.proj.bias` ([n_embd]).
inline constexpr const char* kGistArchitecture = "kvw-gist";

// gist = proj.weight · (Σ_i pool[i] · child_i) + proj.bias, with the level's own tensors: a
// learned weighting of the K children followed by a map back into the token-embedding space.
class LearnedGistNet : public GistNet {
public:
    struct Level {
        std::vector<float> pool;    // [K]
        std::vector<float> weight;  // [out][in], n_embd × n_embd
        std::vector<float> bias;    // [n_embd]
    };
    LearnedGistNet(std::string name, int n_embd, int k, Level level1, Level level2);

    // std::invalid_argument unless there are exactly K children of n_embd floats each.
    std::vector<float> gist(std::span<const std::span<const float>> children,
                            int level) const override;
    std::string_view name() const override { return name_; }
    int block_size() const override { return k_; }
    int embedding_length() const override { return n_embd_; }

private:
    std::string name_;
    int n_embd_;
    int k_;
    Level levels_[2];
};

// Every fault is a ModelError naming the file and the tensor or key: BadMetadata (wrong
// architecture, a size out of range), MissingMetadata, MissingTensor, ShapeMismatch (type not
// F32 or F16, a shape other than the metadata gives, a tensor that is not part of a gist net),
// NonFiniteWeight.
std::shared_ptr<const LearnedGistNet> read_gist_net(std::shared_ptr<const ByteSource> source);
std::shared_ptr<const LearnedGistNet> read_gist_net_file(const std::string& path);

// The sidecar's tensor names: level 1 or 2, part "pool", "proj.weight" or "proj.bias".
std::string gist_tensor_name(int level, const char* part);

}  // namespace kvw
