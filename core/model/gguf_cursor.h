#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>

#include "core/model/gguf_types.h"

namespace kvw {

// Reads little-endian GGUF values from bytes, turning every read past the end into a Truncated
// ModelError that says where and what. Used by GgufFile to parse a file and by GgufArray to
// decode the elements of an array view (bytes GgufFile has already validated).
class GgufCursor {
public:
    GgufCursor(std::span<const uint8_t> bytes, const std::string& file)
        : bytes_(bytes), file_(file) {}

    uint64_t pos() const { return pos_; }
    uint64_t remaining() const { return bytes_.size() - pos_; }
    void set_context(std::string context) { context_ = std::move(context); }
    const std::string& file() const { return file_; }
    std::span<const uint8_t> bytes(uint64_t begin, uint64_t end) const {
        return bytes_.subspan(size_t(begin), size_t(end - begin));
    }

    void need(uint64_t n, const char* what) const;
    void skip(uint64_t n, const char* what) {
        need(n, what);
        pos_ += n;
    }

    template <typename T>
    T pod(const char* what) {
        need(sizeof(T), what);
        T v;
        std::memcpy(&v, bytes_.data() + pos_, sizeof v);
        pos_ += sizeof v;
        return v;
    }

    std::string string(const char* what);
    void skip_string(const char* what);  // checks the length like string(), copies nothing

    // A count of records of at least `min_bytes` each must fit in what remains of the file;
    // checked before anything is reserved for them.
    uint64_t count(const char* what, uint64_t min_bytes);

private:
    uint64_t string_length(const char* what);  // the length field, checked against the end
    std::string context_suffix() const { return context_.empty() ? "" : " of " + context_; }

    std::span<const uint8_t> bytes_;
    const std::string& file_;
    uint64_t pos_ = 0;
    std::string context_;
};

bool gguf_known_value_type(uint32_t type);

// Reads one value of file type number `type`. Scalars and strings are decoded; an array is
// validated element by element (bounds, bool bytes, nesting at most 16 deep) and returned as a
// view of its bytes that `owner` keeps alive. `depth` is the array nesting so far.
GgufValue read_gguf_value(GgufCursor& in, uint32_t type, int depth,
                          const std::shared_ptr<const void>& owner);

}  // namespace kvw
