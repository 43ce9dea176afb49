#include "core/model/pre_tokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>

#include "core/model/utf8.h"

namespace kvw {
namespace {

std::string pcre2_message(int code) {
    PCRE2_UCHAR buffer[256];
    const int n = pcre2_get_error_message(code, buffer, sizeof buffer);
    return n < 0 ? "PCRE2 error " + std::to_string(code)
                 : std::string(reinterpret_cast<const char*>(buffer), size_t(n));
}

struct MatchDataFree {
    void operator()(pcre2_match_data* m) const { pcre2_match_data_free(m); }
};
using MatchData = std::unique_ptr<pcre2_match_data, MatchDataFree>;

}  // namespace

PreTokenizerError::PreTokenizerError(size_t pattern, size_t offset, const std::string& message)
    : std::runtime_error(message), pattern_(pattern), offset_(offset) {}

struct PreTokenizer::Regex {
    pcre2_code* code = nullptr;

    Regex(const Pattern& pattern, size_t index) {
        // UTF + UCP: \s, \p{L}, \p{N} and character classes over code points, as the
        // tokenizers' own engines read them. MATCH_INVALID_UTF: user text need not be valid
        // UTF-8; malformed bytes simply never match. LITERAL does not take UCP.
        uint32_t options = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
        options |= pattern.literal ? PCRE2_LITERAL : PCRE2_UCP;
        int error = 0;
        PCRE2_SIZE offset = 0;
        code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.text.data()), pattern.text.size(),
                             options, &error, &offset, nullptr);
        if (!code) throw PreTokenizerError(index, size_t(offset), pcre2_message(error));
        // Without JIT support (another CPU) the interpreter gives the same matches, slower.
        pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
    }
    ~Regex() { pcre2_code_free(code); }
    Regex(const Regex&) = delete;
    Regex& operator=(const Regex&) = delete;

    // Appends the matches of this pattern in `word`, and the text between them, to `out`.
    void split(std::string_view word, pcre2_match_data* match, std::vector<std::string_view>& out,
               size_t index) const {
        const auto* subject = reinterpret_cast<PCRE2_SPTR>(word.data());
        size_t kept = 0;  // word[0, kept) is in `out`
        size_t from = 0;
        while (from < word.size()) {
            const int rc = pcre2_match(code, subject, word.size(), from, 0, match, nullptr);
            if (rc == PCRE2_ERROR_NOMATCH) break;
            if (rc < 0)
                throw std::runtime_error("pre-tokenizer pattern " + std::to_string(index) + ": " +
                                         pcre2_message(rc));
            const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match);
            const size_t begin = ovector[0];
            const size_t end = ovector[1];
            if (end == begin) {  // an empty match cuts nothing; look again one character on
                from = begin + std::max<size_t>(1, valid_utf8_length(word.substr(begin)));
                continue;
            }
            if (begin > kept) out.push_back(word.substr(kept, begin - kept));
            out.push_back(word.substr(begin, end - begin));
            kept = from = end;
        }
        if (kept < word.size()) out.push_back(word.substr(kept));
    }
};

PreTokenizer::PreTokenizer(std::vector<Pattern> patterns) : patterns_(std::move(patterns)) {
    for (size_t i = 0; i < patterns_.size(); ++i)
        regexes_.push_back(std::make_unique<Regex>(patterns_[i], i));
}

PreTokenizer::~PreTokenizer() = default;

std::vector<std::string_view> PreTokenizer::split(std::string_view text) const {
    std::vector<std::string_view> words;
    if (!text.empty()) words.push_back(text);
    for (size_t i = 0; i < regexes_.size(); ++i) {
        // Match data per call, so that threads sharing the tokenizer never share it.
        const MatchData match(pcre2_match_data_create_from_pattern(regexes_[i]->code, nullptr));
        if (!match) throw std::bad_alloc();
        std::vector<std::string_view> next;
        next.reserve(words.size());
        for (const std::string_view word : words) regexes_[i]->split(word, match.get(), next, i);
        words = std::move(next);
    }
    return words;
}

}  // namespace kvw
