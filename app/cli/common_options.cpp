#include "common_options.h"

#include <cstdio>

#include "core/backend/backend_registry.h"
#include "core/io/replacing_file.h"
#include "core/model/builtin_models.h"
#include "core/model/model_loader.h"

namespace kvw::cli {

void check_output_path(const std::string& what, const std::string& path) {
    try {
        check_writable(path);
    } catch (const FileWriteError& e) {
        throw std::runtime_error(what + ": " + e.what());
    }
}

void check_output_options(const CliArgs& args, std::initializer_list<const char*> names) {
    for (const char* name : names)
        if (args.has(name)) check_output_path(std::string("--") + name, args.get(name));
}

OptionSpec model_option() {
    std::string builtin;
    for (const BuiltinModel& m : builtin_models())
        builtin += "builtin:" + std::string(m.name) + ", ";
    return {"model", "SPEC", kDefaultModelSpec,
            "a .gguf file, a Hugging Face folder, " + builtin +
                "synthetic:tiny or synthetic:tinyllama-shape"};
}

OptionSpec backend_option(const std::string& fallback) {
    std::string names = "auto (the fastest here: a usable accelerator, else cpu:fast, else cpu)";
    for (const std::string& n : backend_names())
        names += ", " + n + (n == "cpu" ? " (the numeric reference)" : "");
    return {"backend", "NAME", fallback, names};
}

OptionSpec json_option() { return {"json", "", "", "print the result as one JSON object"}; }

void print_json(const nlohmann::json& result) {
    // Decoded text may end inside a UTF-8 sequence (byte-fallback pieces): such bytes become
    // U+FFFD rather than making the output unparsable.
    const std::string text = result.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::printf("%s\n", text.c_str());
}

}  // namespace kvw::cli
