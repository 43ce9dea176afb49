#include "core/model/hf_tokenizer_json.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <unordered_map>

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "core/json/json_fields.h"
#include "core/model/hf_byte_level.h"
#include "core/model/mapped_file.h"
#include "core/model/model_error.h"
#include "core/model/model_json.h"

namespace kvw {
namespace {

using nlohmann::json;

[[noreturn]] void bad_tokenizer_json(const std::string& file, const std::string& detail) {
    throw ModelError(ModelErrorKind::BadTokenizer, file, detail);
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
        bad_tokenizer_json(file,
                           "id " + std::to_string(id) + " of '" + piece + "' is out of range");
    const auto [it, inserted] = by_id.emplace(id, piece);
    if (!inserted && it->second != piece)
        bad_tokenizer_json(
            file, "id " + std::to_string(id) + " is both '" + it->second + "' and '" + piece + "'");
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

// The post-processor's single-sequence template ("single"), directly or inside a Sequence of
// processors (Llama 3: ByteLevel then TemplateProcessing); nothing when there is none.
std::optional<JsonFields> single_template(const JsonFields& tok) {
    if (!tok.has("post_processor")) return std::nullopt;
    const JsonFields post = tok.object("post_processor");
    std::vector<JsonFields> processors{post};
    if (post.get_or<std::string>("type", "") == "Sequence") {
        processors.clear();
        const json& list = post.array("processors");
        for (size_t i = 0; i < list.size(); ++i)
            processors.emplace_back(list[i], element_path(post.path_of("processors"), i));
    }
    for (const JsonFields& p : processors)
        if (p.get_or<std::string>("type", "") == "TemplateProcessing" && p.has("single")) return p;
    return std::nullopt;
}

// The special tokens of the single-sequence template, in order.
std::vector<std::string> template_specials(const JsonFields& tok) {
    std::vector<std::string> specials;
    const std::optional<JsonFields> processor = single_template(tok);
    if (!processor) return specials;
    const json& single = processor->array("single");
    for (size_t i = 0; i < single.size(); ++i) {
        const JsonFields part(single[i], element_path(processor->path_of("single"), i));
        if (part.has("SpecialToken"))
            specials.push_back(part.object("SpecialToken").get_or<std::string>("id", ""));
    }
    return specials;
}

// Whether the single-sequence template holds the BOS piece; nothing without a template.
std::optional<bool> template_adds(const JsonFields& tok, const std::string& bos_piece) {
    if (!single_template(tok)) return std::nullopt;
    const std::vector<std::string> specials = template_specials(tok);
    return std::find(specials.begin(), specials.end(), bos_piece) != specials.end();
}

// What tokenizer_config.json says; each field absent when it does not say it.
struct SpecialTokens {
    std::optional<std::string> bos, eos;
    std::optional<bool> add_bos;
    std::optional<std::string> chat_template;
};

// chat_template: a string, or a list of {"name", "template"} of which transformers uses the
// one named "default" when none is asked for (as here).
std::optional<std::string> read_chat_template(const JsonFields& config) {
    const json* v = config.find("chat_template");
    if (!v) return std::nullopt;
    if (!v->is_array()) return json_as<std::string>(*v, "chat_template");
    for (size_t i = 0; i < v->size(); ++i) {
        const JsonFields entry((*v)[i], element_path("chat_template", i));
        if (entry.get<std::string>("name") == "default") return entry.get<std::string>("template");
    }
    spdlog::warn(
        "tokenizer_config.json: chat_template lists no template named \"default\"; "
        "the model has no chat template here");
    return std::nullopt;
}

SpecialTokens read_special_tokens(const JsonFields& config) {
    return {config_token(config, "bos_token"), config_token(config, "eos_token"),
            config.get_optional<bool>("add_bos_token"), read_chat_template(config)};
}

struct AddedToken {
    int32_t id;
    bool special;
};
using AddedTokens = std::unordered_map<std::string, AddedToken>;
using PieceIds = std::unordered_map<std::string, int32_t>;

// Scores from merge ranks, types, unk and the "▁" prefix of a SentencePiece-style file.
void read_sentencepiece(const JsonFields& tok, const JsonFields& model, const PieceIds& id_of,
                        const AddedTokens& added, Vocabulary& vocab, const std::string& file) {
    const int n = vocab.size();
    // The lowest merge rank that produces each piece.
    std::vector<int64_t> rank(n, -1);
    int64_t n_merges = 0;
    for (const auto& [left, right] : read_hf_merges(model, file)) {
        if (!id_of.count(left) || !id_of.count(right))
            bad_tokenizer_json(
                file, "merge of '" + left + "' and '" + right + "' uses a piece not in vocab");
        const auto joined = id_of.find(left + right);
        if (joined == id_of.end())
            bad_tokenizer_json(file, "merge of '" + left + "' and '" + right + "' makes '" + left +
                                         right + "', which is not in vocab");
        if (rank[joined->second] < 0) rank[joined->second] = n_merges;
        ++n_merges;
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
        if (!id_of.count(unk_piece))
            bad_tokenizer_json(file, "unk_token '" + unk_piece + "' is not in vocab");
        vocab.unk_id = id_of.at(unk_piece);
    }

    vocab.add_space_prefix =
        (tok.has("normalizer") && prepends_space_marker(tok.at("normalizer"), "normalizer")) ||
        (tok.has("pre_tokenizer") &&
         prepends_space_marker(tok.at("pre_tokenizer"), "pre_tokenizer"));
}

// Types (added tokens are never split: Control when special, UserDefined otherwise), unk and
// the byte-level parts of a GPT-2-style file.
void read_byte_level(const JsonFields& tok, const JsonFields& model, const PieceIds& id_of,
                     const AddedTokens& added, Vocabulary& vocab, const std::string& file) {
    vocab.types.assign(vocab.pieces.size(), TokenType::Normal);
    for (const auto& [content, a] : added)
        vocab.types[size_t(a.id)] = a.special ? TokenType::Control : TokenType::UserDefined;
    vocab.unk_id = -1;
    if (const auto unk = model.get_optional<std::string>("unk_token")) {
        if (!id_of.count(*unk))
            bad_tokenizer_json(file, "unk_token '" + *unk + "' is not in vocab");
        vocab.unk_id = id_of.at(*unk);
    }
    read_hf_byte_level(tok, vocab, file);
}

// The vocabulary tokenizer.json (`tok`, from `file`) describes, with the special tokens of
// tokenizer_config.json (`config_file`) where it names them.
Vocabulary read_tokenizer(const JsonFields& tok, const std::string& file,
                          const SpecialTokens& special, const std::string& config_file) {
    const JsonFields model = tok.object("model");
    const std::string type = model.get_or<std::string>("type", "BPE");
    if (type != "BPE")
        bad_tokenizer_json(file, "model type " + type + " is not supported (only BPE)");
    const JsonFields pieces = model.object("vocab");
    const bool byte_level = is_byte_level_tokenizer(tok);

    std::map<int64_t, std::string> by_id;
    PieceIds id_of;
    for (const auto& [piece, id] : model.at("vocab").items()) {
        const int64_t value = json_as<int64_t>(id, pieces.path_of(piece));
        place(by_id, value, piece, file);
        id_of[piece] = int32_t(value);
    }

    AddedTokens added;
    if (tok.has("added_tokens")) {
        const json& list = tok.array("added_tokens");
        for (size_t i = 0; i < list.size(); ++i) {
            const JsonFields a(list[i], element_path("added_tokens", i));
            const std::string content = a.get<std::string>("content");
            const int64_t id = a.get<int64_t>("id");
            place(by_id, id, content, file);
            id_of[content] = int32_t(id);
            added[content] = AddedToken{int32_t(id), a.get_or<bool>("special", false)};
            // Byte-level added tokens are matched exactly as written; the flags that would
            // widen the match are not implemented, so a file that sets one is refused.
            for (const char* flag : {"lstrip", "rstrip", "single_word"})
                if (byte_level && a.get_or<bool>(flag, false))
                    bad_tokenizer_json(file, a.path_of(flag) + " is true; only false is supported");
        }
    }

    Vocabulary vocab;
    const int n = int(by_id.size());
    if (n == 0) bad_tokenizer_json(file, "empty vocabulary");
    vocab.pieces.reserve(n);
    for (const auto& [id, piece] : by_id) {  // in id order: the first gap is the first missing id
        if (id != int64_t(vocab.pieces.size()))
            bad_tokenizer_json(file, "no piece has id " + std::to_string(vocab.pieces.size()));
        vocab.pieces.push_back(piece);
    }
    if (byte_level)
        read_byte_level(tok, model, id_of, added, vocab, file);
    else
        read_sentencepiece(tok, model, id_of, added, vocab, file);

    // SentencePiece files fall back on Llama's "<s>" and "</s>"; a byte-level one has only the
    // specials it names, its template's first special token being its BOS.
    std::optional<std::string> bos = special.bos;
    std::optional<std::string> eos = special.eos;
    if (!byte_level) {
        bos = bos.value_or("<s>");
        eos = eos.value_or("</s>");
    } else if (!bos) {
        const std::vector<std::string> specials = template_specials(tok);
        if (!specials.empty()) bos = specials.front();
    }
    auto id_of_special = [&](const std::optional<std::string>& piece, bool from_config,
                             const char* what) {
        if (!piece) return int32_t(-1);
        if (!id_of.count(*piece))
            bad_tokenizer_json(
                from_config ? config_file : file,
                std::string(what) + " token '" + *piece + "' is not in the vocabulary");
        return id_of.at(*piece);
    };
    vocab.bos_id = id_of_special(bos, special.bos.has_value(), "BOS");
    vocab.eos_id = id_of_special(eos, special.eos.has_value(), "EOS");
    // Without a word from tokenizer_config.json, the template decides; without a template,
    // Llama's SentencePiece files start with BOS and GPT-2-style ones do not.
    vocab.add_bos = special.add_bos ? *special.add_bos
                    : bos           ? template_adds(tok, *bos).value_or(!byte_level)
                                    : false;
    if (vocab.add_bos && vocab.bos_id < 0)
        bad_tokenizer_json(special.add_bos ? config_file : file,
                           "BOS is asked for, and no BOS token is named");
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
        Vocabulary vocab = read_tokenizer(JsonFields(tok), file, special, config_file);
        vocab.chat_template = special.chat_template;
        return vocab;
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
    Vocabulary vocab = parse_hf_tokenizer_json(read_text(tokenizer_path), tokenizer_path,
                                               config_text, config_path);
    // transformers (4.47 on) saves the template beside the config, and reads it in preference.
    const std::string template_path =
        (std::filesystem::path(folder) / "chat_template.jinja").string();
    if (std::filesystem::exists(template_path)) vocab.chat_template = read_text(template_path);
    return vocab;
}

}  // namespace kvw
