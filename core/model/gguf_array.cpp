#include "core/model/gguf_cursor.h"
#include "core/model/gguf_types.h"

namespace kvw {

GgufArray::GgufArray(uint32_t element_type, std::vector<GgufValue> values)
    : element_type_(element_type), values_(std::move(values)) {}

GgufArray GgufArray::view(uint32_t element_type, uint64_t count, std::span<const uint8_t> bytes,
                          std::shared_ptr<const void> owner) {
    GgufArray array;
    array.element_type_ = element_type;
    array.view_ = true;
    array.count_ = count;
    array.bytes_ = bytes;
    array.owner_ = std::move(owner);
    return array;
}

void GgufArray::for_each(const std::function<void(const GgufValue&)>& f) const {
    if (!view_) {
        for (const GgufValue& v : values_) f(v);
        return;
    }
    // The reader validated these bytes, so decoding them cannot fail; nested arrays come out
    // as views of the same owner.
    static const std::string kView = "GGUF array view";
    GgufCursor in(bytes_, kView);
    for (uint64_t i = 0; i < count_; ++i) f(read_gguf_value(in, element_type_, 1, owner_));
}

std::vector<GgufValue> GgufArray::values() const {
    if (!view_) return values_;
    std::vector<GgufValue> out;
    out.reserve(size_t(count_));
    for_each([&](const GgufValue& v) { out.push_back(v); });
    return out;
}

std::optional<std::span<const uint8_t>> GgufArray::encoded() const {
    if (!view_) return std::nullopt;
    return bytes_;
}

}  // namespace kvw
