#include "core/session/text_action.h"

#include <algorithm>
#include <stdexcept>

namespace kvw {

namespace {

void require_row(const Session& s, int layer, int row) {
    const int rows = s.state().rows(layer);
    if (row < 0 || row >= rows)
        throw std::invalid_argument("row " + std::to_string(row) + " is outside layer " +
                                    std::to_string(layer) + "'s " + std::to_string(rows) + " rows");
}

// Layers whose rows [p1, p2] hold the records `layer` holds there; empty when that is all.
std::vector<int> layers_like(const Session& s, int layer, int p1, int p2) {
    const std::vector<int64_t>& ref = s.state().layer_map(layer).pos2ledger;
    std::vector<int> same;
    for (int l = 0; l < s.state().n_layers(); ++l) {
        const std::vector<int64_t>& ids = s.state().layer_map(l).pos2ledger;
        if (int(ids.size()) > p2 &&
            std::equal(ids.begin() + p1, ids.begin() + p2 + 1, ref.begin() + p1))
            same.push_back(l);
    }
    if (int(same.size()) == s.state().n_layers()) same.clear();
    return same;
}

}  // namespace

const char* text_action_kind_name(TextActionKind kind) {
    return kind == TextActionKind::ReplacePair ? "replace_pair" : "insert";
}

std::optional<TextActionKind> parse_text_action_kind(std::string_view name) {
    for (TextActionKind kind : {TextActionKind::ReplacePair, TextActionKind::Insert})
        if (name == text_action_kind_name(kind)) return kind;
    return std::nullopt;
}

std::vector<int32_t> text_tokens(const Tokenizer& tokenizer, std::string_view text) {
    return tokenizer.encode(text, false);
}

ActionList text_action(const Session& session, TextActionKind kind, int layer, int row1, int row2,
                       const std::string& text) {
    if (layer < 0 || layer >= session.state().n_layers())
        throw std::invalid_argument("layer " + std::to_string(layer) + " does not exist");
    std::vector<int32_t> ids = text_tokens(session.model().tokenizer, text);
    if (ids.empty()) throw std::invalid_argument("the text '" + text + "' has no tokens");

    if (kind == TextActionKind::ReplacePair) {
        require_row(session, layer, row1);
        require_row(session, layer, row2);
        const int lo = std::min(row1, row2);
        const int hi = std::max(row1, row2);
        return {
            Action{ReplacePairAction{lo, hi, std::move(ids)}, layers_like(session, layer, lo, hi)}};
    }
    // row1 == rows: after the last row. Row 0 is judged by the pre-flight check, which refuses
    // an insert before BOS (InsertBeforeBos) and allows one where row 0 is not BOS.
    if (row1 == 0) return {Action{InsertAction{0, std::move(ids)}, {}}};
    require_row(session, layer, row1 - 1);
    // The layers that agree with `layer` on the row before the insertion point.
    return {Action{InsertAction{row1, std::move(ids)},
                   layers_like(session, layer, row1 - 1, row1 - 1)}};
}

}  // namespace kvw
