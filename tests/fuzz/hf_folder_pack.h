#pragma once
// The input format of the hf_folder fuzz target: several files in one byte string, each
// introduced by a line "@@file NAME" and running up to the newline before the next such line
// (or the end). Text markers rather than length fields, so that a mutation that edits a file
// does not also break the framing. tests/data/make_fuzz_seeds.py writes the same format.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace kvw::fuzz {

struct PackedFile {
    std::string name;
    std::string_view bytes;
};

// The files of `packed`, in order. Bytes before the first marker are ignored, and so is a
// file whose name is not a plain file name ([A-Za-z0-9._-], at most 64, not "." or "..") or
// repeats an earlier one: the target exercises the loader, not the file system.
std::vector<PackedFile> unpack_files(std::string_view packed);

// Writes the files into `folder`, which must exist.
void write_files(const std::vector<PackedFile>& files, const std::filesystem::path& folder);

}  // namespace kvw::fuzz
