#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/math/kv_quant.h"

namespace kvw {

class ChunkRevisions;
class KvRowDevice;

// What the engine consumes: a token id, or an embedding vector (a gist) given directly.
struct Item {
    int32_t token = -1;
    std::span<const float> embedding;  // used when token < 0; n_embd floats owned by the caller

    static Item of_token(int32_t id) { return Item{id, {}}; }
};

// K or V of one layer's rows as the cache stores them (docs/ARCHITECTURE.md §13): physical row
// p starts at data + p * kv_dim elements of `type`; int8 and FP8 rows have `groups` scales
// (one per KV head) at scale + p * groups.
struct KvRows {
    const void* data = nullptr;
    KvType type = KvType::F32;
    const float* scale = nullptr;

    const void* row(size_t p, int kv_dim) const {
        return static_cast<const uint8_t*>(data) + p * size_t(kv_dim) * size_t(kv_type_bytes(type));
    }
    // The rows as floats, when they are stored as floats; null otherwise.
    const float* f32() const {
        return type == KvType::F32 ? static_cast<const float*>(data) : nullptr;
    }
};

// Read-only view of one layer's cached rows, token-major: row j of K is physical row
// physical_row(j) of k. K rows are stored with RoPE already applied at their rope position.
// `index` is set by a layout that keeps rows out of logical order (indirection). The engine
// decodes K and V with the core/math/kv_quant.h functions, and stores the K/V of the items it
// computes through the same types before they attend (see Transformer::forward).
struct LayerContext {
    int rows = 0;
    KvRows k;
    KvRows v;
    const int32_t* index = nullptr;  // [rows]: the physical row of each row; null: row j is j
    // [rows]: each row's rope position, which a layer with a sliding window measures its reach
    // by (ModelConfig::layer_window); layers without one never read it.
    const int32_t* positions = nullptr;
    // The types the layer stores new rows in: the forward's items attend to their own K/V as
    // stored (usually k.type and v.type; a context given as decoded floats keeps the types).
    KvType k_store = KvType::F32;
    KvType v_store = KvType::F32;
    // The revisions of the physical rows k and v point into (RowBuffer's, by physical row), or
    // null for rows no cache holds (decoded floats): what lets a backend that keeps the rows in
    // its own memory upload only those renewed since it last read them (ResidentRows).
    const ChunkRevisions* revisions = nullptr;
    // The device whose memory k and v point into (RowBuffer's), or null for host floats no
    // cache holds: a backend reads the rows where they are when it is its own device's memory.
    const KvRowDevice* device = nullptr;

    size_t physical_row(int j) const { return size_t(index ? index[j] : j); }
    // Physical rows [0, physical_extent()) hold every row the context reads.
    size_t physical_extent() const {
        if (rows <= 0) return 0;
        return index ? size_t(*std::max_element(index, index + rows)) + 1 : size_t(rows);
    }
};

struct ForwardOptions {
    bool logits = true;           // logits of the last `logit_items` items
    bool attention_mass = false;  // per layer, per attended row
    // How many of the last items get logits (1 .. n): 1 for sampling the next token; more for
    // teacher-forced scoring (core/eval), which needs the prediction after every item.
    int logit_items = 1;
};

}  // namespace kvw
