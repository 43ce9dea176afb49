#pragma once
#include <algorithm>
#include <compare>
#include <cstddef>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/mirror/chunk_shift.h"
#include "core/mirror/chunk_spine.h"

namespace kvw {

// Read-only values that Frames share in fixed-size chunks (ARCHITECTURE §7.1): the ledger's
// records, a layer's rows, a layer's brightness column. A Frame built after a tick shares every
// chunk that did not change with the Frame before it, so it costs what changed, and the Frames
// the history keeps cost the memory of one. The chunk size is a power of two, so indexing is a
// shift and a mask (the views read 22 x 100,000 rows per Frame).
template <class Record>
class ChunkedRecords {
public:
    using Chunk = std::vector<Record>;
    using ChunkPtr = std::shared_ptr<const Chunk>;
    static constexpr size_t kDefaultChunk = 4096;

    ChunkedRecords() : ChunkedRecords(kDefaultChunk) {}
    // Throws std::invalid_argument unless chunk_size is a power of two.
    explicit ChunkedRecords(size_t chunk_size)
        : shift_(chunk_shift(chunk_size, "ChunkedRecords")) {}
    // The first `size` values of a ChunkedColumn's list of chunks (spine(): each full but the
    // last, which its writer may go on appending to after this Frame took it, so it is read up
    // to `size`): one pointer taken, whatever the size.
    ChunkedRecords(SpinePtr<Record> spine, size_t size, size_t chunk_size)
        : ChunkedRecords(chunk_size) {
        chunks_ = (size + chunk_size - 1) / chunk_size;
        if (chunks_ > (spine ? spine->chunks.size() : 0))
            throw std::logic_error("ChunkedRecords: " + std::to_string(size) +
                                   " records in fewer chunks");
        spine_ = std::move(spine);
        size_ = size;
    }
    // Cuts `records` into chunks (tests, small Frames, a vector handed over whole).
    ChunkedRecords(std::vector<Record> records,  // NOLINT(google-explicit-constructor)
                   size_t chunk_size = kDefaultChunk)
        : ChunkedRecords(chunk_size) {
        for (size_t first = 0; first < records.size(); first += chunk_size) {
            const size_t last = std::min(records.size(), first + chunk_size);
            append_chunk(std::make_shared<const Chunk>(
                             std::make_move_iterator(records.begin() + ptrdiff_t(first)),
                             std::make_move_iterator(records.begin() + ptrdiff_t(last))),
                         last - first);
        }
    }

    // The first `n` chunks, each full (std::logic_error otherwise), sharing this one's list.
    ChunkedRecords first_chunks(size_t n) const {
        const bool full = n < chunks_ || (n == chunks_ && size_ == n * chunk_size());
        if (!full)
            throw std::logic_error("ChunkedRecords: the first " + std::to_string(n) + " of " +
                                   std::to_string(chunks_) + " chunks are not all full");
        ChunkedRecords out(*this);
        out.chunks_ = n;
        out.size_ = n * chunk_size();
        return out;
    }

    // The first `count` records of `chunk` (at most its size and chunk_size()) after every
    // chunk before, which must each have been taken full: std::logic_error otherwise. Only the
    // count is read: the chunk may grow after (ChunkedColumn appends past what others took).
    // The list is shared on when it holds `chunk` next already (a Frame after a tick that
    // appended to the last chunk in place), else copied up to here unless held alone.
    void append_chunk(ChunkPtr chunk, size_t count) {
        if (size_ != chunks_ * chunk_size() || count > chunk_size() || count > chunk->size())
            throw std::logic_error("ChunkedRecords: " + std::to_string(count) +
                                   " records after a partial chunk, or over " +
                                   std::to_string(chunk_size()) + " or the chunk's own");
        if (!spine_ || chunks_ >= spine_->chunks.size() || spine_->chunks[chunks_] != chunk)
            writable_spine(spine_, chunks_).push_back(std::move(chunk));
        ++chunks_;
        size_ += count;
    }
    size_t chunk_count() const { return chunks_; }
    // Chunk c, of which this holds chunk_count_at(c) records (its own size may be larger).
    const ChunkPtr& chunk(size_t c) const { return spine_->chunks[c]; }
    size_t chunk_count_at(size_t c) const { return values_in_chunk(size_, chunk_size(), c); }
    size_t chunk_size() const { return size_t(1) << shift_; }

    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const Record& operator[](size_t i) const {
        return spine_->data[i >> shift_][i & (chunk_size() - 1)];
    }
    const Record& at(size_t i) const {
        if (i >= size_)
            throw std::out_of_range("record " + std::to_string(i) + " of " + std::to_string(size_));
        return (*this)[i];
    }
    const Record& front() const { return (*this)[0]; }
    const Record& back() const { return (*this)[size_ - 1]; }
    std::vector<Record> to_vector() const { return {begin(), end()}; }

    // True when both hold the same copies (not merely equal values): nothing to refill.
    bool shares_with(const ChunkedRecords& other) const {
        if (chunks_ != other.chunks_) return false;
        for (size_t c = 0; c < chunks_; ++c)
            if (chunk(c) != other.chunk(c)) return false;
        return true;
    }
    friend bool operator==(const ChunkedRecords& a, const std::vector<Record>& b) {
        return a.size() == b.size() && std::equal(b.begin(), b.end(), a.begin());
    }
    friend bool operator==(const ChunkedRecords& a, const ChunkedRecords& b) {
        return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
    }

    class const_iterator {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = Record;
        using difference_type = std::ptrdiff_t;
        using pointer = const Record*;
        using reference = const Record&;

        const_iterator() = default;
        const_iterator(const ChunkedRecords* records, size_t i) : records_(records), i_(i) {}
        reference operator*() const { return (*records_)[i_]; }
        pointer operator->() const { return &(*records_)[i_]; }
        reference operator[](difference_type d) const {
            return (*records_)[size_t(ptrdiff_t(i_) + d)];
        }
        const_iterator& operator++() {
            ++i_;
            return *this;
        }
        const_iterator operator++(int) {
            auto old = *this;
            ++i_;
            return old;
        }
        const_iterator& operator--() {
            --i_;
            return *this;
        }
        const_iterator operator--(int) {
            auto old = *this;
            --i_;
            return old;
        }
        const_iterator& operator+=(difference_type d) {
            i_ = size_t(ptrdiff_t(i_) + d);
            return *this;
        }
        const_iterator& operator-=(difference_type d) {
            i_ = size_t(ptrdiff_t(i_) - d);
            return *this;
        }
        friend const_iterator operator+(const_iterator it, difference_type d) { return it += d; }
        friend const_iterator operator+(difference_type d, const_iterator it) { return it += d; }
        friend const_iterator operator-(const_iterator it, difference_type d) { return it -= d; }
        friend difference_type operator-(const const_iterator& a, const const_iterator& b) {
            return ptrdiff_t(a.i_) - ptrdiff_t(b.i_);
        }
        friend bool operator==(const const_iterator& a, const const_iterator& b) {
            return a.i_ == b.i_;
        }
        friend auto operator<=>(const const_iterator& a, const const_iterator& b) {
            return a.i_ <=> b.i_;
        }

    private:
        const ChunkedRecords* records_ = nullptr;
        size_t i_ = 0;
    };

    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size_}; }

private:
    unsigned shift_;
    SpinePtr<Record> spine_;  // null while empty; may hold more chunks than chunks_
    size_t chunks_ = 0;       // chunks of the list this holds records of
    size_t size_ = 0;
};

// A layer's rows in a Frame (pos2ledger, rope_pos), shared by chunk with the Frame before.
template <class T>
using SharedRows = ChunkedRecords<T>;

}  // namespace kvw
