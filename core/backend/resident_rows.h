#pragma once
#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "core/backend/backend_array.h"
#include "core/engine/forward_types.h"

namespace kvw {

// Copies of cached K/V rows in a backend's memory, for a backend whose memory is not the host's
// (docs/ARCHITECTURE.md §18). The cache's rows live on the host; a copy of each layer's physical
// rows is kept in the backend and brought up to date before attention reads it by uploading only
// the rows its revisions renewed since the copy last read them (ChunkRevisions::
// rows_renewed_since): a decode step uploads the row it appended, not the layer. The rows of a
// context without revisions (decoded floats no cache holds) are uploaded whole on every call.
//
// A copy is known by the host address of its K rows and trusted through the revisions only: it
// is brought up to date from the rows the revisions name when they descend from the revision it
// read, and uploaded whole otherwise (another buffer at a freed one's address, a restored
// checkpoint), so that it never serves rows the host no longer holds.
class ResidentRows {
public:
    // At most `max_copies` layers' copies are kept; the one read longest ago goes first.
    explicit ResidentRows(Backend& backend, size_t max_copies = 256);

    // `context` with K and V (rows and scales) in the backend's memory, equal to the host's
    // physical rows [0, context.physical_extent()); index and positions stay host memory.
    // `groups`: scales per row of an int8 / FP8 type (the KV heads).
    LayerContext resident(const LayerContext& context, int kv_dim, int groups);

    // Bytes uploaded so far (rows and scales): what the revisions saved, measured.
    uint64_t bytes_uploaded() const { return bytes_uploaded_; }
    size_t copies() const { return copies_.size(); }

private:
    // K or V of one layer's copy.
    struct Half {
        BackendArray<uint8_t> rows;
        BackendArray<float> scales;  // empty for an unscaled type
    };
    struct Copy {
        const void* v_host = nullptr;
        KvType k_type = KvType::F32;
        KvType v_type = KvType::F32;
        int kv_dim = 0;
        int groups = 0;
        Half k, v;
        size_t capacity = 0;    // rows allocated
        size_t valid = 0;       // rows [0, valid) equal the host's as of `revision`
        uint64_t revision = 0;  // the host rows' latest() when last read
        uint64_t last_read = 0;
    };

    Copy& copy_for(const LayerContext& context, int kv_dim, int groups);
    // Room for `rows` rows, the valid ones kept (copied within the backend).
    void reserve(Copy& copy, size_t rows);
    // Host physical rows [first, end) of both halves into the copy.
    void upload(Copy& copy, const LayerContext& context, size_t first, size_t end);
    void evict_oldest();

    Backend& backend_;
    size_t max_copies_;
    std::unordered_map<const void*, Copy> copies_;  // by the host address of the K rows
    uint64_t reads_ = 0;
    uint64_t bytes_uploaded_ = 0;
};

}  // namespace kvw
