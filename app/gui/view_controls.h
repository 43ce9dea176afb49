#pragma once
#include <QString>
#include <QStringList>

class QWidget;

namespace kvw {

// What `set VIEW CONTROL VALUE` and `click VIEW CONTROL` do: drive a control that a view named
// (QObject::objectName) the way a person would, so that scripts reach every view action without
// knowing the view's class. Each returns an empty string, or what went wrong.
//   QComboBox: the item whose text is VALUE, or the only one that starts with it
//   checkable button: on|off;  QSpinBox: an integer;  QLineEdit, QPlainTextEdit: the text
QString set_control(QWidget* view, const QString& name, const QString& value);
// Any button: clicked (it must be enabled).
QString click_control(QWidget* view, const QString& name);
// What `controls VIEW` logs: one line per named control, sorted by name, with what `set` takes
// and its value now, e.g. "map: one of brightness|rope_pos|drift (now brightness)".
QStringList describe_controls(QWidget* view);

}  // namespace kvw
