#include "core/policy/focus_proposer.h"

#include <algorithm>
#include <optional>

namespace kvw {

namespace {

// Timeline leaves a row stands for: a token 1, a level-1 gist K, a level-2 gist K*K.
int64_t leaves_of(uint8_t level, int64_t k) { return level == 0 ? 1 : level == 1 ? k : k * k; }

// Whether rows [r, r + k) of every layer are k rows of level - 1 that start a block of the level
// on the timeline (first_leaf[l]: the leaf row r starts at in layer l) and end before the layer's
// last k rows. Layers differ after an edit on some of them; a block whole in layer 0 only would
// be refused by pre-flight (and dropped by the session), leaving the budget unkept.
bool whole_in_every_layer(const std::vector<std::vector<uint8_t>>& levels,
                          const std::vector<int64_t>& first_leaf, int r, int level, int64_t k) {
    const int64_t span = level == 1 ? k : k * k;
    for (size_t l = 0; l < levels.size(); ++l) {
        if (int64_t(r) + 2 * k > int64_t(levels[l].size()) || first_leaf[l] % span != 0)
            return false;
        for (int i = 0; i < k; ++i)
            if (levels[l][size_t(r + i)] != level - 1) return false;
    }
    return true;
}

}  // namespace

ActionList FocusProposer::propose(const ProposerInput& input) {
    if (!input.row_levels || input.row_levels->empty() || input.wlod_k < 2 || input.wlod_max <= 0)
        return {};
    // A layer without gists comes without levels (SequenceShape::row_levels): every row a token.
    std::vector<std::vector<uint8_t>> all_levels = *input.row_levels;
    for (size_t l = 0; l < all_levels.size() && l < input.row_tokens.size(); ++l)
        if (all_levels[l].empty()) all_levels[l].assign(input.row_tokens[l].size(), 0);
    const std::vector<uint8_t>& levels = all_levels.front();
    const std::vector<float>& bright = input.brightness.front();
    const int64_t k = input.wlod_k;
    const int rows = int(levels.size());
    size_t longest = 0;  // the budget holds for every layer
    for (const std::vector<uint8_t>& layer : all_levels) longest = std::max(longest, layer.size());

    if (int64_t(longest) + 1 > input.wlod_max) {
        // Blocks by their first row: level 1 (K token rows) or level 2 (K level-1 gist rows),
        // aligned on the timeline in every layer and ending before the last K rows.
        std::optional<std::pair<float, int>> darkest;  // (mean brightness, first row)
        int level_of_darkest = 1;
        for (int level = 1; level <= 2 && !darkest; ++level) {
            std::vector<int64_t> first_leaf(all_levels.size(), 0);  // of row r, per layer
            for (int r = 0; r + k <= rows - k; ++r) {
                if (r >= input.pinned_rows &&
                    whole_in_every_layer(all_levels, first_leaf, r, level, k)) {
                    float sum = 0.0f;
                    for (int i = 0; i < k; ++i) sum += bright[size_t(r + i)];
                    const std::pair<float, int> score{sum / float(k), r};
                    if (!darkest || score < *darkest) darkest = score;
                }
                for (size_t l = 0; l < all_levels.size(); ++l)
                    if (size_t(r) < all_levels[l].size())
                        first_leaf[l] += leaves_of(all_levels[l][size_t(r)], k);
            }
            level_of_darkest = level;
        }
        if (darkest) return {Action{CollapseAction{darkest->second, level_of_darkest}, {}}};
        return {};
    }
    if (int64_t(longest) + 1 + (k - 1) + k <= input.wlod_max) {
        std::optional<std::pair<float, int>> brightest;  // (-brightness, row): min wins
        for (int r = 0; r < rows; ++r)
            if (levels[size_t(r)] > 0) {
                const std::pair<float, int> score{-bright[size_t(r)], r};
                if (!brightest || score < *brightest) brightest = score;
            }
        if (brightest) return {Action{ExpandAction{brightest->second}, {}}};
    }
    return {};
}

}  // namespace kvw
