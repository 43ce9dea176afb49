#include "core/model/mapped_file.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/io/regular_file.h"
#include "core/model/model_error.h"

namespace kvw {
namespace {

class MappedFile final : public ByteSource {
public:
    MappedFile(std::string path, int fd, const uint8_t* data, size_t size)
        : path_(std::move(path)), fd_(fd), data_(data), size_(size) {}
    ~MappedFile() override {
        if (size_ > 0) munmap(const_cast<uint8_t*>(data_), size_);
        ::close(fd_);
    }
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    std::span<const uint8_t> bytes() const override { return {data_, size_}; }
    const std::string& name() const override { return path_; }

    // One fstat (well under a microsecond): cheap enough before every tick. A file replaced by
    // rename (how this project writes outputs) is another inode and leaves this one whole.
    void check_readable() const override {
        struct stat st {};
        if (fstat(fd_, &st) != 0)
            throw ModelError(ModelErrorKind::Truncated, path_,
                             std::string("cannot check the mapped file: ") + std::strerror(errno));
        if (uint64_t(st.st_size) < size_)
            throw ModelError(ModelErrorKind::Truncated, path_,
                             "the file shrank from " + std::to_string(size_) + " to " +
                                 std::to_string(st.st_size) +
                                 " bytes while mapped (truncated or rewritten in place by "
                                 "another process); its weights cannot be read any more: "
                                 "load the model again",
                             uint64_t(st.st_size));
    }

private:
    std::string path_;
    int fd_;
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
    // The mapping keeps a descriptor of its own (RegularFile closes the one it opened), so that
    // check_readable() fstats the very file mapped (ARCHITECTURE §5.1).
    const int kept = ::fcntl(file.fd(), F_DUPFD_CLOEXEC, 0);
    if (kept < 0) {
        const int err = errno;
        if (size > 0) munmap(const_cast<uint8_t*>(data), size);
        throw ModelError(ModelErrorKind::CannotOpen, path,
                         std::string("cannot keep a descriptor: ") + std::strerror(err));
    }
    return std::make_shared<MappedFile>(path, kept, data, size);
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
