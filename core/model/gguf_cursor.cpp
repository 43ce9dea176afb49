#include "core/model/gguf_cursor.h"

#include "core/model/model_error.h"

namespace kvw {
namespace {

constexpr int kMaxArrayNesting = 16;  // real files nest at most once; guards the stack

uint64_t min_value_bytes(GgufValueType type) {
    switch (type) {
        case GgufValueType::UInt8:
        case GgufValueType::Int8:
        case GgufValueType::Bool: return 1;
        case GgufValueType::UInt16:
        case GgufValueType::Int16: return 2;
        case GgufValueType::UInt32:
        case GgufValueType::Int32:
        case GgufValueType::Float32: return 4;
        case GgufValueType::UInt64:
        case GgufValueType::Int64:
        case GgufValueType::Float64:
        case GgufValueType::String: return 8;     // a string's length field
        case GgufValueType::Array: return 4 + 8;  // element type + count
    }
    return 1;
}

bool read_bool(GgufCursor& in) {
    const uint64_t at = in.pos();
    const uint8_t b = in.pod<uint8_t>("bool value");
    if (b > 1)
        throw ModelError(ModelErrorKind::BadMetadata, in.file(),
                         "bool value " + std::to_string(b) + " is neither 0 nor 1", at);
    return b == 1;
}

// Checks `n` elements of `type` and moves past them without decoding: fixed-size elements in
// one step, strings by their lengths, bools byte by byte, nested arrays recursively.
void skip_elements(GgufCursor& in, uint32_t type, uint64_t n, int depth,
                   const std::shared_ptr<const void>& owner) {
    switch (GgufValueType(type)) {
        case GgufValueType::String:
            for (uint64_t i = 0; i < n; ++i) in.skip_string("string element");
            return;
        case GgufValueType::Bool:
            for (uint64_t i = 0; i < n; ++i) read_bool(in);
            return;
        case GgufValueType::Array:
            for (uint64_t i = 0; i < n; ++i) read_gguf_value(in, type, depth, owner);
            return;
        default:  // count() has checked that n elements of this size fit
            in.skip(n * min_value_bytes(GgufValueType(type)), "array elements");
    }
}

}  // namespace

void GgufCursor::need(uint64_t n, const char* what) const {
    if (n > remaining())
        throw ModelError(ModelErrorKind::Truncated, file_,
                         std::string("reading ") + what + context_suffix() + " needs " +
                             std::to_string(n) + " bytes, " + std::to_string(remaining()) +
                             " remain",
                         pos_);
}

uint64_t GgufCursor::string_length(const char* what) {
    const uint64_t at = pos_;
    const uint64_t length = pod<uint64_t>(what);
    if (length > remaining()) {
        pos_ = at;  // report the length field, which is what is absurd
        throw ModelError(ModelErrorKind::Truncated, file_,
                         std::string("reading ") + what + context_suffix() + ": length " +
                             std::to_string(length) + " exceeds the " +
                             std::to_string(remaining() - 8) + " bytes that remain",
                         at);
    }
    return length;
}

std::string GgufCursor::string(const char* what) {
    const uint64_t length = string_length(what);
    std::string s(reinterpret_cast<const char*>(bytes_.data() + pos_), size_t(length));
    pos_ += length;
    return s;
}

void GgufCursor::skip_string(const char* what) { pos_ += string_length(what); }

uint64_t GgufCursor::count(const char* what, uint64_t min_bytes) {
    const uint64_t at = pos_;
    const uint64_t n = pod<uint64_t>(what);
    if (n > remaining() / min_bytes)
        throw ModelError(ModelErrorKind::Truncated, file_,
                         std::string(what) + context_suffix() + " is " + std::to_string(n) +
                             " but only " + std::to_string(remaining()) +
                             " bytes remain (at least " + std::to_string(min_bytes) +
                             " per element)",
                         at);
    return n;
}

bool gguf_known_value_type(uint32_t t) { return t <= uint32_t(GgufValueType::Float64); }

GgufValue read_gguf_value(GgufCursor& in, uint32_t type, int depth,
                          const std::shared_ptr<const void>& owner) {
    switch (GgufValueType(type)) {
        case GgufValueType::UInt8: return in.pod<uint8_t>("uint8 value");
        case GgufValueType::Int8: return in.pod<int8_t>("int8 value");
        case GgufValueType::UInt16: return in.pod<uint16_t>("uint16 value");
        case GgufValueType::Int16: return in.pod<int16_t>("int16 value");
        case GgufValueType::UInt32: return in.pod<uint32_t>("uint32 value");
        case GgufValueType::Int32: return in.pod<int32_t>("int32 value");
        case GgufValueType::Float32: return in.pod<float>("float32 value");
        case GgufValueType::UInt64: return in.pod<uint64_t>("uint64 value");
        case GgufValueType::Int64: return in.pod<int64_t>("int64 value");
        case GgufValueType::Float64: return in.pod<double>("float64 value");
        case GgufValueType::String: return in.string("string value");
        case GgufValueType::Bool: return read_bool(in);
        case GgufValueType::Array: {
            if (depth >= kMaxArrayNesting)
                throw ModelError(
                    ModelErrorKind::BadMetadata, in.file(),
                    "arrays nested more than " + std::to_string(kMaxArrayNesting) + " deep",
                    in.pos());
            const uint64_t type_at = in.pos();
            const uint32_t element_type = in.pod<uint32_t>("array element type");
            if (!gguf_known_value_type(element_type))
                throw ModelError(ModelErrorKind::BadMetadata, in.file(),
                                 "unknown array element type " + std::to_string(element_type),
                                 type_at);
            const uint64_t n =
                in.count("array length", min_value_bytes(GgufValueType(element_type)));
            const uint64_t begin = in.pos();
            skip_elements(in, element_type, n, depth + 1, owner);
            return GgufArray::view(element_type, n, in.bytes(begin, in.pos()), owner);
        }
    }
    throw ModelError(ModelErrorKind::BadMetadata, in.file(),
                     "unknown metadata value type " + std::to_string(type), in.pos() - 4);
}

}  // namespace kvw
