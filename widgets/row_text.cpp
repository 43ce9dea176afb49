#include "widgets/row_text.h"

#include "widgets/window_reach.h"

namespace kvw {

QString row_tooltip_text(const Frame& frame, int layer, int row) {
    if (layer < 0 || layer >= int(frame.layers.size())) return {};
    const LayerFrame& lf = frame.layers[size_t(layer)];
    if (row < 0 || row >= lf.rows()) return {};
    const int64_t id = lf.pos2ledger[size_t(row)];
    QString text = QString("layer %1 · row %2 · ledger %3").arg(layer).arg(row).arg(id);
    if (id >= 0 && id < int64_t(frame.ledger.size())) {
        const LedgerRecord& rec = frame.ledger[size_t(id)];
        text += QString(" '%1'\ntoken %2 · %3 · born tick %4")
                    .arg(visible_piece(rec.piece, rec.token_id))
                    .arg(rec.token_id)
                    .arg(entry_kind_name(rec.kind))
                    .arg(rec.born_tick);
    }
    if (!lf.record_brightness.empty())
        text += QString("\nbrightness %1").arg(double(lf.brightness(size_t(row))), 0, 'f', 1);
    if (size_t(row) < lf.rope_pos.size()) {
        const int32_t pos = lf.rope_pos[size_t(row)];
        text += QString(" · rope_pos %1 (skew %2)").arg(pos).arg(pos - row);
    }
    if (out_of_reach(frame, layer, row))
        text += QString(
                    "\nout of reach: the next token attends only to the last %1 positions "
                    "(this layer's sliding window)")
                    .arg(frame.model.window_of(layer));
    if (frame.drift_measured && size_t(row) < lf.drift.size()) {
        // Against a fresh pass over the layer's tokens; within the tolerance is rounding.
        const float drift = lf.drift[size_t(row)];
        text += QString(" · drift %1").arg(double(drift), 0, 'g', 3);
        if (frame.drift_tolerance > 0)
            text +=
                QString(drift > frame.drift_tolerance ? " > tolerance %1: differs from a fresh pass"
                                                      : " ≤ tolerance %1: storage rounding")
                    .arg(double(frame.drift_tolerance), 0, 'g', 2);
    }
    return text;
}

QString visible_piece(const std::string& piece, int32_t token_id) {
    if (piece.empty()) return QString("#%1").arg(token_id);
    // SentencePiece byte-fallback tokens for whitespace.
    if (piece == "<0x0A>") return QString(QChar(0x21B5));
    if (piece == "<0x09>") return QString(QChar(0x2192));
    if (piece == "<0x20>") return QString(QChar(0x00B7));
    QString text = QString::fromStdString(piece);
    text.replace(QChar(0x2581), QChar(0x00B7));
    text.replace(' ', QChar(0x00B7));
    text.replace('\n', QChar(0x21B5));
    text.replace('\t', QChar(0x2192));
    return text;
}

}  // namespace kvw
