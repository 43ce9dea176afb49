#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kvw {

// SentencePiece's word-boundary marker, U+2581 "▁", which stands for a space in pieces.
inline constexpr std::string_view kSpaceMarker = "\xE2\x96\x81";

class PreTokenizer;

// Token types as GGUF stores them in tokenizer.ggml.token_type (SentencePiece's numbering).
enum class TokenType : uint8_t {
    Normal = 1,
    Unknown = 2,
    Control = 3,
    UserDefined = 4,
    Unused = 5,
    Byte = 6,
};

// Which algorithm the Tokenizer runs over a Vocabulary (docs/ARCHITECTURE.md §2).
enum class TokenizerKind : uint8_t {
    // Llama 1/2, Mistral: pieces spell spaces as U+2581 ("▁"), byte-fallback pieces "<0xAB>",
    // merged by piece score.
    SentencePiece,
    // GPT-2 style (Llama 3, Qwen 2/3, SmolLM2): every byte spelled as one character of GPT-2's
    // byte map, text split by a pre-tokenizer, then merged by merge rank.
    ByteLevelBpe,
};

// A ranked merge of a byte-level BPE: the ids of its left and right pieces.
struct BpeMerge {
    int32_t left = 0;
    int32_t right = 0;
};

// A tokenizer's vocabulary as the loaders read it from GGUF or tokenizer.json.
struct Vocabulary {
    TokenizerKind kind = TokenizerKind::SentencePiece;
    std::vector<std::string> pieces;
    std::vector<float> scores;  // SentencePiece merge order; unused by ByteLevelBpe
    std::vector<TokenType> types;
    int32_t bos_id = 1;  // -1: the vocabulary has none
    int32_t eos_id = 2;
    int32_t unk_id = 0;
    bool add_bos = true;           // sequences start with BOS (encode at a sequence start)
    bool add_space_prefix = true;  // SentencePiece prepends "▁" to the text before encoding

    // ByteLevelBpe only. Merges by rank (index 0 merges first), each joining two pieces into
    // a third that is in `pieces`; the compiled pre-tokenizer regular expressions; and
    // whether a pre-tokenized word that is a piece itself skips the merges (Llama 3's
    // tokenizer.json `ignore_merges`).
    std::vector<BpeMerge> merges;
    std::shared_ptr<const PreTokenizer> pre_tokenizer;
    bool ignore_merges = false;

    // The model's Jinja chat template as its files give it (GGUF tokenizer.chat_template,
    // tokenizer_config.json chat_template or chat_template.jinja); absent when they have none.
    // Kept as text: a template the renderer cannot read does not stop the model loading,
    // only its use as a chat (core/chat/chat_prompt.h).
    std::optional<std::string> chat_template;

    int size() const { return int(pieces.size()); }
};

}  // namespace kvw
