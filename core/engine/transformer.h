#pragma once
#include <memory>
#include <span>

#include "core/backend/backend.h"
#include "core/engine/forward_types.h"
#include "core/model/model.h"

namespace kvw {

// The single forward primitive (ARCHITECTURE §5): new items at given positions attend to each
// layer's context rows and then causally to each other. It serves prefill (empty context),
// decode, K/V for insertions, rebuilds and suffix recomputes.
class Transformer {
public:
    Transformer(std::shared_ptr<const Model> model, Backend& backend);

    // positions.size() == items.size(); context.size() == n_layers (rows may be 0).
    ForwardOutput forward(std::span<const Item> items, std::span<const int32_t> positions,
                          std::span<const LayerContext> context,
                          const ForwardOptions& options = {}) const;

    const Model& model() const { return *model_; }

private:
    std::shared_ptr<const Model> model_;
    Backend& backend_;
};

}  // namespace kvw
