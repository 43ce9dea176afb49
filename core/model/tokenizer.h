#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kvw {

// Token types as GGUF stores them in tokenizer.ggml.token_type (SentencePiece's numbering).
enum class TokenType : uint8_t {
    Normal = 1,
    Unknown = 2,
    Control = 3,
    UserDefined = 4,
    Unused = 5,
    Byte = 6,
};

// A Llama SentencePiece vocabulary: pieces use U+2581 ("▁") for spaces, byte-fallback pieces
// are spelled "<0xAB>".
struct Vocabulary {
    std::vector<std::string> pieces;
    std::vector<float> scores;
    std::vector<TokenType> types;
    int32_t bos_id = 1;
    int32_t eos_id = 2;
    int32_t unk_id = 0;
    bool add_bos = true;
    bool add_space_prefix = true;  // SentencePiece prepends "▁" to the text before encoding

    int size() const { return int(pieces.size()); }
};

// Llama SentencePiece tokenizer (the BPE-style merge by piece score that llama.cpp's SPM
// tokenizer and sentencepiece's BPE models perform), with byte fallback.
class Tokenizer {
public:
    Tokenizer() = default;
    explicit Tokenizer(Vocabulary vocab);

    std::vector<int32_t> encode(std::string_view text, bool add_bos) const;
    // Text of a whole sequence: "▁" becomes a space, byte pieces are reassembled into UTF-8,
    // the leading space that encode() added is dropped.
    std::string decode(std::span<const int32_t> ids) const;
    // Display text of one token ("▁" shown as a space, bytes as "<0xAB>", controls as-is).
    std::string piece_text(int32_t id) const;

    const Vocabulary& vocabulary() const { return vocab_; }
    int size() const { return vocab_.size(); }
    int32_t bos_id() const { return vocab_.bos_id; }
    int32_t eos_id() const { return vocab_.eos_id; }

private:
    Vocabulary vocab_;
    std::unordered_map<std::string, int32_t> piece_to_id_;  // pieces the merge may produce
    std::vector<std::string> user_defined_;  // matched whole before merging, never merged
    int32_t byte_to_id_[256] = {};
};

}  // namespace kvw
