#pragma once
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace kvw {

// Makes the embedding of a gist (ARCHITECTURE §14) from the embeddings of its children: the
// token embeddings of a block for a level-1 gist, the child gists for a level-2 gist. The
// result lives in the token-embedding space, so the unchanged model takes it as an item.
// A learned net loaded from a sidecar implements the same interface (core/gist/gist_file.h).
class GistNet {
public:
    virtual ~GistNet() = default;
    // children: each of n_embd floats, in timeline order; level: of the gist being made (1, 2).
    virtual std::vector<float> gist(std::span<const std::span<const float>> children,
                                    int level) const = 0;
    virtual std::string_view name() const = 0;
    // The block size K and the embedding width a learned net was made for; 0: any (mean
    // pooling takes any number of children of any width).
    virtual int block_size() const { return 0; }
    virtual int embedding_length() const { return 0; }
};

// The built-in net: the mean of the children (core/math/mean_pool.h), whatever the level.
class MeanPoolGistNet : public GistNet {
public:
    std::vector<float> gist(std::span<const std::span<const float>> children,
                            int level) const override;
    std::string_view name() const override { return "mean-pool"; }
};

std::shared_ptr<const GistNet> default_gist_net();

}  // namespace kvw
