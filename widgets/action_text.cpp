#include "widgets/action_text.h"

#include <QStringList>

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

QString action_summary_text(const Action& action) {
    return std::visit(
        Overloaded{
            [](const ReplacePairAction& a) {
                return QString("replace_pair → [%1]").arg(joined(a.new_token_ids));
            },
            [](const AddAction& a) { return QString("add %1").arg(a.token_id); },
            [](const DeleteAction&) { return QString("delete"); },
            [](const InsertAction& a) { return QString("insert [%1]").arg(joined(a.token_ids)); },
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
