#include "app/gui/wlod_dialog.h"

#include <algorithm>

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>

namespace kvw {

namespace {

// Far beyond any capacity; the session judges the real values.
constexpr int kMaxK = 1 << 16;

}  // namespace

WlodDialog::WlodDialog(int k, qint64 w_max, QWidget* parent)
    : QDialog(parent), k_(new QSpinBox(this)), w_max_(new QSpinBox(this)) {
    setWindowTitle("wLOD tree");
    k_->setObjectName("wlodK");
    w_max_->setObjectName("wlodMax");
    k_->setRange(0, kMaxK);
    k_->setSpecialValueText("off");
    w_max_->setRange(0, INT32_MAX);
    w_max_->setSpecialValueText("no budget");
    setK(k);
    setWMax(w_max);

    auto* why = new QLabel(
        "Blocks of K tokens collapse into one gist row (level 1), K blocks into a level-2 gist. "
        "The focus policy keeps the context within W_max rows. Turning wLOD on or changing K "
        "regenerates the whole tree; K cannot change while a gist row is in the context.",
        this);
    why->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    // 1 is no block size (a gist of one token): OK waits for 0 or at least 2.
    connect(k_, &QSpinBox::valueChanged, this,
            [buttons](int v) { buttons->button(QDialogButtonBox::Ok)->setEnabled(v != 1); });
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* form = new QFormLayout(this);
    form->addRow(why);
    form->addRow("K (tokens per block)", k_);
    form->addRow("W_max (rows)", w_max_);
    form->addRow(buttons);
}

int WlodDialog::k() const { return k_->value(); }
qint64 WlodDialog::wMax() const { return w_max_->value(); }

void WlodDialog::setK(int k) { k_->setValue(k); }
void WlodDialog::setWMax(qint64 w_max) {
    w_max_->setValue(int(std::clamp<qint64>(w_max, 0, INT32_MAX)));
}

}  // namespace kvw
