#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

namespace kvw {

// The list of a chunked container's chunks (ChunkedColumn, ChunkedRecords), shared whole: a
// Frame takes a column's list, or the last Frame's, as one pointer, where it took every chunk
// pointer (22 layers x 98 brightness chunks at 100,000 rows, each an atomic count) after each
// tick (ARCHITECTURE §7.1). A holder reads only the first chunks of a list, as many as its own
// count says, so a list may hold more than a holder uses. A list is changed in place only by
// an owner that holds it alone (writable_spine); every list is made non-const.
template <class T>
struct ChunkSpine {
    using Chunk = std::vector<T>;
    using ChunkPtr = std::shared_ptr<const Chunk>;

    std::vector<ChunkPtr> chunks;
    std::vector<const T*> data;  // [chunk] chunks[c]->data(): indexing reads one pointer

    void push_back(ChunkPtr chunk) {
        data.push_back(chunk->data());
        chunks.push_back(std::move(chunk));
    }
    void set(size_t c, ChunkPtr chunk) {
        data[c] = chunk->data();
        chunks[c] = std::move(chunk);
    }
};

template <class T>
using SpinePtr = std::shared_ptr<const ChunkSpine<T>>;

// `spine`'s first `keep` chunks (all of them when it holds fewer) as a list to change in place:
// the list itself while nothing else holds it, else a copy that replaces it here. A new list
// when `spine` is null.
template <class T>
ChunkSpine<T>& writable_spine(SpinePtr<T>& spine, size_t keep) {
    if (!spine) spine = std::make_shared<ChunkSpine<T>>();
    if (spine.use_count() != 1) {
        auto copy = std::make_shared<ChunkSpine<T>>();
        const size_t n = std::min(keep, spine->chunks.size());
        copy->chunks.assign(spine->chunks.begin(), spine->chunks.begin() + ptrdiff_t(n));
        copy->data.assign(spine->data.begin(), spine->data.begin() + ptrdiff_t(n));
        spine = std::move(copy);
    } else {
        // use_count() is a relaxed load: this fence orders the writes after it after the last
        // reads of the holder (a Frame on the UI thread) whose release it just saw.
        std::atomic_thread_fence(std::memory_order_acquire);
    }
    auto& list = const_cast<ChunkSpine<T>&>(*spine);  // made non-const above or by its owner
    if (list.chunks.size() > keep) {
        list.chunks.resize(keep);
        list.data.resize(keep);
    }
    return list;
}

}  // namespace kvw
