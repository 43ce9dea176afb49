#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace kvw {

// What the engine consumes: a token id, or an embedding vector (a gist) given directly.
struct Item {
    int32_t token = -1;
    std::span<const float> embedding;  // used when token < 0; n_embd floats owned by the caller

    static Item of_token(int32_t id) { return Item{id, {}}; }
};

// Read-only view of one layer's cached rows, token-major: row j of K starts at
// k + physical_row(j) * kv_dim. K rows are stored with RoPE already applied at their rope
// position. `index` is set by a layout that keeps rows out of logical order (indirection).
struct LayerContext {
    int rows = 0;
    const float* k = nullptr;
    const float* v = nullptr;
    const int32_t* index = nullptr;  // [rows]: the physical row of each row; null: row j is j

    size_t physical_row(int j) const { return size_t(index ? index[j] : j); }
};

struct ForwardOptions {
    bool logits = true;           // logits of the last `logit_items` items
    bool attention_mass = false;  // per layer, per attended row
    // How many of the last items get logits (1 .. n): 1 for sampling the next token; more for
    // teacher-forced scoring (core/eval), which needs the prediction after every item.
    int logit_items = 1;
};

struct ForwardOutput {
    // [layer] -> [n_items][kv_dim]: K (rotated at the item's position) and V of the new items.
    std::vector<std::vector<float>> k;
    std::vector<std::vector<float>> v;
    // [logit_items][vocab]: the logits of the last logit_items items in item order, when asked
    // for ([vocab] of the last item by default).
    std::vector<float> logits;
    // [layer] -> [context rows + n_items]: softmax weight each row received, summed over heads
    // and over the new items (queries), when asked for.
    std::vector<std::vector<float>> attention_mass;
};

}  // namespace kvw
