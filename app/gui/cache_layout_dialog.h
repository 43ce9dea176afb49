#pragma once
#include "app/gui/settings_dialog.h"
#include "core/cache/cache_layout.h"
#include "core/cache/ring_options.h"

class QComboBox;
class QSpinBox;

namespace kvw {

// The Session menu's "Cache layout…" (ARCHITECTURE §4, §17): where the cache rows live, and for
// a ring its mode, S pinned sink rows, N tokens per decode block (labelled "tokens per frame")
// and size T (rows per layer), starting at what the session runs. The choices come from the layout
// and ring-mode tables (kCacheLayoutNames, kRingModeNames). OK sends them as the `.kvs` `layout`
// command does (layoutChosen, which the window hands to Session::set_layout); a refusal shows
// beside its field.
class CacheLayoutDialog : public SettingsDialog {
    Q_OBJECT
public:
    CacheLayoutDialog(CacheLayout layout, const RingOptions& ring, int capacity,
                      QWidget* parent = nullptr);

    void setCacheLayout(CacheLayout layout);
    void setRing(const RingOptions& ring, int size);

signals:
    // capacity: the ring's T; 0 (every other layout) keeps the session's rows per layer.
    void layoutChosen(kvw::CacheLayout layout, const kvw::RingOptions& ring, qint64 capacity);

protected:
    bool send() override;

private:
    CacheLayout cacheLayout() const;
    void enableRingFields();

    QComboBox* layout_;
    QComboBox* mode_;
    QSpinBox* sinks_;
    QSpinBox* tokens_per_block_;
    QSpinBox* size_;
    bool checksum_;  // kept as the session has it: the dialog does not offer it
};

}  // namespace kvw
