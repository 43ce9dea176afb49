#include "core/session/trace_file.h"

#include <string>

#include <spdlog/spdlog.h>

namespace kvw {

TraceFile::TraceFile(std::filesystem::path path)
    : path_(std::move(path)), file_(std::make_unique<ReplacingFile>(path_)) {}

TraceFile::~TraceFile() {
    try {
        close();
    } catch (const FileWriteError& e) {
        spdlog::error("{}", e.what());
    }
}

void TraceFile::sync(const Trace& trace) {
    const size_t n = trace.events().size();
    const bool diverged = n < written_ || trace.prefix_hash(written_) != written_hash_;
    if (diverged) {  // the events on disk are no longer this trace's first ones
        file_ = std::make_unique<ReplacingFile>(path_);
        written_ = 0;
    }
    std::string lines;
    for (size_t i = written_; i < n; ++i) lines += trace.events()[i].dump() + "\n";
    // One write(2) per sync: a kill cuts at most the last line.
    file_->append(lines);
    written_ = n;
    written_hash_ = trace.prefix_hash(n);
    if (!file_->committed()) file_->commit();
}

void TraceFile::close() {
    if (file_ && file_->committed()) file_->sync();
}

}  // namespace kvw
