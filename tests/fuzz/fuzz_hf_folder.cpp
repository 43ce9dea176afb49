// A whole Hugging Face folder through load_hf_model: config.json, tokenizer.json (+ config),
// model.safetensors or model.safetensors.index.json and its shards. The input packs the files
// (see hf_folder_pack.h); they are written to a scratch folder for each run, because the
// loader reads files by name and the index names its shards.
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/model/hf_model_loader.h"
#include "core/model/model_error.h"
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/hf_folder_pack.h"

namespace fs = std::filesystem;

namespace {

// One scratch folder per process, removed at exit.
class ScratchFolder {
public:
    ScratchFolder()
        : path_(fs::temp_directory_path() / ("kvw-fuzz-hf-" + std::to_string(::getpid()))) {}
    ~ScratchFolder() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    const fs::path& fresh() {
        fs::remove_all(path_);
        fs::create_directories(path_);
        return path_;
    }

private:
    fs::path path_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static ScratchFolder scratch;
    const fs::path& folder = scratch.fresh();
    kvw::fuzz::write_files(kvw::fuzz::unpack_files(kvw::fuzz::as_text(data, size)), folder);
    kvw::fuzz::accept_typed_errors<kvw::ModelError>([&] {
        const auto model = kvw::load_hf_model(folder.string());
        const std::vector<int32_t> ids = model->tokenizer.encode("Hello wörld 12 \xff", true);
        (void)model->tokenizer.decode(ids);
    });
    return 0;
}
