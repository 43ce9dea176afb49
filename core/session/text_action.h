#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/tokenizer.h"
#include "core/session/session.h"
#include "core/state/action.h"

namespace kvw {

// The text edits a person asks for by text rather than token ids (the window's token strip and
// action editor, the `.kvs` commands replace-text and insert-text): one rule set for every face
// of the program (ARCHITECTURE §10).
enum class TextActionKind {
    ReplacePair,  // replace two adjacent rows by the tokens of a text
    Insert,       // insert the tokens of a text before a row
};

const char* text_action_kind_name(TextActionKind kind);  // "replace_pair", "insert"
std::optional<TextActionKind> parse_text_action_kind(std::string_view name);

// The ids a text edit puts into the cache: the tokenizer's for the text, without BOS. The
// window shows them as pieces before the edit is sent (the action editor's preview), so that a
// leading space that becomes a token of its own is seen there first.
std::vector<int32_t> text_tokens(const Tokenizer& tokenizer, std::string_view text);

// The action list for a text edit chosen on `layer` (it tokenizes: call it where the session
// lives).
//  ReplacePair: replace_pair(min, max of row1 and row2, tokens of text), with the JSON action's
//               meaning (ARCHITECTURE §6): both rows go, the text takes the first one's place,
//               the rows between them stay, after the text.
//  Insert:      insert(row1, tokens of text): the text before row1 (row1 == rows: after the last
//               row); row2 is ignored.
// The edit goes to every layer that holds the same records at those rows as `layer` (all layers
// while no per-layer edit has made them differ). Throws std::invalid_argument for text without
// tokens or rows outside the layer; the pre-flight check of inject/apply_now judges everything
// else (an insert before BOS among it), so the window, the scripts and JSON share one rule set.
ActionList text_action(const Session& session, TextActionKind kind, int layer, int row1, int row2,
                       const std::string& text);

}  // namespace kvw
