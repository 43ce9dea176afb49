#include "core/model/gguf_vocabulary.h"

#include <algorithm>
#include <cmath>

#include "core/model/model_error.h"

namespace kvw {
namespace {

constexpr const char* kModel = "tokenizer.ggml.model";
constexpr const char* kTokens = "tokenizer.ggml.tokens";
constexpr const char* kScores = "tokenizer.ggml.scores";
constexpr const char* kTypes = "tokenizer.ggml.token_type";

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

}  // namespace

Vocabulary read_gguf_vocabulary(const GgufFile& file) {
    const std::string& model = file.get_string(kModel);
    if (model != "llama")
        bad_tokenizer(file, std::string(kModel) + " is \"" + model +
                                "\"; only the SentencePiece \"llama\" tokenizer is supported");

    Vocabulary vocab;
    if (!file.has(kTokens))  // get_array would say the same, but this is the common omission
        throw ModelError(ModelErrorKind::MissingMetadata, file.file_name(),
                         std::string("metadata key '") + kTokens + "' (the vocabulary) is absent");
    vocab.pieces = typed_elements<std::string>(file, kTokens);
    const size_t n = vocab.pieces.size();
    if (n == 0) bad_tokenizer(file, std::string(kTokens) + " is empty");
    if (n > size_t(INT32_MAX)) bad_tokenizer(file, "vocabulary too large");

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

    const int size = int(n);
    vocab.bos_id = special_id(file, "tokenizer.ggml.bos_token_id", vocab.bos_id, size);
    vocab.eos_id = special_id(file, "tokenizer.ggml.eos_token_id", vocab.eos_id, size);
    vocab.unk_id = special_id(file, "tokenizer.ggml.unknown_token_id", vocab.unk_id, size);
    vocab.add_bos = file.get_bool("tokenizer.ggml.add_bos_token", vocab.add_bos);
    vocab.add_space_prefix =
        file.get_bool("tokenizer.ggml.add_space_prefix", vocab.add_space_prefix);
    return vocab;
}

}  // namespace kvw
