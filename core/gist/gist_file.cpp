#include "core/gist/gist_file.h"

#include <filesystem>
#include <stdexcept>

#include "core/model/gguf_file.h"
#include "core/model/gguf_sidecar.h"

namespace kvw {

namespace {

// Far above any model this project loads (n_embd) or any block a context holds (K).
constexpr uint32_t kMaxEmbedding = 1u << 16;
constexpr uint32_t kMaxBlock = 1u << 12;

}  // namespace

std::string gist_tensor_name(int level, const char* part) {
    return "gist." + std::to_string(level) + "." + part;
}

LearnedGistNet::LearnedGistNet(std::string name, int n_embd, int k, Level level1, Level level2)
    : name_(std::move(name)),
      n_embd_(n_embd),
      k_(k),
      levels_{std::move(level1), std::move(level2)} {}

std::vector<float> LearnedGistNet::gist(std::span<const std::span<const float>> children,
                                        int level) const {
    if (level != 1 && level != 2)
        throw std::invalid_argument("gist: level " + std::to_string(level) + " is not 1 or 2");
    if (int(children.size()) != k_)
        throw std::invalid_argument("gist: " + name_ + " pools K = " + std::to_string(k_) +
                                    " children, not " + std::to_string(children.size()));
    const Level& l = levels_[level - 1];
    const size_t n = size_t(n_embd_);
    std::vector<double> pooled(n, 0.0);
    for (size_t c = 0; c < children.size(); ++c) {
        if (children[c].size() != n)
            throw std::invalid_argument("gist: a child of " + std::to_string(children[c].size()) +
                                        " floats, " + name_ + " takes " + std::to_string(n));
        for (size_t i = 0; i < n; ++i) pooled[i] += double(l.pool[c]) * children[c][i];
    }
    std::vector<float> out(n);
    for (size_t j = 0; j < n; ++j) {
        double acc = l.bias[j];
        const float* row = l.weight.data() + j * n;
        for (size_t i = 0; i < n; ++i) acc += double(row[i]) * pooled[i];
        out[j] = float(acc);
    }
    return out;
}

std::shared_ptr<const LearnedGistNet> read_gist_net(std::shared_ptr<const ByteSource> source) {
    const GgufFile file(std::move(source));
    const std::string& arch = file.get_string("general.architecture");
    if (arch != kGistArchitecture)
        file.bad_metadata("general.architecture",
                          "'" + arch + "', a gist net sidecar says '" + kGistArchitecture + "'");
    const uint32_t n = sidecar_count(file, "gist.embedding_length", kMaxEmbedding);
    const uint32_t k = sidecar_count(file, "gist.block_size", kMaxBlock);
    if (k < 2) file.bad_metadata("gist.block_size", "1 is no block size (K >= 2)");
    std::vector<std::string> expected;
    LearnedGistNet::Level levels[2];
    for (int level = 1; level <= 2; ++level) {
        const auto read = [&](const char* part, std::vector<uint64_t> shape) {
            expected.push_back(gist_tensor_name(level, part));
            return sidecar_floats(file, expected.back(), shape, "the gist net");
        };
        LearnedGistNet::Level& l = levels[level - 1];
        l.pool = read("pool", {k});
        l.weight = read("proj.weight", {n, n});
        l.bias = read("proj.bias", {n});
    }
    refuse_unexpected_tensors(file, expected, "not part of a gist net (levels 1 and 2)");
    const std::string name =
        "learned:" + std::filesystem::path(file.file_name()).filename().string();
    return std::make_shared<const LearnedGistNet>(name, int(n), int(k), std::move(levels[0]),
                                                  std::move(levels[1]));
}

std::shared_ptr<const LearnedGistNet> read_gist_net_file(const std::string& path) {
    return read_gist_net(map_file(path));
}

}  // namespace kvw
