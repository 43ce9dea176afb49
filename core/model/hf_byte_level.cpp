#include "core/model/hf_byte_level.h"

#include <spdlog/spdlog.h>

#include "core/model/byte_level_vocabulary.h"
#include "core/model/model_error.h"
#include "core/model/pre_tokenizer_names.h"

namespace kvw {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& file, const std::string& detail) {
    throw ModelError(ModelErrorKind::BadTokenizer, file, detail);
}

std::string type_of(const JsonFields& step) { return step.get_or<std::string>("type", ""); }

// The steps of a pre-tokenizer: a Sequence's elements, or the one step.
std::vector<JsonFields> steps_of(const JsonFields& pre) {
    if (type_of(pre) != "Sequence") return {pre};
    std::vector<JsonFields> steps;
    const json& list = pre.array("pretokenizers");
    for (size_t i = 0; i < list.size(); ++i)
        steps.emplace_back(list[i], element_path(pre.path_of("pretokenizers"), i));
    return steps;
}

MergePieces merge_of(const json& merge, const std::string& path, const std::string& file) {
    if (merge.is_string()) {
        const std::string text = merge.get<std::string>();
        if (auto pieces = split_merge_text(text)) return std::move(*pieces);
        bad(file, path + " \"" + text + "\" is not two pieces separated by one space");
    }
    if (merge.is_array() && merge.size() == 2 && merge[0].is_string() && merge[1].is_string())
        return {merge[0].get<std::string>(), merge[1].get<std::string>()};
    bad(file, path + " " + merge.dump() + " is neither \"a b\" nor [\"a\", \"b\"]");
}

// A Split step's pattern; every other setting must be the one the families use.
PreTokenizer::Pattern split_pattern(const JsonFields& step, const std::string& file) {
    const std::string behavior = step.get<std::string>("behavior");
    if (behavior != "Isolated")
        bad(file,
            step.path_of("behavior") + " is \"" + behavior + "\"; only \"Isolated\" is supported");
    if (step.get_or<bool>("invert", false))
        bad(file, step.path_of("invert") + " is true; only false is supported");
    const JsonFields pattern = step.object("pattern");
    if (pattern.has("Regex")) return {pattern.get<std::string>("Regex")};
    return {pattern.get<std::string>("String"), true};
}

std::vector<PreTokenizer::Pattern> read_patterns(const JsonFields& pre, const std::string& file) {
    std::vector<PreTokenizer::Pattern> patterns;
    const std::vector<JsonFields> steps = steps_of(pre);
    for (size_t i = 0; i < steps.size(); ++i) {
        const JsonFields& step = steps[i];
        const std::string type = type_of(step);
        if (type == "Split") {
            patterns.push_back(split_pattern(step, file));
        } else if (type == "Digits") {
            // tokenizers' digits are Unicode's numeric characters, as \p{N}.
            patterns.push_back(
                {step.get_or<bool>("individual_digits", false) ? R"(\p{N})" : R"(\p{N}+)"});
        } else if (type == "ByteLevel") {
            if (i + 1 != steps.size())
                bad(file, step.path() + " is ByteLevel before another step; it must be last");
            if (step.get_or<bool>("add_prefix_space", true))
                bad(file, step.path_of("add_prefix_space") + " is true; only false is supported");
            if (step.get_or<bool>("use_regex", true))
                patterns.push_back({std::string(gpt2_pre_tokenizer_pattern())});
        } else {
            bad(file, step.path() + " is a \"" + type +
                          "\" pre-tokenizer, which byte-level BPE does not support (supported: "
                          "ByteLevel, or a Sequence of Split and Digits ending in ByteLevel)");
        }
    }
    return patterns;
}

void check_normalizer(const JsonFields& tok, const std::string& file) {
    if (!tok.has("normalizer")) return;
    const std::string type = type_of(tok.object("normalizer"));
    if (type == "NFC") {
        // Qwen's files ask for it; llama.cpp does not apply it either. Text already in NFC (what
        // keyboards and most files produce) gives the same ids.
        spdlog::warn(
            "{}: the NFC normalizer is not applied; text not in NFC may tokenize "
            "differently from tokenizers",
            file);
        return;
    }
    bad(file, "normalizer \"" + type + "\" is not supported for byte-level BPE (only none or NFC)");
}

}  // namespace

std::vector<MergePieces> read_hf_merges(const JsonFields& model, const std::string& file) {
    std::vector<MergePieces> merges;
    if (!model.has("merges")) return merges;
    const json& list = model.array("merges");
    merges.reserve(list.size());
    for (size_t i = 0; i < list.size(); ++i)
        merges.push_back(merge_of(list[i], element_path(model.path_of("merges"), i), file));
    return merges;
}

bool is_byte_level_tokenizer(const JsonFields& tok) {
    if (!tok.has("pre_tokenizer")) return false;
    for (const JsonFields& step : steps_of(tok.object("pre_tokenizer")))
        if (type_of(step) == "ByteLevel") return true;
    return false;
}

void read_hf_byte_level(const JsonFields& tok, Vocabulary& vocab, const std::string& file) {
    check_normalizer(tok, file);
    const JsonFields model = tok.object("model");
    if (model.get_or<bool>("byte_fallback", false))
        bad(file, "model.byte_fallback is true; a byte-level BPE needs no byte fallback");
    for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"})
        if (!model.get_or<std::string>(key, "").empty())
            bad(file, model.path_of(key) + " is set; byte-level BPE supports none");

    make_byte_level(vocab, read_hf_merges(model, file),
                    read_patterns(tok.object("pre_tokenizer"), file),
                    {file, model.path_of("merges"), "pre_tokenizer"});
    vocab.ignore_merges = model.get_or<bool>("ignore_merges", false);
}

}  // namespace kvw
