#include "core/model/gguf_writer.h"

#include <cstring>
#include <stdexcept>

#include "core/io/replacing_file.h"

namespace kvw {
namespace {

constexpr uint32_t kVersion = 3;
constexpr uint64_t kAlignment = 32;  // the GGUF default, so no general.alignment key is needed

class ByteSink {
public:
    template <typename T>
    void pod(T v) {
        const size_t at = out_.size();
        out_.resize(at + sizeof v);
        std::memcpy(out_.data() + at, &v, sizeof v);
    }
    void string(const std::string& s) {
        pod(uint64_t(s.size()));
        out_.insert(out_.end(), s.begin(), s.end());
    }
    void pad_to(uint64_t alignment) {
        while (out_.size() % alignment != 0) out_.push_back(0);
    }
    void raw(std::span<const uint8_t> bytes) {
        out_.insert(out_.end(), bytes.begin(), bytes.end());
    }
    void reserve_total(size_t bytes) { out_.reserve(bytes); }
    size_t size() const { return out_.size(); }
    std::vector<uint8_t> take() { return std::move(out_); }

private:
    std::vector<uint8_t> out_;
};

// Writes the payload of a value (its type number is written by the caller).
void write_value(ByteSink& sink, const GgufValue& value) {
    std::visit(
        [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::string>) {
                sink.string(v);
            } else if constexpr (std::is_same_v<T, GgufArray>) {
                sink.pod(v.element_type());
                sink.pod(v.size());
                if (const auto encoded = v.encoded()) {  // a view of a file: already encoded
                    sink.raw(*encoded);
                    return;
                }
                v.for_each([&](const GgufValue& element) {
                    if (uint32_t(gguf_value_type(element)) != v.element_type())
                        throw std::invalid_argument(
                            "GgufWriter: array element of type " +
                            std::string(gguf_value_type_name(gguf_value_type(element))) +
                            " in an array declared as type " + std::to_string(v.element_type()));
                    write_value(sink, element);
                });
            } else if constexpr (std::is_same_v<T, bool>) {
                sink.pod(uint8_t(v ? 1 : 0));
            } else {
                sink.pod(v);
            }
        },
        value);
}

uint64_t tensor_byte_size(GgufType type, const std::vector<uint64_t>& shape) {
    const GgufBlockLayout layout = gguf_block_layout(type);
    if (shape.empty() || shape[0] % layout.block_elems != 0)
        throw std::invalid_argument("GgufWriter: row length is not a whole number of blocks");
    uint64_t rows = 1;
    for (size_t i = 1; i < shape.size(); ++i) rows *= shape[i];
    return rows * (shape[0] / layout.block_elems) * layout.block_bytes;
}

}  // namespace

void GgufWriter::add(const std::string& key, GgufValue value) {
    metadata_.emplace_back(key, std::move(value));
}

void GgufWriter::add_tensor(const std::string& name, GgufType type, std::vector<uint64_t> shape,
                            std::vector<uint8_t> data) {
    if (data.size() != tensor_byte_size(type, shape))
        throw std::invalid_argument("GgufWriter: tensor '" + name + "' has " +
                                    std::to_string(data.size()) + " bytes, its shape needs " +
                                    std::to_string(tensor_byte_size(type, shape)));
    tensors_.push_back({name, type, std::move(shape), std::move(data)});
}

std::vector<uint8_t> GgufWriter::to_bytes() const {
    ByteSink sink;
    sink.pod(uint32_t(0x46554747));  // "GGUF" read as a little-endian uint32
    sink.pod(kVersion);
    sink.pod(uint64_t(tensors_.size()));
    sink.pod(uint64_t(metadata_.size()));
    for (const auto& [key, value] : metadata_) {
        sink.string(key);
        sink.pod(uint32_t(gguf_value_type(value)));
        write_value(sink, value);
    }
    uint64_t offset = 0;
    for (const PendingTensor& t : tensors_) {
        sink.string(t.name);
        sink.pod(uint32_t(t.shape.size()));
        for (uint64_t ne : t.shape) sink.pod(ne);
        sink.pod(uint32_t(t.type));
        sink.pod(offset);
        offset += (t.data.size() + kAlignment - 1) / kAlignment * kAlignment;
    }
    sink.pad_to(kAlignment);
    // One allocation of the final size: for a multi-GB model, growing by doubling would hold
    // up to three copies of the weights at once.
    sink.reserve_total(sink.size() + offset);
    for (const PendingTensor& t : tensors_) {
        sink.raw(t.data);
        sink.pad_to(kAlignment);
    }
    return sink.take();
}

void GgufWriter::write_file(const std::string& path) const {
    write_file_atomically(path, to_bytes());
}

}  // namespace kvw
