#pragma once
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kvw {

// A pattern the regular-expression engine refuses: its index in the list, the offset in the
// pattern where compiling stopped, and the engine's message.
class PreTokenizerError : public std::runtime_error {
public:
    PreTokenizerError(size_t pattern, size_t offset, const std::string& message);
    size_t pattern() const { return pattern_; }
    size_t offset() const { return offset_; }

private:
    size_t pattern_;
    size_t offset_;
};

// The split of a byte-level BPE tokenizer: text is cut into the words that merges stay
// within, by regular expressions applied in turn. Each one cuts every word the previous ones
// left into its matches and the text between them, and keeps both (tokenizers' Split with the
// "Isolated" behaviour, which is how llama.cpp and tokenizer.json files split). Nothing is
// ever dropped, so the words concatenate back to the text.
//
// The patterns use Unicode properties (\p{L}, \p{N}) and lookahead (\s+(?!\S)), and run on
// PCRE2 with its JIT compiler (docs/ARCHITECTURE.md §2). Text that is not valid UTF-8 is
// accepted: a malformed byte matches no pattern, so it lands between matches.
class PreTokenizer {
public:
    struct Pattern {
        std::string text;
        bool literal = false;  // match `text` as a plain string (tokenizer.json {"String": ...})
    };

    // Compiles every pattern; throws PreTokenizerError for the first one the engine refuses.
    explicit PreTokenizer(std::vector<Pattern> patterns);
    ~PreTokenizer();
    PreTokenizer(const PreTokenizer&) = delete;
    PreTokenizer& operator=(const PreTokenizer&) = delete;

    // The words of `text`, views into it, in order. Safe to call from several threads at once.
    // Throws std::runtime_error when the engine gives up on a match (its match limit), which
    // the patterns of real tokenizers do not come near.
    std::vector<std::string_view> split(std::string_view text) const;

    const std::vector<Pattern>& patterns() const { return patterns_; }

private:
    struct Regex;  // one compiled pattern (pre_tokenizer.cpp keeps PCRE2 to itself)
    std::vector<Pattern> patterns_;
    std::vector<std::unique_ptr<Regex>> regexes_;
};

}  // namespace kvw
