#pragma once
#include <QString>

#include "core/session/frame.h"

namespace kvw {

// What hovering a row shows, in the token strip and in the layer maps alike: layer, row, the
// ledger record it holds (id, piece, token id, kind, born tick) and the row's brightness,
// rope_pos (with its skew from the row index) and drift when measured. Empty for a row the
// layer does not have.
QString row_tooltip_text(const Frame& frame, int layer, int row);

// A token's piece as the strip shows it: SentencePiece's '▁' and spaces as '·', newlines as
// '↵', tabs as '→', so that whitespace tokens stay visible; an empty piece as "#id".
QString visible_piece(const std::string& piece, int32_t token_id);

}  // namespace kvw
