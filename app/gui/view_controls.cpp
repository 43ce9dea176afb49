#include "app/gui/view_controls.h"

#include <QAbstractButton>
#include <QComboBox>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QStringList>

namespace kvw {

namespace {

bool is_control(const QWidget* w) {
    return qobject_cast<const QComboBox*>(w) || qobject_cast<const QAbstractButton*>(w) ||
           qobject_cast<const QSpinBox*>(w) || qobject_cast<const QLineEdit*>(w) ||
           qobject_cast<const QPlainTextEdit*>(w);
}

QString unknown_control(QWidget* view, const QString& name) {
    QStringList names;
    for (const QWidget* w : view->findChildren<QWidget*>())
        // Qt names the parts of its own widgets "qt_…" (a spin box's line edit): not controls
        // a script can mean.
        if (is_control(w) && !w->objectName().isEmpty() && !w->objectName().startsWith("qt_"))
            names << w->objectName();
    names.removeDuplicates();
    names.sort();
    return "no control '" + name + "' (named controls: " + names.join(", ") + ")";
}

QString choose_item(QComboBox* combo, const QString& value) {
    int found = combo->findText(value);
    if (found < 0) {
        QStringList items;
        for (int i = 0; i < combo->count(); ++i) {
            items << combo->itemText(i);
            if (combo->itemText(i).startsWith(value)) found = found == -1 ? i : -2;
        }
        if (found < 0)
            return "'" + value + "' is " + (found == -2 ? "ambiguous" : "not an item") + " (" +
                   items.join(", ") + ")";
    }
    combo->setCurrentIndex(found);
    return {};
}

}  // namespace

QString set_control(QWidget* view, const QString& name, const QString& value) {
    QWidget* w = view->findChild<QWidget*>(name);
    if (!w || !is_control(w)) return unknown_control(view, name);
    if (auto* combo = qobject_cast<QComboBox*>(w)) return choose_item(combo, value);
    if (auto* button = qobject_cast<QAbstractButton*>(w)) {
        if (!button->isCheckable() || (value != "on" && value != "off"))
            return name + " takes on|off (a plain button takes click)";
        button->setChecked(value == "on");
        return {};
    }
    if (auto* spin = qobject_cast<QSpinBox*>(w)) {
        bool ok = false;
        const int n = value.toInt(&ok);
        if (!ok || n < spin->minimum() || n > spin->maximum())
            return QString("%1 takes an integer in [%2, %3]")
                .arg(name)
                .arg(spin->minimum())
                .arg(spin->maximum());
        spin->setValue(n);
        return {};
    }
    if (auto* line = qobject_cast<QLineEdit*>(w)) {
        line->setText(value);
        return {};
    }
    qobject_cast<QPlainTextEdit*>(w)->setPlainText(value);
    return {};
}

QString click_control(QWidget* view, const QString& name) {
    auto* button = view->findChild<QAbstractButton*>(name);
    if (!button) return unknown_control(view, name);
    if (!button->isEnabled()) return name + " is disabled";
    button->click();
    return {};
}

}  // namespace kvw
