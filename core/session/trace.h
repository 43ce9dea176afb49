#pragma once
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/state/stream_hash.h"  // hash_hex, which trace events write

namespace kvw {

// A trace that cannot be read or written; line is 1-based (0: not about a line), file is the
// trace's path (empty for a trace parsed from memory).
class TraceError : public std::runtime_error {
public:
    TraceError(const std::string& message, size_t line = 0, std::string file = {});
    size_t line() const { return line_; }
    const std::string& file() const { return file_; }

private:
    size_t line_;
    std::string file_;
};

// The bounds of what Trace::read takes. A trace is about 0.3-2 KB a tick (a ring adds a RingFrame
// per layer), so 1 GiB is several hundred thousand ticks; a line is one command, the longest an
// action list of some 100,000 actions (about 10 MB).
inline constexpr uint64_t kMaxTraceBytes = uint64_t(1) << 30;
inline constexpr size_t kMaxTraceLineBytes = size_t(64) << 20;

// What a Session did, one JSON object per line (NDJSON): a header with the options, then one
// event per command: a SessionCommand's to_json() (core/session/command/session_command.h)
// with its outcomes beside it; command_table.h names every event and decodes it. Events that
// change the state carry the state hash after them, so replay can check
// every one.
class Trace {
public:
    void add(nlohmann::json event);
    const std::vector<nlohmann::json>& events() const { return events_; }
    void clear() {
        events_.clear();
        lines_.clear();
        prefix_hashes_.clear();
        cut_line_ = 0;
    }
    // A fingerprint of the first n events (n <= events().size(); 0 for none), kept as events are
    // added: a session checkpoint serves any trace that starts with the events it was taken
    // after (ARCHITECTURE §16). In-process only (std::hash), never written.
    uint64_t prefix_hash(size_t n) const { return n == 0 ? 0 : prefix_hashes_.at(n - 1); }
    // The first n events (n <= events().size()) with their lines and source.
    Trace prefix(size_t n) const;
    // Where events()[index] stood in the text it was parsed from (blank lines are skipped), so
    // errors found later name the right line; index + 1 for a trace recorded in memory.
    size_t line_of(size_t index) const { return index < lines_.size() ? lines_[index] : index + 1; }
    const std::string& source() const { return source_; }  // the file read; empty otherwise
    // The line a kill or a full disk cut (the text's last line: no newline, not valid JSON),
    // left out of events(); 0 when the text ends with a whole line.
    size_t cut_line() const { return cut_line_; }
    // "trace ends at tick N (incomplete last line L)" for a cut trace, N the last whole event's
    // tick; empty for a whole one.
    std::string cut_note() const;

    std::string to_ndjson() const;
    // Beside the path, then renamed over it (core/io/replacing_file.h): FileWriteError.
    void write(const std::filesystem::path& path) const;
    // Every line is parsed with the shared JSON depth bound (core/json/bounded_parse.h) and
    // may hold at most kMaxTraceLineBytes. Throws TraceError naming `source` and the line. A
    // last line without its newline that does not parse is what a killed writer leaves: it is
    // dropped and noted in cut_line(), and the events before it are the trace.
    static Trace parse(std::string_view ndjson, std::string source = {});
    // A regular file of at most kMaxTraceBytes (core/io/regular_file.h: a FIFO or /dev/zero is
    // refused, not waited on or read without end), parsed. Throws TraceError naming the file.
    static Trace read(const std::filesystem::path& path);

private:
    std::vector<nlohmann::json> events_;
    std::vector<size_t> lines_;
    std::string source_;
    size_t cut_line_ = 0;
    std::vector<uint64_t> prefix_hashes_;  // [i]: prefix_hash(i + 1)
};

// State hashes travel as 16 hex digits: JSON numbers are not safe beyond 2^53 for most readers.

}  // namespace kvw
