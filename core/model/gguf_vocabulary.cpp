#include "core/model/gguf_vocabulary.h"

#include <algorithm>
#include <cmath>

#include "core/model/byte_level_vocabulary.h"
#include "core/model/model_error.h"
#include "core/model/pre_tokenizer_names.h"

namespace kvw {
namespace {

constexpr const char* kModel = "tokenizer.ggml.model";
constexpr const char* kTokens = "tokenizer.ggml.tokens";
constexpr const char* kScores = "tokenizer.ggml.scores";
constexpr const char* kTypes = "tokenizer.ggml.token_type";
constexpr const char* kMerges = "tokenizer.ggml.merges";
constexpr const char* kPre = "tokenizer.ggml.pre";
constexpr const char* kAddBos = "tokenizer.ggml.add_bos_token";
constexpr const char* kChatTemplate = "tokenizer.chat_template";

[[noreturn]] void bad_tokenizer(const GgufFile& file, const std::string& why) {
    throw ModelError(ModelErrorKind::BadTokenizer, file.file_name(), why);
}

// The elements of array `key`, each of which must hold a T; absent key: empty.
template <typename T>
std::vector<T> typed_elements(const GgufFile& file, const char* key) {
    std::vector<T> out;
    if (!file.has(key)) return out;
    const GgufArray& array = file.get_array(key);
    const GgufValueType expected = gguf_value_type(GgufValue(std::in_place_type<T>));
    if (array.element_type() != uint32_t(expected))
        file.bad_metadata(
            key, "elements are " +
                     std::string(gguf_value_type_name(GgufValueType(array.element_type()))) +
                     ", expected " + std::string(gguf_value_type_name(expected)));
    out.reserve(size_t(array.size()));
    array.for_each([&](const GgufValue& v) { out.push_back(std::get<T>(v)); });
    return out;
}

int32_t special_id(const GgufFile& file, const char* key, int32_t fallback, int vocab_size) {
    if (!file.has(key)) return fallback;
    const uint32_t id = file.get_u32(key);
    if (id >= uint32_t(vocab_size))
        bad_tokenizer(file, std::string(key) + " = " + std::to_string(id) +
                                " is outside the vocabulary of " + std::to_string(vocab_size));
    return int32_t(id);
}

// The key must be present; absent, the message says what it is for.
void require(const GgufFile& file, const char* key, const std::string& what) {
    if (!file.has(key))
        throw ModelError(ModelErrorKind::MissingMetadata, file.file_name(),
                         std::string("metadata key '") + key + "' (" + what + ") is absent");
}

// tokens and token_type, which both kinds store alike.
Vocabulary read_pieces(const GgufFile& file) {
    Vocabulary vocab;
    require(file, kTokens, "the vocabulary");  // get_array would say it less plainly
    vocab.pieces = typed_elements<std::string>(file, kTokens);
    const size_t n = vocab.pieces.size();
    if (n == 0) bad_tokenizer(file, std::string(kTokens) + " is empty");
    if (n > size_t(INT32_MAX)) bad_tokenizer(file, "vocabulary too large");

    const std::vector<int32_t> types = typed_elements<int32_t>(file, kTypes);
    if (!types.empty() && types.size() != n)
        bad_tokenizer(file, std::string(kTypes) + " has " + std::to_string(types.size()) +
                                " entries for " + std::to_string(n) + " tokens");
    vocab.types.assign(n, TokenType::Normal);
    for (size_t i = 0; i < types.size(); ++i) {
        if (types[i] < int32_t(TokenType::Normal) || types[i] > int32_t(TokenType::Byte))
            bad_tokenizer(file, "token " + std::to_string(i) + " has type " +
                                    std::to_string(types[i]) + " (expected 1..6)");
        vocab.types[i] = TokenType(types[i]);
    }
    return vocab;
}

void read_sentencepiece(const GgufFile& file, Vocabulary& vocab) {
    const size_t n = vocab.pieces.size();
    vocab.scores = typed_elements<float>(file, kScores);
    if (vocab.scores.empty()) vocab.scores.assign(n, 0.0f);
    if (vocab.scores.size() != n)
        bad_tokenizer(file, std::string(kScores) + " has " + std::to_string(vocab.scores.size()) +
                                " entries for " + std::to_string(n) + " tokens");
    // The merge picks the highest score; a NaN compares false both ways and an infinity ties
    // with itself, so either silently changes how text is split.
    const auto non_finite = std::find_if(vocab.scores.begin(), vocab.scores.end(),
                                         [](float s) { return !std::isfinite(s); });
    if (non_finite != vocab.scores.end())
        bad_tokenizer(file, std::string(kScores) + "[" +
                                std::to_string(non_finite - vocab.scores.begin()) + "] is " +
                                std::to_string(*non_finite) + ", not a finite number");
    vocab.add_bos = file.get_bool(kAddBos, vocab.add_bos);
    vocab.add_space_prefix =
        file.get_bool("tokenizer.ggml.add_space_prefix", vocab.add_space_prefix);
}

// The pre-tokenizer comes by name; a name this build does not know is refused, never
// guessed: another split gives other ids, and the model would read text it was not trained on.
void read_byte_level(const GgufFile& file, Vocabulary& vocab) {
    require(file, kPre, "the pre-tokenizer's name; known: " + named_pre_tokenizer_list());
    const std::string& pre = file.get_string(kPre);
    const NamedPreTokenizer* named = find_named_pre_tokenizer(pre);
    if (!named)
        bad_tokenizer(file, std::string(kPre) + " is \"" + pre +
                                "\", which is not a known pre-tokenizer; known: " +
                                named_pre_tokenizer_list());

    require(file, kMerges, "the byte-level BPE merges");
    const std::vector<std::string> lines = typed_elements<std::string>(file, kMerges);
    std::vector<MergePieces> merges;
    merges.reserve(lines.size());
    for (size_t i = 0; i < lines.size(); ++i) {
        auto pieces = split_merge_text(lines[i]);
        if (!pieces)
            bad_tokenizer(file, std::string(kMerges) + "[" + std::to_string(i) + "] \"" + lines[i] +
                                    "\" is not two pieces separated by one space");
        merges.push_back(std::move(*pieces));
    }
    std::vector<PreTokenizer::Pattern> patterns;
    for (const std::string_view p : named->patterns) patterns.push_back({std::string(p)});
    make_byte_level(vocab, merges, std::move(patterns), {file.file_name(), kMerges, kPre});
    vocab.ignore_merges = named->ignore_merges;
    vocab.add_bos = file.get_bool(kAddBos, named->add_bos);
    if (vocab.add_bos && vocab.bos_id < 0)
        bad_tokenizer(file, std::string(kAddBos) +
                                " asks for a BOS, and tokenizer.ggml.bos_token_id is absent");
}

}  // namespace

Vocabulary read_gguf_vocabulary(const GgufFile& file) {
    const std::string& model = file.get_string(kModel);
    const bool byte_level = model == "gpt2";
    if (model != "llama" && !byte_level)
        bad_tokenizer(file, std::string(kModel) + " is \"" + model +
                                "\"; supported: \"llama\" (SentencePiece), \"gpt2\" (byte-level "
                                "BPE)");

    Vocabulary vocab = read_pieces(file);
    // SentencePiece files may leave the specials to Llama's defaults; a byte-level vocabulary
    // has none unless the file names them.
    const int size = vocab.size();
    const int32_t none = -1;
    vocab.bos_id =
        special_id(file, "tokenizer.ggml.bos_token_id", byte_level ? none : vocab.bos_id, size);
    vocab.eos_id =
        special_id(file, "tokenizer.ggml.eos_token_id", byte_level ? none : vocab.eos_id, size);
    vocab.unk_id =
        special_id(file, "tokenizer.ggml.unknown_token_id", byte_level ? none : vocab.unk_id, size);
    if (byte_level)
        read_byte_level(file, vocab);
    else
        read_sentencepiece(file, vocab);
    if (file.has(kChatTemplate)) vocab.chat_template = file.get_string(kChatTemplate);
    return vocab;
}

}  // namespace kvw
