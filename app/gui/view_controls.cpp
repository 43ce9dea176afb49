#include "app/gui/view_controls.h"

#include <QAbstractButton>
#include <QComboBox>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QStringList>
#include <algorithm>

namespace kvw {

namespace {

bool is_control(const QWidget* w) {
    return qobject_cast<const QComboBox*>(w) || qobject_cast<const QAbstractButton*>(w) ||
           qobject_cast<const QSpinBox*>(w) || qobject_cast<const QLineEdit*>(w) ||
           qobject_cast<const QPlainTextEdit*>(w);
}

// The controls a script can name: Qt names the parts of its own widgets "qt_…" (a spin box's
// line edit), which are not.
QList<QWidget*> named_controls(QWidget* view) {
    QList<QWidget*> controls;
    QStringList seen;
    for (QWidget* w : view->findChildren<QWidget*>()) {
        const QString name = w->objectName();
        if (!is_control(w) || name.isEmpty() || name.startsWith("qt_") || seen.contains(name))
            continue;
        seen << name;
        controls << w;
    }
    std::sort(controls.begin(), controls.end(),
              [](const QWidget* a, const QWidget* b) { return a->objectName() < b->objectName(); });
    return controls;
}

QString unknown_control(QWidget* view, const QString& name) {
    QStringList names;
    for (const QWidget* w : named_controls(view)) names << w->objectName();
    return "no control '" + name + "' (named controls: " + names.join(", ") + ")";
}

QString describe(const QWidget* w) {
    if (auto* combo = qobject_cast<const QComboBox*>(w)) {
        QStringList items;
        for (int i = 0; i < combo->count(); ++i) items << combo->itemText(i);
        return QString("one of %1 (now %2)").arg(items.join("|"), combo->currentText());
    }
    if (auto* button = qobject_cast<const QAbstractButton*>(w)) {
        const QString state = button->isEnabled() ? "" : ", disabled now";
        return button->isCheckable()
                   ? QString("on|off (now %1%2)").arg(button->isChecked() ? "on" : "off", state)
                   : QString("a button to click%1").arg(state);
    }
    if (auto* spin = qobject_cast<const QSpinBox*>(w))
        return QString("an integer in [%1, %2] (now %3)")
            .arg(spin->minimum())
            .arg(spin->maximum())
            .arg(spin->value());
    return "text";
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

QStringList describe_controls(QWidget* view) {
    QStringList lines;
    for (const QWidget* w : named_controls(view)) lines << w->objectName() + ": " + describe(w);
    return lines;
}

QString click_control(QWidget* view, const QString& name) {
    auto* button = view->findChild<QAbstractButton*>(name);
    if (!button) return unknown_control(view, name);
    if (!button->isEnabled()) return name + " is disabled";
    button->click();
    return {};
}

}  // namespace kvw
