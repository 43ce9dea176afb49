#pragma once
// Files written so that a failure never destroys what was there: new bytes go to a temporary
// file beside the target, which is renamed over the target once complete (ARCHITECTURE §9.1).
#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kvw {

// A file that could not be written: the message names the path and the system's reason
// (strerror), e.g. "cannot write out/t.ndjson: No space left on device".
class FileWriteError : public std::runtime_error {
public:
    FileWriteError(const std::filesystem::path& path, const std::string& doing, int error);
    const std::filesystem::path& path() const { return path_; }
    int error() const { return error_; }  // the errno value

private:
    std::filesystem::path path_;
    int error_;
};

// A temporary file beside `target` (same folder, so the rename cannot cross file systems) that
// commit() puts in the target's place. Until then the target is untouched; a ReplacingFile
// destroyed without commit() removes its temporary file. After commit() the descriptor stays
// open on what is now the target, so append() goes on growing it (a live trace does that).
//
// The rename gives the target a new inode: a process that maps the old file (a model in use)
// keeps reading the old bytes, never a half-written or truncated file.
class ReplacingFile {
public:
    explicit ReplacingFile(std::filesystem::path target);  // FileWriteError
    ~ReplacingFile();
    ReplacingFile(const ReplacingFile&) = delete;
    ReplacingFile& operator=(const ReplacingFile&) = delete;

    // The whole of `bytes` or FileWriteError (a short write, e.g. a full disk, is an error).
    void append(std::string_view bytes);
    void append(std::span<const uint8_t> bytes);
    // What was appended reaches the disk (fdatasync), then the temporary file takes the
    // target's name. Once only.
    void commit();
    // fdatasync: durable against a crash of the machine, not only of this process.
    void sync();
    bool committed() const { return committed_; }
    const std::filesystem::path& target() const { return target_; }
    const std::filesystem::path& temporary() const { return temporary_; }

private:
    std::filesystem::path target_;
    std::filesystem::path temporary_;
    int fd_ = -1;
    bool committed_ = false;
};

// Throws the FileWriteError that writing `target` would throw, now, before the work that makes
// its bytes: the temporary file the write would use is made and removed again (a folder that
// does not exist, one that refuses new files), and a target that is a folder is refused.
void check_writable(const std::filesystem::path& target);

// The one way the project writes an output file whole (traces, models, gates, lifespans,
// bundles, exports): ReplacingFile, append, commit.
void write_file_atomically(const std::filesystem::path& target, std::string_view bytes);
void write_file_atomically(const std::filesystem::path& target, std::span<const uint8_t> bytes);

}  // namespace kvw
