#pragma once
#include <atomic>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "core/mirror/chunk_shift.h"

namespace kvw {

// One value per ledger record, in fixed-size chunks that Frames and session copies share
// (ARCHITECTURE §7.1): a Frame takes a column by its chunk pointers, and a write copies a chunk
// only while someone else still holds it. A tick that decays every brightness thus pays for the
// copy in the tick, which writes every value anyway, and the Frame after it copies nothing.
template <class T>
class ChunkedColumn {
public:
    using Chunk = std::vector<T>;
    using ChunkPtr = std::shared_ptr<const Chunk>;

    // chunk_size is a power of two, so that indexing is a shift and a mask (the state hash
    // reads every record's value in every layer after each command): std::invalid_argument
    // otherwise.
    explicit ChunkedColumn(size_t chunk_size)
        : chunk_size_(chunk_size), shift_(chunk_shift(chunk_size, "ChunkedColumn")) {}

    size_t size() const { return size_; }
    const T& operator[](size_t i) const { return (*chunks_[i >> shift_])[i & (chunk_size_ - 1)]; }

    void push_back(T value) {
        if (size_ % chunk_size_ == 0) {
            auto chunk = std::make_shared<Chunk>();
            chunk->reserve(chunk_size_);
            chunks_.push_back(std::move(chunk));
        }
        writable(chunks_.size() - 1).push_back(std::move(value));
        ++size_;
    }

    // Precondition: i < size().
    void set(size_t i, const T& value) { mutable_at(i) = value; }
    // The value at i, to change in place: its chunk is copied first while another owner holds
    // it. Precondition: i < size().
    T& mutable_at(size_t i) { return writable(i >> shift_)[i & (chunk_size_ - 1)]; }
    // Chunk `c` to change in place, copied first while another owner holds it: one check for
    // a run of writes to the same chunk. Precondition: c < chunks().size().
    Chunk& writable_chunk(size_t c) { return writable(c); }
    // The chunk that holds index i, and i's place in it.
    size_t chunk_of(size_t i) const { return i >> shift_; }
    size_t offset_of(size_t i) const { return i & (chunk_size_ - 1); }

    // Every chunk full but the last; what a Frame holds of the column.
    const std::vector<ChunkPtr>& chunks() const { return chunks_; }

private:
    // The chunk to write, copied first while another owner holds it. use_count() may only
    // overstate the owners here: copies of a chunk pointer are made by the thread that writes
    // (the session's), and the others only let theirs go.
    Chunk& writable(size_t c) {
        ChunkPtr& chunk = chunks_[c];
        if (chunk.use_count() != 1) {
            auto copy = std::make_shared<Chunk>();
            copy->reserve(chunk_size_);
            copy->assign(chunk->begin(), chunk->end());
            chunk = std::move(copy);
        } else {
            // use_count() is a relaxed load: this fence orders the write below after the last
            // reads of the owner (a Frame on the UI thread) whose release it just saw.
            std::atomic_thread_fence(std::memory_order_acquire);
        }
        // Every chunk was made here as a non-const Chunk, so writing through it is defined.
        return const_cast<Chunk&>(*chunk);
    }

    size_t chunk_size_;
    unsigned shift_;  // log2(chunk_size_)
    size_t size_ = 0;
    std::vector<ChunkPtr> chunks_;
};

}  // namespace kvw
