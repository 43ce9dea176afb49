#include "tests/fuzz/hf_folder_pack.h"

#include <algorithm>
#include <fstream>

namespace kvw::fuzz {
namespace {

constexpr std::string_view kMarker = "@@file ";

bool plain_file_name(std::string_view name) {
    if (name.empty() || name.size() > 64 || name == "." || name == "..") return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '_' || c == '-';
    });
}

// Offset of the marker that starts the next file at or after `from` (at the very start or
// right after a newline), or npos.
size_t next_marker(std::string_view packed, size_t from) {
    for (size_t at = packed.find(kMarker, from); at != std::string_view::npos;
         at = packed.find(kMarker, at + 1))
        if (at == 0 || packed[at - 1] == '\n') return at;
    return std::string_view::npos;
}

}  // namespace

std::vector<PackedFile> unpack_files(std::string_view packed) {
    std::vector<PackedFile> files;
    for (size_t at = next_marker(packed, 0); at != std::string_view::npos;) {
        const size_t name_start = at + kMarker.size();
        const size_t name_end = packed.find('\n', name_start);
        if (name_end == std::string_view::npos) break;
        const size_t next = next_marker(packed, name_end + 1);
        // The newline before the next marker belongs to the marker.
        const size_t end = next == std::string_view::npos ? packed.size() : next - 1;
        const std::string name(packed.substr(name_start, name_end - name_start));
        const bool repeated = std::any_of(files.begin(), files.end(),
                                          [&](const PackedFile& f) { return f.name == name; });
        if (plain_file_name(name) && !repeated)
            files.push_back({name, packed.substr(name_end + 1, end - std::min(end, name_end + 1))});
        at = next;
    }
    return files;
}

void write_files(const std::vector<PackedFile>& files, const std::filesystem::path& folder) {
    for (const PackedFile& file : files)
        std::ofstream(folder / file.name, std::ios::binary)
            .write(file.bytes.data(), std::streamsize(file.bytes.size()));
}

}  // namespace kvw::fuzz
