#pragma once
#include <atomic>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "core/mirror/chunk_shift.h"
#include "core/mirror/chunk_spine.h"

namespace kvw {

// One value per ledger record, in fixed-size chunks that Frames and session copies share
// (ARCHITECTURE §7.1): a Frame takes a column by its chunk pointers, and a write copies a chunk
// only while someone else may read the value it changes. A tick that decays every brightness
// thus pays for the copy in the tick, which writes every value anyway, and the Frame after it
// copies nothing.
//
// Appends go into the last chunk in place even while it is shared: every holder reads a chunk
// only up to its own count (a Frame's, a copy's size()), never past it, so a value put after
// what the holders took is seen by nobody but the writer. Thus a tick that adds a record and
// marks it live copies no chunk, where it used to copy the last 1,024 records for the Frame and
// the mirror snapshot that shared them. The rule that makes it safe: a chunk's values past the
// count some holder took (`shared_upto_`) belong to whoever appended them last, which is this
// column exactly when the chunk's length equals its own count (a holder that appended past it
// makes the chunk longer). Holders read the chunk's values through data(), never its size(),
// which only the writing thread reads: a chunk handed out is a prefix of the values, counted by
// whoever holds it (chunk_count_at).
template <class T>
class ChunkedColumn {
public:
    using Chunk = std::vector<T>;
    using ChunkPtr = std::shared_ptr<const Chunk>;

    // chunk_size is a power of two, so that indexing is a shift and a mask (the state hash
    // reads every record's value in every layer after each command): std::invalid_argument
    // otherwise.
    explicit ChunkedColumn(size_t chunk_size)
        : chunk_size_(chunk_size),
          shift_(chunk_shift(chunk_size, "ChunkedColumn")),
          spine_(std::make_shared<ChunkSpine<T>>()) {}
    // A copy shares every chunk, and the list of them; both sides then copy before writing a
    // value the other holds.
    ChunkedColumn(const ChunkedColumn& other)
        : chunk_size_(other.chunk_size_),
          shift_(other.shift_),
          size_(other.size_),
          spine_(other.spine_),
          shared_upto_(other.share_tail()) {}
    ChunkedColumn& operator=(const ChunkedColumn& other) {
        if (this != &other) *this = ChunkedColumn(other);
        return *this;
    }
    ChunkedColumn(ChunkedColumn&&) noexcept = default;
    ChunkedColumn& operator=(ChunkedColumn&&) noexcept = default;
    ~ChunkedColumn() = default;

    size_t size() const { return size_; }
    const T& operator[](size_t i) const { return spine_->data[i >> shift_][i & (chunk_size_ - 1)]; }

    void push_back(T value) {
        const size_t offset = offset_of(size_);
        if (offset == 0) {
            auto chunk = std::make_shared<Chunk>();
            chunk->reserve(chunk_size_);  // appends never move its values (data() is kept)
            writable_spine(spine_, size_t(-1)).push_back(std::move(chunk));
            shared_upto_ = 0;
        }
        Chunk& last = appendable();
        last.push_back(std::move(value));
        ++size_;
    }

    // Precondition: i < size().
    void set(size_t i, const T& value) { mutable_at(i) = value; }
    // The value at i, to change in place: its chunk is copied first while another holder may
    // read it. Precondition: i < size().
    T& mutable_at(size_t i) { return writable(i >> shift_, offset_of(i))[offset_of(i)]; }
    // Chunk `c` to change in place (any of its values), copied first while another owner holds
    // it: one check for a run of writes to the same chunk. Precondition: c < chunks().size().
    Chunk& writable_chunk(size_t c) { return writable(c, 0); }
    // The chunk that holds index i, and i's place in it.
    size_t chunk_of(size_t i) const { return i >> shift_; }
    size_t offset_of(size_t i) const { return i & (chunk_size_ - 1); }
    size_t chunk_size() const { return chunk_size_; }

    // Every chunk, full but the last, of which a holder reads chunk_count_at(c) values (a chunk
    // may hold more, appended after); what a Frame holds of the column. Taking them marks the
    // last chunk's values as shared: the next write to one of them copies it.
    const std::vector<ChunkPtr>& chunks() const {
        (void)share_tail();
        return spine_->chunks;
    }
    // The same as one shared list (what a Frame takes: one pointer, not a pointer per chunk),
    // of which a holder reads the first chunk_count_at(c) values of chunk c for this size().
    SpinePtr<T> spine() const {
        (void)share_tail();
        return spine_;
    }
    // How many of chunk c's values are this column's.
    size_t chunk_count_at(size_t c) const { return values_in_chunk(size_, chunk_size_, c); }

private:
    // Marks this column's values in its last chunk as another holder's too; returns their count.
    size_t share_tail() const {
        const size_t chunks = spine_->chunks.size();
        shared_upto_ = chunks == 0 ? 0 : chunk_count_at(chunks - 1);
        return shared_upto_;
    }

    // Chunk c with this column's own values only, no other owner's: the chunk itself while
    // nobody else holds it (values another owner appended after are dropped), else a copy.
    // The list is made this column's own first, so that a chunk's count says who else holds
    // it (a Frame that holds the list holds every chunk in it).
    Chunk& own_copy(size_t c) {
        ChunkSpine<T>& spine = writable_spine(spine_, size_t(-1));
        const ChunkPtr& chunk = spine.chunks[c];
        const size_t count = chunk_count_at(c);
        if (chunk.use_count() != 1) {
            auto copy = std::make_shared<Chunk>();
            copy->reserve(chunk_size_);
            copy->assign(chunk->begin(), chunk->begin() + ptrdiff_t(count));
            spine.set(c, copy);
            if (c + 1 == spine.chunks.size()) shared_upto_ = 0;
            return *copy;
        }
        // use_count() is a relaxed load: this fence orders the writes after it after the last
        // reads of the owner (a Frame on the UI thread) whose release it just saw.
        std::atomic_thread_fence(std::memory_order_acquire);
        // Every chunk was made here as a non-const Chunk, so writing through it is defined.
        Chunk& mine = const_cast<Chunk&>(*chunk);
        if (mine.size() > count) mine.erase(mine.begin() + ptrdiff_t(count), mine.end());
        return mine;
    }

    // The last chunk to append to: in place when this column appended last (no holder reads
    // past shared_upto_ <= its count), else its own copy.
    Chunk& appendable() {
        const size_t c = spine_->chunks.size() - 1;
        const ChunkPtr& chunk = spine_->chunks[c];
        if (chunk->size() == chunk_count_at(c)) return const_cast<Chunk&>(*chunk);
        return own_copy(c);
    }

    // Chunk c to write from value `from` on: in place when no other holder can read those
    // values (they lie in the last chunk past what was shared and this column appended last,
    // whoever holds the chunk or the list), else own_copy.
    Chunk& writable(size_t c, size_t from) {
        const ChunkPtr& chunk = spine_->chunks[c];
        if (c + 1 == spine_->chunks.size() && from >= shared_upto_ &&
            chunk->size() == chunk_count_at(c))
            return const_cast<Chunk&>(*chunk);
        return own_copy(c);
    }

    size_t chunk_size_;
    unsigned shift_;  // log2(chunk_size_)
    size_t size_ = 0;
    SpinePtr<T> spine_;  // never null
    // How many of the last chunk's values some other holder may read (a copy of this column,
    // a Frame, a snapshot took them): a write to one of them copies the chunk first.
    mutable size_t shared_upto_ = 0;
};

}  // namespace kvw
