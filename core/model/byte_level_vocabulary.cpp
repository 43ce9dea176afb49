#include "core/model/byte_level_vocabulary.h"

#include <unordered_map>

#include "core/model/byte_level.h"
#include "core/model/model_error.h"
#include "core/model/model_shape.h"

namespace kvw {
namespace {

[[noreturn]] void bad(const ByteLevelSource& where, const std::string& detail) {
    throw ModelError(ModelErrorKind::BadTokenizer, where.file, detail);
}

std::string quoted(const std::string& piece) { return "'" + piece + "'"; }

}  // namespace

std::optional<MergePieces> split_merge_text(std::string_view text) {
    const size_t space = text.find(' ');
    if (space == std::string_view::npos || space == 0 || space + 1 == text.size() ||
        text.find(' ', space + 1) != std::string_view::npos)
        return std::nullopt;
    return MergePieces{std::string(text.substr(0, space)), std::string(text.substr(space + 1))};
}

void make_byte_level(Vocabulary& vocab, std::span<const MergePieces> merges,
                     std::vector<PreTokenizer::Pattern> patterns, const ByteLevelSource& where) {
    vocab.kind = TokenizerKind::ByteLevelBpe;
    vocab.scores.assign(vocab.pieces.size(), 0.0f);
    vocab.add_space_prefix = false;  // a space is a byte like any other

    std::unordered_map<std::string_view, int32_t> id_of;
    for (size_t id = 0; id < vocab.pieces.size(); ++id)
        id_of.emplace(vocab.pieces[id], int32_t(id));  // the first of duplicates wins
    for (int byte = 0; byte < 256; ++byte)
        if (!id_of.count(byte_level_char(uint8_t(byte))))
            bad(where, "byte " + std::to_string(byte) + " has no piece (" +
                           quoted(std::string(byte_level_char(uint8_t(byte)))) +
                           "), so some text could not be encoded");

    if (merges.size() > size_t(ModelShapeLimits::kMaxVocab))
        bad(where, where.merges_key + " has " + std::to_string(merges.size()) +
                       " merges, more than the limit of " +
                       std::to_string(ModelShapeLimits::kMaxVocab));
    vocab.merges.clear();
    vocab.merges.reserve(merges.size());
    for (size_t rank = 0; rank < merges.size(); ++rank) {
        const auto& [left, right] = merges[rank];
        const std::string at = where.merges_key + "[" + std::to_string(rank) + "] (" +
                               quoted(left) + ", " + quoted(right) + "): ";
        const auto l = id_of.find(left);
        const auto r = id_of.find(right);
        if (l == id_of.end() || r == id_of.end())
            bad(where, at + quoted(l == id_of.end() ? left : right) + " is not in the vocabulary");
        if (!id_of.count(left + right))
            bad(where,
                at + "the joined piece " + quoted(left + right) + " is not in the vocabulary");
        vocab.merges.push_back({l->second, r->second});
    }

    if (patterns.size() > kMaxPreTokenizerPatterns)
        bad(where, where.pre_key + " has " + std::to_string(patterns.size()) +
                       " patterns, more than the limit of " +
                       std::to_string(kMaxPreTokenizerPatterns));
    for (size_t i = 0; i < patterns.size(); ++i)
        if (patterns[i].text.size() > kMaxPatternBytes)
            bad(where, where.pre_key + " pattern " + std::to_string(i) + " has " +
                           std::to_string(patterns[i].text.size()) +
                           " bytes, more than the limit of " + std::to_string(kMaxPatternBytes));
    try {
        vocab.pre_tokenizer = std::make_shared<const PreTokenizer>(std::move(patterns));
    } catch (const PreTokenizerError& e) {
        bad(where, where.pre_key + " pattern " + std::to_string(e.pattern()) +
                       " is refused by PCRE2 at offset " + std::to_string(e.offset()) + ": " +
                       e.what());
    }
}

}  // namespace kvw
