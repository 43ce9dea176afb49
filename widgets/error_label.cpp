#include "widgets/error_label.h"

#include <QLabel>

#include "widgets/view_colors.h"

namespace kvw {

QLabel* make_error_label(QWidget* parent, const QString& name) {
    auto* label = new QLabel(parent);
    if (!name.isEmpty()) label->setObjectName(name);
    label->setStyleSheet(error_style_sheet());
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->hide();
    return label;
}

}  // namespace kvw
