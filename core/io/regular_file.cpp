#include "core/io/regular_file.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kvw {

namespace {

const char* kind_of(mode_t mode) {
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a plain file";
}

}  // namespace

FileReadError::FileReadError(FileFaultKind kind, std::string path, std::string detail)
    : std::runtime_error(path + ": " + detail),
      kind_(kind),
      path_(std::move(path)),
      detail_(std::move(detail)) {}

RegularFile::RegularFile(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0) throw FileReadError(FileFaultKind::CannotOpen, path, std::strerror(errno));
    struct stat st {};
    if (fstat(fd_, &st) != 0) {
        const int err = errno;
        ::close(fd_);
        throw FileReadError(FileFaultKind::CannotOpen, path, std::strerror(err));
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd_);
        throw FileReadError(FileFaultKind::NotRegular, path,
                            std::string("is ") + kind_of(st.st_mode) + ", not a regular file");
    }
    // Back to blocking reads: O_NONBLOCK was only for the open() of a FIFO.
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
    size_ = uint64_t(st.st_size);
}

RegularFile::~RegularFile() {
    if (fd_ >= 0) ::close(fd_);
}

std::string byte_count_text(uint64_t bytes) {
    if (bytes >= (uint64_t(1) << 30) && bytes % (uint64_t(1) << 30) == 0)
        return std::to_string(bytes >> 30) + " GiB";
    if (bytes >= (uint64_t(1) << 20) && bytes % (uint64_t(1) << 20) == 0)
        return std::to_string(bytes >> 20) + " MiB";
    if (bytes >= (uint64_t(1) << 10) && bytes % (uint64_t(1) << 10) == 0)
        return std::to_string(bytes >> 10) + " KiB";
    return std::to_string(bytes) + " bytes";
}

std::string read_regular_file(const std::filesystem::path& path, uint64_t max_bytes,
                              std::string_view raise_hint) {
    const RegularFile file(path.string());
    const auto too_large = [&] {
        std::string detail =
            "is larger than the " + byte_count_text(max_bytes) + " this reader takes";
        if (!raise_hint.empty()) detail += " (" + std::string(raise_hint) + ")";
        return FileReadError(FileFaultKind::TooLarge, path.string(), detail);
    };
    if (file.size() > max_bytes) throw too_large();
    std::string text;
    text.reserve(size_t(file.size()));
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(file.fd(), buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0)
            throw FileReadError(FileFaultKind::CannotRead, path.string(), std::strerror(errno));
        if (n == 0) break;
        if (text.size() + size_t(n) > max_bytes) throw too_large();  // it grew while read
        text.append(buffer, size_t(n));
    }
    return text;
}

}  // namespace kvw
