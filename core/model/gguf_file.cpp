#include "core/model/gguf_file.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/model/gguf_cursor.h"
#include "core/model/model_error.h"

namespace kvw {
namespace {

constexpr uint32_t kMagic = 0x46554747;  // "GGUF" read as a little-endian uint32
constexpr uint32_t kMaxDims = 4;         // GGML_MAX_DIMS
// A tensor's element count; its byte count (at most 4 bytes an element) must not wrap in 64
// bits, or a vast tensor would pass the end-of-file check with a size of 0.
constexpr uint64_t kMaxTensorElements = uint64_t(1) << 56;

std::optional<uint64_t> as_unsigned(const GgufValue& v) {
    return std::visit(
        [](const auto& x) -> std::optional<uint64_t> {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
                if constexpr (std::is_signed_v<T>) {
                    if (x < 0) return std::nullopt;
                }
                return uint64_t(x);
            }
            return std::nullopt;
        },
        v);
}

std::optional<int64_t> as_signed(const GgufValue& v) {
    return std::visit(
        [](const auto& x) -> std::optional<int64_t> {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, uint64_t>) {
                if (x > uint64_t(std::numeric_limits<int64_t>::max())) return std::nullopt;
                return int64_t(x);
            } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
                return int64_t(x);
            }
            return std::nullopt;
        },
        v);
}

std::string describe(const GgufValue& v) {
    std::string s(gguf_value_type_name(gguf_value_type(v)));
    if (auto u = as_unsigned(v)) return s + " " + std::to_string(*u);
    if (auto i = as_signed(v)) return s + " " + std::to_string(*i);
    return s;
}

}  // namespace

uint64_t GgufTensorInfo::n_elements() const {
    uint64_t n = 1;
    for (uint64_t ne : shape) n *= ne;
    return n;
}

uint64_t GgufTensorInfo::n_bytes() const {
    const GgufBlockLayout layout = gguf_block_layout(type);
    return n_elements() / layout.block_elems * layout.block_bytes;
}

GgufFile::GgufFile(std::shared_ptr<const ByteSource> source) : source_(std::move(source)) {
    const std::span<const uint8_t> bytes = source_->bytes();
    const std::string& file = source_->name();
    GgufCursor in(bytes, file);

    const uint32_t magic = in.pod<uint32_t>("magic");
    if (magic != kMagic) {
        char shown[5] = {};
        std::memcpy(shown, &magic, 4);
        for (char& c : shown)
            if (c != 0 && (c < 32 || c > 126)) c = '?';
        throw ModelError(ModelErrorKind::BadMagic, file,
                         std::string("expected \"GGUF\", found \"") + shown + "\"", 0);
    }
    version_ = in.pod<uint32_t>("version");
    if (version_ != 2 && version_ != 3)
        throw ModelError(ModelErrorKind::UnsupportedVersion, file,
                         "GGUF version " + std::to_string(version_) + " (supported: 2, 3)", 4);
    // The counts are trusted only as far as the file's size allows: reservations are capped
    // by how many minimal records (a tensor info: name length, n_dims, one dim, type, offset;
    // a metadata entry: key length, type, one byte) would fit, and a count larger than the
    // file ends in a Truncated error at the first record that is not there.
    const uint64_t n_tensors = in.pod<uint64_t>("tensor count");
    const uint64_t n_metadata = in.pod<uint64_t>("metadata count");
    const auto capped = [&](uint64_t n, uint64_t min_bytes) {
        return size_t(std::min(n, in.remaining() / min_bytes));
    };

    metadata_.reserve(capped(n_metadata, 8 + 4 + 1));
    metadata_offsets_.reserve(capped(n_metadata, 8 + 4 + 1));
    for (uint64_t i = 0; i < n_metadata; ++i) {
        const uint64_t entry_at = in.pos();
        in.set_context("metadata entry " + std::to_string(i));
        std::string key = in.string("key");
        in.set_context("metadata '" + key + "'");
        const uint64_t type_at = in.pos();
        const uint32_t type = in.pod<uint32_t>("value type");
        if (!gguf_known_value_type(type))
            throw ModelError(
                ModelErrorKind::BadMetadata, file,
                "metadata '" + key + "' has unknown value type " + std::to_string(type), type_at);
        GgufValue value = read_gguf_value(in, type, 0, source_);
        if (metadata_index_.count(key))
            throw ModelError(ModelErrorKind::BadMetadata, file,
                             "metadata key '" + key + "' appears twice", entry_at);
        metadata_index_.emplace(key, metadata_.size());
        metadata_.emplace_back(std::move(key), std::move(value));
        metadata_offsets_.push_back(entry_at);
    }

    if (has("general.alignment")) {
        const uint32_t a = get_u32("general.alignment");
        if (a == 0 || (a & (a - 1)) != 0)
            bad_metadata("general.alignment", "must be a power of two, is " + std::to_string(a));
        alignment_ = a;
    }

    tensors_.reserve(capped(n_tensors, 8 + 4 + 8 + 4 + 8));
    for (uint64_t i = 0; i < n_tensors; ++i) {
        GgufTensorInfo t;
        t.info_offset = in.pos();
        in.set_context("tensor info " + std::to_string(i));
        t.name = in.string("tensor name");
        in.set_context("tensor '" + t.name + "'");
        const uint64_t dims_at = in.pos();
        const uint32_t n_dims = in.pod<uint32_t>("dimension count");
        if (n_dims == 0 || n_dims > kMaxDims)
            throw ModelError(ModelErrorKind::BadMetadata, file,
                             "dimension count " + std::to_string(n_dims) + " is not in 1.." +
                                 std::to_string(kMaxDims),
                             dims_at, t.name);
        uint64_t elements = 1;
        for (uint32_t d = 0; d < n_dims; ++d) {
            const uint64_t ne_at = in.pos();
            const uint64_t ne = in.pod<uint64_t>("dimension");
            if (ne == 0 || ne > kMaxTensorElements / elements)
                throw ModelError(ModelErrorKind::BadMetadata, file,
                                 "dimension " + std::to_string(d) + " = " + std::to_string(ne) +
                                     " is zero or makes the tensor absurdly large",
                                 ne_at, t.name);
            elements *= ne;
            t.shape.push_back(ne);
        }
        const uint64_t type_at = in.pos();
        const uint32_t type_number = in.pod<uint32_t>("tensor type");
        const std::optional<GgufType> type = gguf_type_from_number(type_number);
        if (!type)
            throw ModelError(ModelErrorKind::UnknownTensorType, file,
                             "tensor type number " + std::to_string(type_number) +
                                 " is not one of F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K",
                             type_at, t.name);
        t.type = *type;
        if (t.shape[0] % gguf_block_layout(t.type).block_elems != 0)
            throw ModelError(ModelErrorKind::BadMetadata, file,
                             "row length " + std::to_string(t.shape[0]) +
                                 " is not a multiple of the " +
                                 std::string(gguf_type_name(t.type)) + " block size",
                             dims_at, t.name);
        const uint64_t offset_at = in.pos();
        t.offset = in.pod<uint64_t>("tensor data offset");
        if (t.offset % alignment_ != 0)
            throw ModelError(ModelErrorKind::BadMetadata, file,
                             "data offset " + std::to_string(t.offset) +
                                 " is not a multiple of the alignment " +
                                 std::to_string(alignment_),
                             offset_at, t.name);
        if (tensor_index_.count(t.name))
            throw ModelError(ModelErrorKind::BadMetadata, file,
                             "tensor name '" + t.name + "' appears twice", t.info_offset, t.name);
        tensor_index_.emplace(t.name, tensors_.size());
        tensors_.push_back(std::move(t));
    }

    data_offset_ = (in.pos() + alignment_ - 1) / alignment_ * alignment_;
    const uint64_t file_size = bytes.size();
    for (const GgufTensorInfo& t : tensors_) {
        const uint64_t start = data_offset_ + t.offset;  // may wrap; t.offset is checked first
        const uint64_t size = t.n_bytes();
        if (t.offset > file_size || start > file_size || size > file_size - start)
            throw ModelError(ModelErrorKind::TensorDataPastEnd, file,
                             std::to_string(size) + " bytes of " +
                                 std::string(gguf_type_name(t.type)) + " data at offset " +
                                 std::to_string(start) + " run past the end of the " +
                                 std::to_string(file_size) + "-byte file",
                             start, t.name);
    }
}

const GgufValue* GgufFile::find(std::string_view key) const {
    const auto it = metadata_index_.find(key);
    return it == metadata_index_.end() ? nullptr : &metadata_[it->second].second;
}

std::optional<uint64_t> GgufFile::metadata_offset(std::string_view key) const {
    const auto it = metadata_index_.find(key);
    if (it == metadata_index_.end()) return std::nullopt;
    return metadata_offsets_[it->second];
}

void GgufFile::bad_metadata(std::string_view key, const std::string& why) const {
    throw ModelError(ModelErrorKind::BadMetadata, file_name(),
                     "metadata '" + std::string(key) + "': " + why, metadata_offset(key));
}

const GgufValue& GgufFile::require(std::string_view key) const {
    const GgufValue* v = find(key);
    if (!v)
        throw ModelError(ModelErrorKind::MissingMetadata, file_name(),
                         "metadata key '" + std::string(key) + "' is absent");
    return *v;
}

uint64_t GgufFile::get_u64(std::string_view key) const {
    const GgufValue& v = require(key);
    if (auto u = as_unsigned(v)) return *u;
    bad_metadata(key, "expected a non-negative integer, found " + describe(v));
}

int64_t GgufFile::get_i64(std::string_view key) const {
    const GgufValue& v = require(key);
    if (auto i = as_signed(v)) return *i;
    bad_metadata(key, "expected an integer that fits int64, found " + describe(v));
}

uint32_t GgufFile::get_u32(std::string_view key) const {
    const GgufValue& v = require(key);
    const std::optional<uint64_t> u = as_unsigned(v);
    if (u && *u <= std::numeric_limits<uint32_t>::max()) return uint32_t(*u);
    bad_metadata(key, "expected an integer in 0..4294967295, found " + describe(v));
}

uint32_t GgufFile::get_u32(std::string_view key, uint32_t fallback) const {
    return has(key) ? get_u32(key) : fallback;
}

float GgufFile::get_f32(std::string_view key) const {
    const GgufValue& v = require(key);
    if (const float* f = std::get_if<float>(&v)) return *f;
    if (const double* d = std::get_if<double>(&v)) {
        if (!std::isfinite(*d) || std::fabs(*d) <= std::numeric_limits<float>::max())
            return float(*d);
        bad_metadata(key, "float64 " + std::to_string(*d) + " is out of float32 range");
    }
    bad_metadata(key, "expected a float, found " + describe(v));
}

float GgufFile::get_f32(std::string_view key, float fallback) const {
    return has(key) ? get_f32(key) : fallback;
}

bool GgufFile::get_bool(std::string_view key) const {
    const GgufValue& v = require(key);
    if (const bool* b = std::get_if<bool>(&v)) return *b;
    bad_metadata(key, "expected a bool, found " + describe(v));
}

bool GgufFile::get_bool(std::string_view key, bool fallback) const {
    return has(key) ? get_bool(key) : fallback;
}

const std::string& GgufFile::get_string(std::string_view key) const {
    const GgufValue& v = require(key);
    if (const std::string* s = std::get_if<std::string>(&v)) return *s;
    bad_metadata(key, "expected a string, found " + describe(v));
}

const GgufArray& GgufFile::get_array(std::string_view key) const {
    const GgufValue& v = require(key);
    if (const GgufArray* a = std::get_if<GgufArray>(&v)) return *a;
    bad_metadata(key, "expected an array, found " + describe(v));
}

const GgufTensorInfo* GgufFile::find_tensor(std::string_view name) const {
    const auto it = tensor_index_.find(name);
    return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

std::span<const uint8_t> GgufFile::tensor_bytes(const GgufTensorInfo& info) const {
    return source_->bytes().subspan(size_t(data_offset_ + info.offset), size_t(info.n_bytes()));
}

}  // namespace kvw
