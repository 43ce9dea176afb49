#include "core/model/mapped_file.h"

#include <cerrno>
#include <cstring>

#include <sys/mman.h>

#include "core/io/regular_file.h"
#include "core/model/model_error.h"

namespace kvw {
namespace {

class MappedFile final : public ByteSource {
public:
    MappedFile(std::string path, const uint8_t* data, size_t size)
        : path_(std::move(path)), data_(data), size_(size) {}
    ~MappedFile() override {
        if (size_ > 0) munmap(const_cast<uint8_t*>(data_), size_);
    }
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    std::span<const uint8_t> bytes() const override { return {data_, size_}; }
    const std::string& name() const override { return path_; }

private:
    std::string path_;
    const uint8_t* data_;
    size_t size_;
};

class MemoryBytes final : public ByteSource {
public:
    MemoryBytes(std::vector<uint8_t> bytes, std::string name)
        : bytes_(std::move(bytes)), name_(std::move(name)) {}
    std::span<const uint8_t> bytes() const override { return bytes_; }
    const std::string& name() const override { return name_; }

private:
    std::vector<uint8_t> bytes_;
    std::string name_;
};

}  // namespace

std::shared_ptr<const ByteSource> map_file(const std::string& path) {
    const RegularFile file = open_model_file(path);
    const size_t size = size_t(file.size());
    const uint8_t* data = nullptr;
    if (size > 0) {
        void* mapped = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.fd(), 0);
        if (mapped == MAP_FAILED)
            throw ModelError(ModelErrorKind::CannotOpen, path,
                             std::string("mmap failed: ") + std::strerror(errno));
        data = static_cast<const uint8_t*>(mapped);
    }
    return std::make_shared<MappedFile>(path, data, size);  // the mapping outlives the descriptor
}

RegularFile open_model_file(const std::string& path) {
    try {
        return RegularFile(path);
    } catch (const FileReadError& e) {
        throw ModelError(ModelErrorKind::CannotOpen, path, e.detail());
    }
}

std::shared_ptr<const ByteSource> bytes_in_memory(std::vector<uint8_t> bytes, std::string name) {
    return std::make_shared<MemoryBytes>(std::move(bytes), std::move(name));
}

}  // namespace kvw
