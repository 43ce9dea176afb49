#include "app/gui/reference_dialog.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QScreen>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "widgets/workbench_look.h"

namespace kvw {

namespace {

// The share of the screen's available area the dialog takes at most: its frame and the room a
// window manager keeps around it fit in the rest.
constexpr double kScreenShare = 0.8;

}  // namespace

ReferenceDialog::ReferenceDialog(const QString& title, const QString& intro, const QString& text,
                                 QWidget* parent)
    : QDialog(parent) {
    setWindowTitle(title);
    auto* label = new QLabel(intro, this);
    label->setWordWrap(true);
    auto* browser = new QTextBrowser(this);
    browser->setObjectName("reference");
    browser->setFont(workbench_mono_font());
    browser->setLineWrapMode(QTextEdit::NoWrap);  // one command a line, as the log writes them
    browser->setPlainText(text);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(label);
    layout->addWidget(browser, 1);
    layout->addWidget(buttons);

    // As wide as the longest line where the screen allows, and as tall as the screen allows:
    // the browser scrolls what does not fit.
    const QRect available = (parent ? parent->screen() : screen())->availableGeometry();
    // The widest line, with the browser's frame, the dialog's margins and a vertical scroll bar.
    const int text_width = int(browser->document()->size().width());
    const QSize wanted(text_width + 80, available.height());
    resize(wanted.boundedTo(available.size() * kScreenShare));
}

}  // namespace kvw
