#include "core/gist/gist_net.h"

#include <stdexcept>

#include "core/math/mean_pool.h"

namespace kvw {

std::vector<float> MeanPoolGistNet::gist(std::span<const std::span<const float>> children,
                                         int /*level*/) const {
    if (children.empty()) throw std::invalid_argument("gist: no children to pool");
    const size_t dim = children.front().size();
    std::vector<const float*> rows;
    for (const auto& c : children) {
        if (c.size() != dim) throw std::invalid_argument("gist: children of unequal width");
        rows.push_back(c.data());
    }
    std::vector<float> out(dim);
    mean_pool_rows(rows.data(), int(rows.size()), int(dim), out.data());
    return out;
}

std::shared_ptr<const GistNet> default_gist_net() {
    static const auto net = std::make_shared<const MeanPoolGistNet>();
    return net;
}

}  // namespace kvw
