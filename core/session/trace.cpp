#include "core/session/trace.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <spdlog/spdlog.h>

#include "core/io/regular_file.h"
#include "core/io/replacing_file.h"
#include "core/json/bounded_parse.h"
#include "core/json/json_error.h"

namespace kvw {

namespace {

std::string compose_message(const std::string& message, size_t line, const std::string& file) {
    const std::string where = file.empty() ? "trace" : file;
    if (line) return where + " line " + std::to_string(line) + ": " + message;
    return file.empty() ? message : file + ": " + message;
}

}  // namespace

TraceError::TraceError(const std::string& message, size_t line, std::string file)
    : std::runtime_error(compose_message(message, line, file)),
      line_(line),
      file_(std::move(file)) {}

void Trace::add(nlohmann::json event) {
    // FNV-1a's step over the event's hash: order matters, so a prefix names its events.
    const uint64_t before = prefix_hash(events_.size());
    prefix_hashes_.push_back((before ^ std::hash<nlohmann::json>{}(event)) * 0x100000001b3ULL);
    events_.push_back(std::move(event));
}

Trace Trace::prefix(size_t n) const {
    if (n > events_.size())
        throw std::out_of_range("Trace::prefix: " + std::to_string(n) + " of " +
                                std::to_string(events_.size()) + " events");
    Trace out;
    out.events_.assign(events_.begin(), events_.begin() + std::ptrdiff_t(n));
    out.lines_.assign(lines_.begin(), lines_.begin() + std::ptrdiff_t(std::min(n, lines_.size())));
    out.source_ = source_;
    out.prefix_hashes_.assign(prefix_hashes_.begin(), prefix_hashes_.begin() + std::ptrdiff_t(n));
    return out;
}

std::string Trace::to_ndjson() const {
    std::string out;
    for (const nlohmann::json& e : events_) out += e.dump() + "\n";
    return out;
}

void Trace::write(const std::filesystem::path& path) const {
    write_file_atomically(path, to_ndjson());
}

std::string Trace::cut_note() const {
    if (!cut_line_) return {};
    const nlohmann::json& last = events_.back();
    const auto tick = last.find("tick");
    const std::string at = tick != last.end() && tick->is_number_integer()
                               ? "tick " + std::to_string(tick->get<int64_t>())
                               : "its header";
    return "trace ends at " + at + " (incomplete last line " + std::to_string(cut_line_) + ")";
}

Trace Trace::parse(std::string_view ndjson, std::string source) {
    Trace trace;
    trace.source_ = std::move(source);
    size_t line_no = 0;
    std::istringstream in{std::string(ndjson)};
    for (std::string line; std::getline(in, line);) {
        ++line_no;
        if (line.size() > kMaxTraceLineBytes)
            throw TraceError(
                "longer than the " + byte_count_text(kMaxTraceLineBytes) + " a trace line may have",
                line_no, trace.source_);
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        nlohmann::json event;
        try {
            event = parse_json_bounded(line);
        } catch (const JsonError& e) {
            // A writer killed mid-line (or stopped by a full disk) leaves a last line without
            // its newline; whole lines always end in one (TraceFile writes them so).
            if (in.eof() && !ndjson.empty() && ndjson.back() != '\n') {
                trace.cut_line_ = line_no;
                break;
            }
            std::string what = e.kind() == JsonFaultKind::Syntax ? "not valid JSON: " : "";
            if (!e.key().empty()) what += "\"" + e.key() + "\" ";
            what += e.detail();
            if (e.offset()) what += " (column " + std::to_string(*e.offset() + 1) + ")";
            throw TraceError(what, line_no, trace.source_);
        }
        if (!event.is_object()) throw TraceError("not a JSON object", line_no, trace.source_);
        trace.add(std::move(event));
        trace.lines_.push_back(line_no);
    }
    if (trace.events_.empty() || !trace.events_.front().contains("kvw_trace"))
        throw TraceError("the first line is not a kvw trace header", 1, trace.source_);
    return trace;
}

Trace Trace::read(const std::filesystem::path& path) {
    std::string text;
    try {
        text = read_regular_file(path, kMaxTraceBytes);
    } catch (const FileReadError& e) {
        throw TraceError(e.kind() == FileFaultKind::CannotOpen
                             ? "cannot open the file: " + e.detail()
                             : e.detail(),
                         0, path.string());
    }
    Trace trace = parse(text, path.string());
    if (trace.cut_line()) spdlog::warn("{}: {}", path.string(), trace.cut_note());
    return trace;
}

}  // namespace kvw
