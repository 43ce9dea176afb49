#pragma once
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kvw {

// Why a file that a reader expects (a model, a gate, a gist net, a trace, an action list, a
// script) could not be read.
enum class FileFaultKind {
    CannotOpen,  // absent, no permission (the errno text is the detail)
    NotRegular,  // a FIFO, a device such as /dev/zero, a directory, a socket
    TooLarge,    // more bytes than the reader's bound
    CannotRead,  // a read failed part-way
};

// A fault of open_regular_file() or read_regular_file(). Each reader catches it and rethrows
// its own typed error (ModelError, TraceError, ActionParseError, ScriptError); detail() reads
// on from the path ("is a FIFO, not a regular file").
class FileReadError : public std::runtime_error {
public:
    FileReadError(FileFaultKind kind, std::string path, std::string detail);
    FileFaultKind kind() const { return kind_; }
    const std::string& path() const { return path_; }
    const std::string& detail() const { return detail_; }

private:
    FileFaultKind kind_;
    std::string path_;
    std::string detail_;
};

// An open descriptor of a regular file, closed on destruction.
class RegularFile {
public:
    // Opens without blocking (a FIFO's open() waits for a writer forever, and a device such as
    // /dev/zero never ends), then refuses anything that is not a regular file. Throws
    // FileReadError.
    explicit RegularFile(const std::string& path);
    ~RegularFile();
    RegularFile(const RegularFile&) = delete;
    RegularFile& operator=(const RegularFile&) = delete;

    int fd() const { return fd_; }
    uint64_t size() const { return size_; }  // at open

private:
    int fd_ = -1;
    uint64_t size_ = 0;
};

// The whole of a regular file of at most `max_bytes` bytes (checked before reading, and again
// while reading, for a file that grows). `raise_hint` says how to raise the bound when an
// option does ("" when none): it ends the TooLarge message. Throws FileReadError.
std::string read_regular_file(const std::filesystem::path& path, uint64_t max_bytes,
                              std::string_view raise_hint = {});

// "1 GiB", "64 MiB", "512 bytes": a bound as messages give it.
std::string byte_count_text(uint64_t bytes);

}  // namespace kvw
