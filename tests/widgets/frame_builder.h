#pragma once
// Shared by the widget tests: Frames built by hand (no Session), with values that follow simple
// formulas the tests can recompute, and the look the app uses.
#include <QApplication>
#include <QColor>
#include <QTest>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/session/frame.h"
#include "widgets/workbench_look.h"

namespace kvw::test {

// Shows `widget` at a fixed size and waits until it is on screen (offscreen: painted).
inline bool show_exposed(QWidget& widget, int width, int height) {
    widget.resize(width, height);
    widget.show();
    return QTest::qWaitForWindowExposed(&widget);
}

inline void use_workbench_look() {
    apply_workbench_look(*static_cast<QApplication*>(QCoreApplication::instance()));
}

// The formulas of make_frame, for the tests' own expectations.
inline int layer_rows(int layer, int rows) { return rows - 3 * layer; }  // deeper layers shorter
inline int64_t ledger_of(int layer, int row) { return row + layer; }  // layer l dropped l records
inline int32_t rope_of(int layer, int row) { return row + (layer % 3) - 1; }
inline float brightness_of(int layer, int row, int rows) {
    return 255.0f * float((row * 7 + layer * 5) % rows) / float(rows - 1);
}
inline int64_t born_of(int64_t id) { return id / 4; }
inline float drift_of(int layer, int row) { return 1e-6f * float(1 + row + 10 * layer); }

inline const char* word(int64_t id) {
    static const char* const words[] = {"▁The", "▁cache", "▁holds",  "▁every", "▁token", ",",
                                        "▁and", "▁the",   "▁mirror", "▁keeps", "▁its",   "▁ledger",
                                        "▁in",  "▁step",  ".",       "<0x0A>"};
    return words[id % 16];
}

// `layers` layers; layer l holds rows [0, rows - 3l) with the records ledger_of(l, r), whose
// pieces cycle through word(); brightness, RoPE phase, born tick and drift follow the formulas
// above. Drift is measured when `drift` is set.
inline std::shared_ptr<Frame> make_frame(int layers, int rows, int64_t tick = 40,
                                         bool drift = false) {
    auto f = std::make_shared<Frame>();
    f->tick = tick;
    f->capacity = rows + 8;
    f->prompt = "The cache holds every token";
    const int64_t records = rows + layers;
    std::vector<LedgerRecord> ledger;
    for (int64_t id = 0; id < records; ++id) {
        LedgerRecord rec;
        rec.id = id;
        rec.kind = id < rows / 2 ? EntryKind::Prompt : EntryKind::Generated;
        rec.token_id = int32_t(100 + id);
        rec.piece = word(id);
        rec.born_tick = born_of(id);
        ledger.push_back(rec);
    }
    f->ledger = LedgerRecords(std::move(ledger), 16);  // small chunks: indexing crosses them
    for (int l = 0; l < layers; ++l) {
        LayerFrame lf;
        std::vector<int64_t> pos2ledger;
        std::vector<int32_t> rope_pos;
        std::vector<float> brightness(size_t(records), 0.0f);  // [id], as the ledger keeps it
        for (int r = 0; r < layer_rows(l, rows); ++r) {
            pos2ledger.push_back(ledger_of(l, r));
            rope_pos.push_back(rope_of(l, r));
            brightness[size_t(ledger_of(l, r))] = brightness_of(l, r, rows);
            if (drift) lf.drift.push_back(drift_of(l, r));
        }
        lf.pos2ledger = std::move(pos2ledger);
        lf.rope_pos = std::move(rope_pos);
        lf.record_brightness = ChunkedRecords<float>(std::move(brightness), 16);
        f->layers.push_back(std::move(lf));
    }
    f->drift_measured = drift;
    if (drift) {
        f->max_drift = drift_of(layers - 1, layer_rows(layers - 1, rows) - 1);
        f->first_diverging_layer = -1;
    }
    f->invariants = {{"rows_aligned", true, tick, -1, -1, {}},
                     {"ids_live", true, tick, -1, -1, {}},
                     {"ids_unique", true, tick, -1, -1, {}},
                     {"rope_policy", true, tick, -1, -1, {}}};
    return f;
}

// WCAG relative luminance, written out here so that the tests do not use the code they check.
inline double luminance(const QColor& c) {
    auto lin = [](double x) {
        return x <= 0.03928 ? x / 12.92 : std::pow((x + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF());
}

inline bool near(const QColor& a, const QColor& b, int tolerance = 6) {
    return std::abs(a.red() - b.red()) <= tolerance &&
           std::abs(a.green() - b.green()) <= tolerance &&
           std::abs(a.blue() - b.blue()) <= tolerance;
}

}  // namespace kvw::test
