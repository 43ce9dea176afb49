#pragma once
#include <cstddef>
#include <vector>

#include "core/backend/backend_array.h"

namespace kvw {

// K or V of a forward's new items, every layer's, where the backend computed them: layer l's
// [n_items][kv_dim] floats begin at l · stride (a 64-byte line each, as the SIMD kernels like
// their rows). The cache takes them from there (KvLayout::append with RowsAt::Device), so with
// an accelerator they never cross to the host; host() downloads one layer for whoever asks.
class LayerRows {
public:
    LayerRows() = default;
    LayerRows(Backend& backend, int layers, size_t per_layer)
        : backend_(&backend),
          stride_((per_layer + 15) / 16 * 16),
          per_layer_(per_layer),
          layers_(layers),
          all_(backend, size_t(layers) * stride_) {}

    int layers() const { return layers_; }
    float* of(int layer) const { return all_.data() + size_t(layer) * stride_; }  // backend
    // A layer's floats downloaded.
    std::vector<float> host(int layer) const {
        std::vector<float> out(per_layer_);
        backend_->download(out.data(), of(layer), per_layer_ * sizeof(float));
        return out;
    }
    // The NaN and infinite values among every layer's floats, counted where they are.
    size_t nonfinite() const {
        return layers_ == 0
                   ? 0
                   : backend_->count_nonfinite(of(0), size_t(layers_), per_layer_, stride_);
    }

private:
    Backend* backend_ = nullptr;
    size_t stride_ = 0, per_layer_ = 0;
    int layers_ = 0;
    BackendArray<float> all_;
};

struct ForwardOutput {
    // K (rotated at the item's position) and V of the new items, in the backend's memory.
    LayerRows k, v;
    // [logit_items][vocab]: the logits of the last logit_items items in item order, when asked
    // for ([vocab] of the last item by default).
    std::vector<float> logits;
    // [layer] -> [context rows + n_items]: softmax weight each row received, summed over heads
    // and over the new items (queries), when asked for.
    std::vector<std::vector<float>> attention_mass;

    // A layer's new rows for the cache, where they are: the backend's memory, which its
    // kv_rows() device shares (the StateManager's cache lives on that device).
    NewRows rows(int layer) const { return {k.of(layer), v.of(layer), RowsAt::Device}; }
};

}  // namespace kvw
