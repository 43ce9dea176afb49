#pragma once
#include <cstdint>
#include <vector>

#include <QString>

#include "core/model/tokenizer.h"
#include "core/state/action.h"

namespace kvw {

// Token ids as the pieces they stand for, each in brackets with its whitespace made visible
// (visible_piece: a leading space is '·', so a space that is a token of its own shows as
// "[·]"): "[·] [·And] [·God]"; an id outside the vocabulary as "[#id]". Without a tokenizer,
// the ids: "12, 34".
QString token_pieces_text(const std::vector<int32_t>& ids, const Tokenizer* tokenizer);

// How the views name an action in tables and lists: one phrase per column. The new tokens as
// pieces when a tokenizer is given (token_pieces_text), else as ids:
// "delete", "replace_pair → [·And] [·God]", "add [·God]", "insert [5, 6]"
QString action_summary_text(const Action& action, const Tokenizer* tokenizer = nullptr);
QString action_rows_text(const Action& action);    // "12", "45–46", "end", "before 12"
QString action_layers_text(const Action& action);  // "all", "0, 2"

}  // namespace kvw
