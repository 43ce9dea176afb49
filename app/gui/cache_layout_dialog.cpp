#include "app/gui/cache_layout_dialog.h"

#include <limits>

#include <QComboBox>
#include <QSpinBox>

namespace kvw {

namespace {

// From 0: the session judges the real values against the ring's size and says why.
QSpinBox* count_box(const char* name, int minimum, QWidget* parent) {
    auto* box = new QSpinBox(parent);
    box->setObjectName(name);
    box->setRange(minimum, std::numeric_limits<int>::max());
    return box;
}

void select_data(QComboBox* combo, int value) {
    const int index = combo->findData(value);
    if (index >= 0) combo->setCurrentIndex(index);
}

}  // namespace

CacheLayoutDialog::CacheLayoutDialog(CacheLayout layout, const RingOptions& ring, int capacity,
                                     QWidget* parent)
    : SettingsDialog("Cache layout",
                     "Where the cache rows live; the rows are copied and the state hash stays. "
                     "A ring keeps T rows per layer: after its S sinks, the oldest rows are "
                     "overwritten first; each tick decodes a frame of N tokens.",
                     parent),
      layout_(new QComboBox(this)),
      mode_(new QComboBox(this)),
      sinks_(count_box("ringSinks", 0, this)),
      tokens_per_block_(count_box("tokensPerBlock", 0, this)),
      size_(count_box("ringSize", 1, this)),
      checksum_(ring.checksum) {
    layout_->setObjectName("layout");
    mode_->setObjectName("ringMode");
    for (const auto& [layout, name] : kCacheLayoutNames) layout_->addItem(name, int(layout));
    for (const auto& [mode, name] : kRingModeNames) mode_->addItem(name, int(mode));
    addField("Layout", layout_, "layout");
    addField("Ring mode", mode_, "ring-mode");
    addField("S (pinned sink rows)", sinks_, "ring-sinks");
    addField("N (tokens per frame)", tokens_per_block_, "tokens-per-frame");
    addField("T (rows per layer)", size_, "capacity");
    connect(layout_, &QComboBox::currentIndexChanged, this, &CacheLayoutDialog::enableRingFields);
    setCacheLayout(layout);
    setRing(ring, capacity);
    enableRingFields();
}

CacheLayout CacheLayoutDialog::cacheLayout() const {
    return CacheLayout(layout_->currentData().toInt());
}

void CacheLayoutDialog::setCacheLayout(CacheLayout layout) { select_data(layout_, int(layout)); }

void CacheLayoutDialog::setRing(const RingOptions& ring, int size) {
    select_data(mode_, int(ring.mode));
    sinks_->setValue(ring.sinks);
    tokens_per_block_->setValue(ring.tokens_per_block);
    size_->setValue(size);
}

void CacheLayoutDialog::enableRingFields() {
    const bool ring = cacheLayout() == CacheLayout::Ring;
    for (QWidget* w : {static_cast<QWidget*>(mode_), static_cast<QWidget*>(sinks_),
                       static_cast<QWidget*>(tokens_per_block_), static_cast<QWidget*>(size_)})
        w->setEnabled(ring);
}

bool CacheLayoutDialog::send() {
    const bool ring = cacheLayout() == CacheLayout::Ring;
    const RingOptions options{RingMode(mode_->currentData().toInt()), sinks_->value(),
                              tokens_per_block_->value(), checksum_};
    emit layoutChosen(cacheLayout(), options, ring ? size_->value() : 0);
    return true;
}

}  // namespace kvw
