#pragma once
// A session's trace kept on disk as it grows (ARCHITECTURE §9.1).
#include <cstdint>
#include <filesystem>
#include <memory>

#include "core/io/replacing_file.h"
#include "core/session/trace.h"

namespace kvw {

// The live NDJSON file of a Trace: sync() appends the events added since the last call, one
// line each, with write(2), so a process killed (even by SIGKILL) leaves every event of the
// commands before the last sync() on disk, and at worst a cut last line that Trace::parse
// reports. The first sync() writes a temporary file beside the path and renames it into
// place: a trace that fails before it has a header leaves an older file of that name intact.
// A trace that no longer starts with what was written (undo, restore, a new session) is written
// whole the same way and replaces the file. close() (or the destructor) makes it durable.
class TraceFile {
public:
    // Creates the temporary file now, so a path that cannot be written fails before any work:
    // FileWriteError naming the path and the reason.
    explicit TraceFile(std::filesystem::path path);
    ~TraceFile();

    void sync(const Trace& trace);  // FileWriteError
    void close();                   // fdatasync; FileWriteError
    const std::filesystem::path& path() const { return path_; }
    size_t events_written() const { return written_; }

private:
    std::filesystem::path path_;
    std::unique_ptr<ReplacingFile> file_;
    size_t written_ = 0;
    uint64_t written_hash_ = 0;  // trace.prefix_hash(written_) of what the file holds
};

}  // namespace kvw
