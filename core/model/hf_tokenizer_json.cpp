#include "core/model/hf_tokenizer_json.h"

#include <filesystem>
#include <map>
#include <optional>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "core/json/json_fields.h"
#include "core/model/mapped_file.h"
#include "core/model/model_error.h"
#include "core/model/model_json.h"

namespace kvw {
namespace {

using nlohmann::json;

constexpr std::string_view kSpaceMarker = "\xE2\x96\x81";  // U+2581 "▁"

[[noreturn]] void bad(const std::string& file, const std::string& detail) {
    throw ModelError(ModelErrorKind::BadTokenizer, file, detail);
}

std::string element_path(const std::string& array_path, size_t index) {
    return array_path + "[" + std::to_string(index) + "]";
}

bool is_byte_piece(const std::string& piece) {
    auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); };
    return piece.size() == 6 && piece.compare(0, 3, "<0x") == 0 && hex(piece[3]) && hex(piece[4]) &&
           piece[5] == '>';
}

// Places `piece` at `id`, refusing two different pieces for one id.
// Pieces by id are kept sparse until every id is known: a vector indexed by id would let one
// entry with id 16,000,000 allocate 16 million slots from a file of a few bytes.
void place(std::map<int64_t, std::string>& by_id, int64_t id, const std::string& piece,
           const std::string& file) {
    if (id < 0 || id > (int64_t(1) << 24))
        bad(file, "id " + std::to_string(id) + " of '" + piece + "' is out of range");
    const auto [it, inserted] = by_id.emplace(id, piece);
    if (!inserted && it->second != piece)
        bad(file, "id " + std::to_string(id) + " is both '" + it->second + "' and '" + piece + "'");
}

std::pair<std::string, std::string> merge_pair(const json& merge, const std::string& file) {
    // tokenizers < 0.20 writes "left right"; newer versions write ["left", "right"]. Llama
    // pieces never contain a plain space (it is "▁"), so the string form is unambiguous.
    if (merge.is_string()) {
        const std::string text = merge.get<std::string>();
        const size_t space = text.find(' ');
        if (space == std::string::npos || text.find(' ', space + 1) != std::string::npos)
            bad(file, "merge \"" + text + "\" is not two pieces separated by one space");
        return {text.substr(0, space), text.substr(space + 1)};
    }
    if (merge.is_array() && merge.size() == 2 && merge[0].is_string() && merge[1].is_string())
        return {merge[0].get<std::string>(), merge[1].get<std::string>()};
    bad(file, "merge " + merge.dump() + " is neither \"a b\" nor [\"a\", \"b\"]");
}

// Whether a normalizer or pre-tokenizer (`path` names it in errors) puts "▁" before the text.
// The recursion into Sequences is bounded by the JSON depth bound.
bool prepends_space_marker(const json& value, const std::string& path) {
    const JsonFields step(value, path);
    const std::string type = step.get_or<std::string>("type", "");
    if (type == "Sequence") {
        for (const char* key : {"normalizers", "pretokenizers"}) {
            if (!step.has(key)) continue;
            const json& inner = step.array(key);
            for (size_t i = 0; i < inner.size(); ++i)
                if (prepends_space_marker(inner[i], element_path(step.path_of(key), i)))
                    return true;
        }
        return false;
    }
    if (type == "Prepend") return step.get_or<std::string>("prepend", "") == kSpaceMarker;
    if (type == "Metaspace") {
        if (const auto scheme = step.get_optional<std::string>("prepend_scheme"))
            return *scheme != "never";
        return step.get_or<bool>("add_prefix_space", true);  // tokenizers < 0.14
    }
    return false;
}

// A special token in tokenizer_config.json is a string or {"content": ...}.
std::optional<std::string> config_token(const JsonFields& config, const char* key) {
    const json* v = config.find(key);
    if (!v) return std::nullopt;
    if (v->is_object()) return JsonFields(*v, key).get<std::string>("content");
    return json_as<std::string>(*v, key);
}

// Whether the post-processor's single-sequence template starts with the BOS piece.
std::optional<bool> template_adds(const JsonFields& tok, const std::string& bos_piece) {
    if (!tok.has("post_processor")) return std::nullopt;
    const JsonFields post = tok.object("post_processor");
    if (post.get_or<std::string>("type", "") != "TemplateProcessing" || !post.has("single"))
        return std::nullopt;
    const json& single = post.array("single");
    for (size_t i = 0; i < single.size(); ++i) {
        const JsonFields part(single[i], element_path(post.path_of("single"), i));
        if (part.has("SpecialToken") &&
            part.object("SpecialToken").get_or<std::string>("id", "") == bos_piece)
            return true;
    }
    return false;
}

// What tokenizer_config.json says; each field absent when it does not say it.
struct SpecialTokens {
    std::optional<std::string> bos, eos;
    std::optional<bool> add_bos;
};

SpecialTokens read_special_tokens(const JsonFields& config) {
    return {config_token(config, "bos_token"), config_token(config, "eos_token"),
            config.get_optional<bool>("add_bos_token")};
}

// The vocabulary tokenizer.json (`tok`, from `file`) describes, with the special tokens of
// tokenizer_config.json (`config_file`) where it names them.
Vocabulary read_tokenizer(const JsonFields& tok, const std::string& file,
                          const SpecialTokens& special, const std::string& config_file) {
    const JsonFields model = tok.object("model");
    const std::string type = model.get_or<std::string>("type", "BPE");
    if (type != "BPE") bad(file, "model type " + type + " is not supported (only BPE)");
    const JsonFields pieces = model.object("vocab");

    std::map<int64_t, std::string> by_id;
    std::unordered_map<std::string, int32_t> id_of;
    for (const auto& [piece, id] : model.at("vocab").items()) {
        const int64_t value = json_as<int64_t>(id, pieces.path_of(piece));
        place(by_id, value, piece, file);
        id_of[piece] = int32_t(value);
    }

    struct Added {
        int32_t id;
        bool special;
    };
    std::unordered_map<std::string, Added> added;
    if (tok.has("added_tokens")) {
        const json& list = tok.array("added_tokens");
        for (size_t i = 0; i < list.size(); ++i) {
            const JsonFields a(list[i], element_path("added_tokens", i));
            const std::string content = a.get<std::string>("content");
            const int64_t id = a.get<int64_t>("id");
            place(by_id, id, content, file);
            id_of[content] = int32_t(id);
            added[content] = Added{int32_t(id), a.get_or<bool>("special", false)};
        }
    }

    Vocabulary vocab;
    const int n = int(by_id.size());
    if (n == 0) bad(file, "empty vocabulary");
    vocab.pieces.reserve(n);
    for (const auto& [id, piece] : by_id) {  // in id order: the first gap is the first missing id
        if (id != int64_t(vocab.pieces.size()))
            bad(file, "no piece has id " + std::to_string(vocab.pieces.size()));
        vocab.pieces.push_back(piece);
    }

    // The lowest merge rank that produces each piece.
    std::vector<int64_t> rank(n, -1);
    int64_t n_merges = 0;
    if (model.has("merges")) {
        for (const json& m : model.array("merges")) {
            const auto [left, right] = merge_pair(m, file);
            if (!id_of.count(left) || !id_of.count(right))
                bad(file, "merge of '" + left + "' and '" + right + "' uses a piece not in vocab");
            const auto joined = id_of.find(left + right);
            if (joined == id_of.end())
                bad(file, "merge of '" + left + "' and '" + right + "' makes '" + left + right +
                              "', which is not in vocab");
            if (rank[joined->second] < 0) rank[joined->second] = n_merges;
            ++n_merges;
        }
    }

    const bool byte_fallback = model.get_or<bool>("byte_fallback", false);
    const std::string unk_piece = model.get_or<std::string>("unk_token", "");
    vocab.scores.resize(n);
    vocab.types.resize(n);
    for (int id = 0; id < n; ++id) {
        const std::string& piece = vocab.pieces[id];
        const auto a = added.find(piece);
        float score = rank[id] >= 0 ? -float(rank[id]) : -float(n_merges);
        TokenType t = TokenType::Normal;
        if (piece == unk_piece) {
            t = TokenType::Unknown, score = 0.0f;
        } else if (a != added.end()) {
            t = a->second.special ? TokenType::Control : TokenType::UserDefined, score = 0.0f;
        } else if (byte_fallback && is_byte_piece(piece)) {
            t = TokenType::Byte, score = 0.0f;
        }
        vocab.scores[id] = score;
        vocab.types[id] = t;
    }
    if (!unk_piece.empty()) {
        if (!id_of.count(unk_piece)) bad(file, "unk_token '" + unk_piece + "' is not in vocab");
        vocab.unk_id = id_of[unk_piece];
    }

    vocab.add_space_prefix =
        (tok.has("normalizer") && prepends_space_marker(tok.at("normalizer"), "normalizer")) ||
        (tok.has("pre_tokenizer") &&
         prepends_space_marker(tok.at("pre_tokenizer"), "pre_tokenizer"));

    const std::string bos = special.bos.value_or("<s>");
    const std::string eos = special.eos.value_or("</s>");
    if (!id_of.count(bos))
        bad(special.bos ? config_file : file, "BOS token '" + bos + "' is not in the vocabulary");
    if (!id_of.count(eos))
        bad(special.eos ? config_file : file, "EOS token '" + eos + "' is not in the vocabulary");
    vocab.bos_id = id_of[bos];
    vocab.eos_id = id_of[eos];
    vocab.add_bos = special.add_bos ? *special.add_bos
                                    : template_adds(tok, bos).value_or(true);  // Llama's default
    return vocab;
}

std::string read_text(const std::string& path) {
    const auto source = map_file(path);
    const auto bytes = source->bytes();
    return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

}  // namespace

Vocabulary parse_hf_tokenizer_json(std::string_view tokenizer_json, const std::string& file,
                                   std::string_view tokenizer_config_json,
                                   const std::string& config_file) {
    const json tok = parse_model_json(tokenizer_json, file, ModelErrorKind::BadTokenizer);
    SpecialTokens special;
    if (!tokenizer_config_json.empty()) {
        const json config =
            parse_model_json(tokenizer_config_json, config_file, ModelErrorKind::BadTokenizer);
        try {
            special = read_special_tokens(JsonFields(config));
        } catch (const JsonError& e) {
            throw model_error_from(e, config_file, ModelErrorKind::BadTokenizer);
        }
    }
    try {
        return read_tokenizer(JsonFields(tok), file, special, config_file);
    } catch (const JsonError& e) {
        throw model_error_from(e, file, ModelErrorKind::BadTokenizer);
    }
}

Vocabulary load_hf_tokenizer(const std::string& folder) {
    const std::string tokenizer_path = (std::filesystem::path(folder) / "tokenizer.json").string();
    const std::string config_path =
        (std::filesystem::path(folder) / "tokenizer_config.json").string();
    const std::string config_text =
        std::filesystem::exists(config_path) ? read_text(config_path) : std::string();
    return parse_hf_tokenizer_json(read_text(tokenizer_path), tokenizer_path, config_text,
                                   config_path);
}

}  // namespace kvw
