#include "core/model/hf_tokenizer_json.h"

#include <filesystem>
#include <optional>
#include <unordered_map>

#include <nlohmann/json.hpp>

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

bool is_byte_piece(const std::string& piece) {
    auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); };
    return piece.size() == 6 && piece.compare(0, 3, "<0x") == 0 && hex(piece[3]) &&
           hex(piece[4]) && piece[5] == '>';
}

// Places `piece` at `id`, refusing two different pieces for one id.
void place(std::vector<std::optional<std::string>>& by_id, int64_t id, const std::string& piece,
           const std::string& file) {
    if (id < 0 || id > (int64_t(1) << 24))
        bad(file, "id " + std::to_string(id) + " of '" + piece + "' is out of range");
    if (size_t(id) >= by_id.size()) by_id.resize(size_t(id) + 1);
    if (by_id[id] && *by_id[id] != piece)
        bad(file, "id " + std::to_string(id) + " is both '" + *by_id[id] + "' and '" + piece +
                      "'");
    by_id[id] = piece;
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

bool prepends_space_marker(const json& step) {
    if (!step.is_object()) return false;
    const std::string type = step.value("type", std::string());
    if (type == "Sequence") {
        for (const char* key : {"normalizers", "pretokenizers"})
            if (step.contains(key) && step[key].is_array())
                for (const json& inner : step[key])
                    if (prepends_space_marker(inner)) return true;
        return false;
    }
    if (type == "Prepend") return step.value("prepend", std::string()) == kSpaceMarker;
    if (type == "Metaspace") {
        if (step.contains("prepend_scheme") && step["prepend_scheme"].is_string())
            return step["prepend_scheme"].get<std::string>() != "never";
        return step.value("add_prefix_space", true);  // tokenizers < 0.14
    }
    return false;
}

// A special token in tokenizer_config.json is a string or {"content": ...}.
std::optional<std::string> config_token(const json& config, const char* key) {
    if (!config.contains(key)) return std::nullopt;
    const json& v = config[key];
    if (v.is_string()) return v.get<std::string>();
    if (v.is_object() && v.contains("content") && v["content"].is_string())
        return v["content"].get<std::string>();
    return std::nullopt;
}

// Whether the post-processor's single-sequence template starts with the BOS piece.
std::optional<bool> template_adds(const json& tok, const std::string& bos_piece) {
    if (!tok.contains("post_processor") || !tok["post_processor"].is_object()) return std::nullopt;
    const json& post = tok["post_processor"];
    if (post.value("type", std::string()) != "TemplateProcessing" || !post.contains("single"))
        return std::nullopt;
    for (const json& part : post["single"])
        if (part.contains("SpecialToken") && part["SpecialToken"].value("id", "") == bos_piece)
            return true;
    return false;
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
    if (!tok.is_object() || !tok.contains("model") || !tok["model"].is_object())
        bad(file, "no \"model\" object");
    const json& model = tok["model"];
    const std::string type = model.value("type", std::string("BPE"));
    if (type != "BPE") bad(file, "model type " + type + " is not supported (only BPE)");
    if (!model.contains("vocab") || !model["vocab"].is_object())
        bad(file, "model.vocab is not a {piece: id} object");

    std::vector<std::optional<std::string>> by_id;
    std::unordered_map<std::string, int32_t> id_of;
    for (const auto& [piece, id] : model["vocab"].items()) {
        if (!id.is_number_integer()) bad(file, "id of '" + piece + "' is not an integer");
        place(by_id, id.get<int64_t>(), piece, file);
        id_of[piece] = id.get<int32_t>();
    }

    struct Added {
        int32_t id;
        bool special;
    };
    std::unordered_map<std::string, Added> added;
    if (tok.contains("added_tokens") && tok["added_tokens"].is_array()) {
        for (const json& a : tok["added_tokens"]) {
            if (!a.is_object() || !a.contains("id") || !a["id"].is_number_integer() ||
                !a.contains("content") || !a["content"].is_string())
                bad(file, "added token " + a.dump() + " lacks id or content");
            const std::string content = a["content"].get<std::string>();
            const int64_t id = a["id"].get<int64_t>();
            place(by_id, id, content, file);
            id_of[content] = int32_t(id);
            added[content] = Added{int32_t(id), a.value("special", false)};
        }
    }

    Vocabulary vocab;
    const int n = int(by_id.size());
    if (n == 0) bad(file, "empty vocabulary");
    vocab.pieces.reserve(n);
    for (int id = 0; id < n; ++id) {
        if (!by_id[id]) bad(file, "no piece has id " + std::to_string(id));
        vocab.pieces.push_back(*by_id[id]);
    }

    // The lowest merge rank that produces each piece.
    std::vector<int64_t> rank(n, -1);
    int64_t n_merges = 0;
    if (model.contains("merges")) {
        if (!model["merges"].is_array()) bad(file, "model.merges is not an array");
        for (const json& m : model["merges"]) {
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

    const bool byte_fallback = model.value("byte_fallback", false);
    const std::string unk_piece =
        model.contains("unk_token") && model["unk_token"].is_string()
            ? model["unk_token"].get<std::string>()
            : std::string();
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

    vocab.add_space_prefix = (tok.contains("normalizer") && prepends_space_marker(tok["normalizer"])) ||
                             (tok.contains("pre_tokenizer") &&
                              prepends_space_marker(tok["pre_tokenizer"]));

    json config = json::object();
    if (!tokenizer_config_json.empty()) config =
            parse_model_json(tokenizer_config_json, config_file, ModelErrorKind::BadTokenizer);
    const std::string bos = config_token(config, "bos_token").value_or("<s>");
    const std::string eos = config_token(config, "eos_token").value_or("</s>");
    const std::string& bos_source = config.contains("bos_token") ? config_file : file;
    const std::string& eos_source = config.contains("eos_token") ? config_file : file;
    if (!id_of.count(bos)) bad(bos_source, "BOS token '" + bos + "' is not in the vocabulary");
    if (!id_of.count(eos)) bad(eos_source, "EOS token '" + eos + "' is not in the vocabulary");
    vocab.bos_id = id_of[bos];
    vocab.eos_id = id_of[eos];
    if (config.contains("add_bos_token") && config["add_bos_token"].is_boolean())
        vocab.add_bos = config["add_bos_token"].get<bool>();
    else
        vocab.add_bos = template_adds(tok, bos).value_or(true);  // Llama's default
    return vocab;
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
