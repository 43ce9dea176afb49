#include "core/policy/pair_merge_proposer.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

#include "core/model/vocabulary.h"
#include "core/policy/policy_error.h"

namespace kvw {
namespace {

// The characters a token stands for in the tokenizer's normalised text, or nothing for
// tokens that stand for no text (controls, unknown).
std::optional<std::string> surface(const Tokenizer& tokenizer, int32_t id) {
    const Vocabulary& vocab = tokenizer.vocabulary();
    if (id < 0 || id >= vocab.size()) return std::nullopt;
    const std::string& piece = vocab.pieces[size_t(id)];
    switch (vocab.types[size_t(id)]) {
        case TokenType::Normal:
        case TokenType::UserDefined: return piece;
        case TokenType::Byte: {
            unsigned value = 0;
            if (piece.size() != 6 || std::sscanf(piece.c_str(), "<0x%2X>", &value) != 1)
                return std::nullopt;
            return std::string(1, char(value));
        }
        default: return std::nullopt;
    }
}

std::string marker_to_space(const std::string& normalized) {
    std::string text;
    for (size_t pos = 0; pos < normalized.size();) {
        if (normalized.compare(pos, kSpaceMarker.size(), kSpaceMarker) == 0) {
            text += ' ';
            pos += kSpaceMarker.size();
        } else {
            text += normalized[pos++];
        }
    }
    return text;
}

// The single token that spells the pair, if the tokenizer produces one.
std::optional<int32_t> merged_token(const Tokenizer& tokenizer, const Tokenizer& unprefixed,
                                    int32_t a, int32_t b) {
    const std::optional<std::string> sa = surface(tokenizer, a);
    const std::optional<std::string> sb = surface(tokenizer, b);
    if (!sa || !sb) return std::nullopt;
    const std::string joined = *sa + *sb;
    const std::vector<int32_t> ids = unprefixed.encode(marker_to_space(joined), false);
    if (ids.size() != 1 || surface(tokenizer, ids[0]) != joined) return std::nullopt;
    return ids[0];
}

void check_input(const ProposerInput& input) {
    if (input.row_tokens.size() != input.brightness.size())
        throw PolicyInputError("proposer input has " + std::to_string(input.row_tokens.size()) +
                               " layers of tokens but " + std::to_string(input.brightness.size()) +
                               " layers of brightness");
    for (size_t l = 0; l < input.row_tokens.size(); ++l)
        if (input.row_tokens[l].size() != input.brightness[l].size())
            throw PolicyInputError("layer " + std::to_string(l) + " has " +
                                   std::to_string(input.row_tokens[l].size()) +
                                   " rows of tokens but " +
                                   std::to_string(input.brightness[l].size()) + " of brightness");
}

}  // namespace

const Tokenizer& PairMergeProposer::unprefixed(const Tokenizer& tokenizer) {
    if (!tokenizer.vocabulary().add_space_prefix) return tokenizer;
    if (source_ != &tokenizer || !unprefixed_) {
        Vocabulary vocab = tokenizer.vocabulary();
        vocab.add_space_prefix = false;
        unprefixed_.emplace(std::move(vocab));
        source_ = &tokenizer;
    }
    return *unprefixed_;
}

ActionList PairMergeProposer::propose(const ProposerInput& input) {
    check_input(input);
    if (input.row_tokens.empty()) return {};
    const std::vector<int32_t>& rows = input.row_tokens[0];

    std::vector<int> layers;
    for (size_t l = 0; l < input.row_tokens.size(); ++l)
        if (input.row_tokens[l] == rows) layers.push_back(int(l));

    // A wLOD gist row has no token (-1); an edit at or before it is refused (ARCHITECTURE §14),
    // so only pairs after the last one are candidates.
    size_t first = 0;
    for (size_t r = 0; r < rows.size(); ++r)
        if (rows[r] < 0) first = r + 1;
    std::vector<std::pair<double, int>> pairs;  // (summed brightness, first row)
    for (size_t r = first; r + 1 < rows.size(); ++r) {
        double sum = 0.0;
        for (const int l : layers)
            sum +=
                double(input.brightness[size_t(l)][r]) + double(input.brightness[size_t(l)][r + 1]);
        pairs.emplace_back(sum, int(r));
    }
    std::sort(pairs.begin(), pairs.end());

    const Tokenizer& encoder = unprefixed(input.tokenizer);
    for (const auto& [sum, r] : pairs) {
        const std::optional<int32_t> id =
            merged_token(input.tokenizer, encoder, rows[size_t(r)], rows[size_t(r) + 1]);
        if (!id) continue;
        Action action{ReplacePairAction{r, r + 1, {*id}}, {}};
        if (layers.size() != input.row_tokens.size()) action.layers = layers;
        return {action};
    }
    return {};
}

}  // namespace kvw
