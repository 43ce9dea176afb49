#include "widgets/action_text.h"

#include <QStringList>

#include "widgets/row_text.h"

namespace kvw {

namespace {

template <typename Int>
QString joined(const std::vector<Int>& values) {
    QStringList parts;
    for (Int v : values) parts << QString::number(v);
    return parts.join(", ");
}

template <class... Ts>
struct Overloaded : Ts... {
    using Ts::operator()...;
};

}  // namespace

QString token_pieces_text(const std::vector<int32_t>& ids, const Tokenizer* tokenizer) {
    if (!tokenizer) return joined(ids);
    QStringList pieces;
    for (const int32_t id : ids) {
        const bool known = id >= 0 && id < tokenizer->size();
        pieces << "[" + visible_piece(known ? tokenizer->piece_text(id) : std::string(), id) + "]";
    }
    return pieces.join(' ');
}

QString action_summary_text(const Action& action, const Tokenizer* tokenizer) {
    // Ids in brackets ("[12, 34]"); pieces bring their own.
    const auto tokens = [tokenizer](const std::vector<int32_t>& ids) {
        const QString text = token_pieces_text(ids, tokenizer);
        return tokenizer ? text : "[" + text + "]";
    };
    return std::visit(
        Overloaded{
            [&](const ReplacePairAction& a) {
                return QString("replace_pair → %1").arg(tokens(a.new_token_ids));
            },
            [&](const AddAction& a) {
                return tokenizer ? "add " + tokens({a.token_id})
                                 : QString("add %1").arg(a.token_id);
            },
            [](const DeleteAction&) { return QString("delete"); },
            [&](const InsertAction& a) { return QString("insert %1").arg(tokens(a.token_ids)); },
            [](const CollapseAction& a) { return QString("collapse L%1").arg(a.level); },
            [](const ExpandAction&) { return QString("expand"); },
        },
        action.op);
}

QString action_rows_text(const Action& action) {
    return std::visit(Overloaded{
                          [](const ReplacePairAction& a) {
                              return QString("%1–%2").arg(a.original_pos1).arg(a.original_pos2);
                          },
                          [](const AddAction&) { return QString("end"); },
                          [](const DeleteAction& a) { return QString::number(a.pos); },
                          [](const InsertAction& a) { return QString("before %1").arg(a.pos); },
                          [](const CollapseAction& a) { return QString("from %1").arg(a.pos); },
                          [](const ExpandAction& a) { return QString::number(a.pos); },
                      },
                      action.op);
}

QString action_layers_text(const Action& action) {
    return action.layers.empty() ? QString("all") : joined(action.layers);
}

}  // namespace kvw
