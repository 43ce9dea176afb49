#include "core/policy/focus_proposer.h"

#include <optional>

namespace kvw {

ActionList FocusProposer::propose(const ProposerInput& input) {
    if (!input.row_levels || input.row_levels->empty() || input.wlod_k < 2 || input.wlod_max <= 0)
        return {};
    const std::vector<uint8_t>& levels = input.row_levels->front();
    const std::vector<float>& bright = input.brightness.front();
    const int64_t k = input.wlod_k;
    const int rows = int(levels.size());

    if (rows + 1 > input.wlod_max) {
        // Blocks by their first row: level 1 (K token rows) or level 2 (K level-1 gist rows),
        // aligned on the timeline and ending before the last K rows.
        std::optional<std::pair<float, int>> darkest;  // (mean brightness, first row)
        int level_of_darkest = 1;
        for (int level = 1; level <= 2 && !darkest; ++level) {
            const int64_t span = level == 1 ? k : k * k;
            int64_t leaf = 0;
            for (int r = 0; r + k <= rows - k; ++r) {
                bool whole = leaf % span == 0;
                for (int i = 0; i < k && whole; ++i) whole = levels[size_t(r + i)] == level - 1;
                if (whole && r >= input.pinned_rows) {
                    float sum = 0.0f;
                    for (int i = 0; i < k; ++i) sum += bright[size_t(r + i)];
                    const std::pair<float, int> score{sum / float(k), r};
                    if (!darkest || score < *darkest) darkest = score;
                }
                leaf += levels[size_t(r)] == 0 ? 1 : levels[size_t(r)] == 1 ? k : k * k;
            }
            level_of_darkest = level;
        }
        if (darkest) return {Action{CollapseAction{darkest->second, level_of_darkest}, {}}};
        return {};
    }
    if (rows + 1 + (k - 1) + k <= input.wlod_max) {
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
