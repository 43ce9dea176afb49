#pragma once
#include <QString>

class QLabel;
class QWidget;

namespace kvw {

// A hidden, word-wrapped, selectable label in the error style (view_colors.h), for a refusal
// shown in place next to what it is about; `name` becomes its object name when given.
QLabel* make_error_label(QWidget* parent, const QString& name = {});

}  // namespace kvw
