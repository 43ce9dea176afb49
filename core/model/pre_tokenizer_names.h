#pragma once
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kvw {

// A byte-level BPE pre-tokenizer as GGUF files name it in tokenizer.ggml.pre (the names
// llama.cpp's converter writes), with what the name implies.
struct NamedPreTokenizer {
    std::string_view name;
    std::vector<std::string_view> patterns;  // PCRE2 regular expressions, applied in turn
    bool ignore_merges = false;  // a word that is a piece itself is not merged (Llama 3)
    bool add_bos = false;        // when tokenizer.ggml.add_bos_token does not say
};

// Every supported name, in one table; lookups and the list of known names derive from it.
std::span<const NamedPreTokenizer> named_pre_tokenizers();

// The row named `name`, or nullptr.
const NamedPreTokenizer* find_named_pre_tokenizer(std::string_view name);

// "llama-bpe, qwen2, ...", for messages that refuse another name.
std::string named_pre_tokenizer_list();

// GPT-2's pattern: what a tokenizer.json ByteLevel pre-tokenizer with use_regex splits by.
std::string_view gpt2_pre_tokenizer_pattern();

}  // namespace kvw
