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

namespace kvw {

// A read-only vector that Frames share (ARCHITECTURE §7.1): a Frame built after a tick that left
// a layer's pos2ledger alone points at the previous Frame's copy instead of copying it again, so
// a Frame costs what changed, and the Frames the history keeps cost the memory of one.
template <class T>
class SharedRows {
public:
    SharedRows() = default;
    SharedRows(std::vector<T> values)  // NOLINT(google-explicit-constructor): a vector is rows
        : rows_(std::make_shared<const std::vector<T>>(std::move(values))) {}

    const std::vector<T>& vec() const { return rows_ ? *rows_ : empty_rows(); }
    // Read like the vector it holds, wherever a vector is read.
    operator const std::vector<T>&() const { return vec(); }  // NOLINT(google-explicit-constructor)
    size_t size() const { return vec().size(); }
    bool empty() const { return vec().empty(); }
    const T& operator[](size_t i) const { return vec()[i]; }
    const T& at(size_t i) const { return vec().at(i); }
    const T* data() const { return vec().data(); }
    auto begin() const { return vec().begin(); }
    auto end() const { return vec().end(); }
    const T& front() const { return vec().front(); }
    const T& back() const { return vec().back(); }

    friend bool operator==(const SharedRows& a, const std::vector<T>& b) { return a.vec() == b; }
    friend bool operator==(const SharedRows& a, const SharedRows& b) { return a.vec() == b.vec(); }

    // True when both hold the same copy (not merely equal values): a view may skip its refill.
    bool shares_with(const SharedRows& other) const { return rows_ == other.rows_; }

private:
    static const std::vector<T>& empty_rows() {
        static const std::vector<T> none;
        return none;
    }

    std::shared_ptr<const std::vector<T>> rows_;
};

// The ledger's records as Frames share them: fixed-size chunks, so that a Frame built after a
// tick shares every chunk whose records did not change with the Frame before it.
template <class Record>
class ChunkedRecords {
public:
    using Chunk = std::vector<Record>;
    using ChunkPtr = std::shared_ptr<const Chunk>;

    ChunkedRecords() = default;
    // Cuts `records` into chunks of `chunk_size` (tests and small Frames).
    ChunkedRecords(std::vector<Record> records, size_t chunk_size) {
        for (size_t first = 0; first < records.size(); first += chunk_size) {
            const size_t last = std::min(records.size(), first + chunk_size);
            append_chunk(std::make_shared<const Chunk>(
                std::make_move_iterator(records.begin() + ptrdiff_t(first)),
                std::make_move_iterator(records.begin() + ptrdiff_t(last))));
        }
    }

    // Chunks are appended whole; every chunk but the last must be full (chunk_size() records).
    void append_chunk(ChunkPtr chunk) {
        size_ += chunk->size();
        chunks_.push_back(std::move(chunk));
    }
    size_t chunk_count() const { return chunks_.size(); }
    const ChunkPtr& chunk(size_t c) const { return chunks_[c]; }
    size_t chunk_size() const { return chunks_.empty() ? 1 : chunks_.front()->size(); }

    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const Record& operator[](size_t i) const {
        const size_t n = chunk_size();
        return (*chunks_[i / n])[i % n];
    }
    const Record& at(size_t i) const {
        if (i >= size_) throw std::out_of_range("ledger record " + std::to_string(i));
        return (*this)[i];
    }
    const Record& back() const { return (*this)[size_ - 1]; }

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
    std::vector<ChunkPtr> chunks_;
    size_t size_ = 0;
};

}  // namespace kvw
