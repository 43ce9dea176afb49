#include "core/io/replacing_file.h"

#include <atomic>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

namespace kvw {

namespace {

std::string describe(const std::filesystem::path& path, const std::string& doing, int error) {
    return "cannot " + doing + " " + path.string() + ": " + std::strerror(error);
}

// Beside the target, hidden, and unique to this process and call: two writers of the same
// target never share a temporary file.
std::filesystem::path temporary_beside(const std::filesystem::path& target) {
    static std::atomic<unsigned> counter{0};
    std::filesystem::path name = target;
    name.replace_filename("." + target.filename().string() + ".tmp-" + std::to_string(::getpid()) +
                          "-" + std::to_string(counter++));
    return name;
}

}  // namespace

FileWriteError::FileWriteError(const std::filesystem::path& path, const std::string& doing,
                               int error)
    : std::runtime_error(describe(path, doing, error)), path_(path), error_(error) {}

ReplacingFile::ReplacingFile(std::filesystem::path target)
    : target_(std::move(target)), temporary_(temporary_beside(target_)) {
    if (target_.filename().empty()) throw FileWriteError(target_, "write", EISDIR);
    fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    // The user asked for the target: name it, with the reason the folder refused the file.
    if (fd_ < 0) throw FileWriteError(target_, "write", errno);
}

ReplacingFile::~ReplacingFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(temporary_.c_str());
}

void ReplacingFile::append(std::string_view bytes) {
    const char* at = bytes.data();
    size_t left = bytes.size();
    while (left > 0) {
        const ssize_t n = ::write(fd_, at, left);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw FileWriteError(target_, "write", errno);
        at += n;
        left -= size_t(n);
    }
}

void ReplacingFile::append(std::span<const uint8_t> bytes) {
    append(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

void ReplacingFile::sync() {
    if (::fdatasync(fd_) != 0 && errno != EINVAL)  // EINVAL: a file (pipe, tty) without sync
        throw FileWriteError(target_, "write", errno);
}

void ReplacingFile::commit() {
    if (committed_) return;
    sync();
    if (::rename(temporary_.c_str(), target_.c_str()) != 0)
        throw FileWriteError(target_, "replace", errno);
    committed_ = true;
}

void check_writable(const std::filesystem::path& target) {
    std::error_code ignored;
    if (std::filesystem::is_directory(target, ignored))
        throw FileWriteError(target, "write", EISDIR);
    const ReplacingFile probe(target);
}

void write_file_atomically(const std::filesystem::path& target, std::string_view bytes) {
    ReplacingFile file(target);
    file.append(bytes);
    file.commit();
}

void write_file_atomically(const std::filesystem::path& target, std::span<const uint8_t> bytes) {
    write_file_atomically(
        target, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

}  // namespace kvw
