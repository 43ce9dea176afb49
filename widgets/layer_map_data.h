#pragma once
#include <QString>
#include <limits>

#include "core/session/frame.h"
#include "qcustomplot.h"
#include "widgets/row_window.h"
#include "widgets/view_colors.h"

namespace kvw {

// The quantities the layer maps can show, one value per (layer, row).
enum class MapKind {
    LedgerId,    // pos2ledger: which record the row holds
    LedgerAge,   // tick - born_tick of that record
    Brightness,  // the row's brightness in its layer
    Drift,       // max(K, V) relative drift of the row (log scale); absent until measured
    PhaseSkew,   // rope_pos - row: how far the row's RoPE phase is from its index
};

// How rows that share one cell (more rows than pixels) become its value.
enum class Pooling {
    Mean,    // a fair picture of the rows (brightness, ids, ages)
    MaxAbs,  // the worst row, so that one stale row among thousands still shows (drift, skew)
};

struct MapSpec {
    MapKind kind;
    QString title;  // the combo's entry and the colour scale's label
    ColorScale scale;
    bool logarithmic;
    Pooling pooling;
};

const std::vector<MapSpec>& map_specs();  // in combo order
const MapSpec& map_spec(MapKind kind);

// Columns of the maps: the longest layer (at least 2, so the cell grid never degenerates).
int map_columns(const Frame& frame);
// Rows of the maps: the layers (at least 2).
int map_rows(const Frame& frame);

// Rows [first, last) of `window` within the map's columns: at least two rows wide.
RowWindow clamp_window(const Frame& frame, RowWindow window);

// Writes `kind` for the rows of `window` into `data` (key = row, value = layer). With at most
// `max_cells` columns of cells: when the window has more rows, each cell pools
// ceil(rows / max_cells) adjacent rows (map_spec().pooling), and the key range is set so that
// cell edges stay on row edges. Only the window's rows are read, so a zoomed-in map costs what
// it shows. Cells without any row of their layer, and drift that was not measured, are NaN.
void fill_map_data(const Frame& frame, MapKind kind, QCPColorMapData& data,
                   int max_cells = std::numeric_limits<int>::max(), RowWindow window = {});

// The colour range of `kind` for this frame: fixed where the quantity has natural bounds
// (brightness 0..max, drift floor..1), else from the frame (ids, ages, a symmetric skew range).
QCPRange map_data_range(const Frame& frame, MapKind kind);

// Where `tolerance` sits on the drift map's log colour range [kDriftFloor, 1], as a fraction
// of it; NaN when there is nothing to mark (no tolerance, or one outside the range).
double drift_tolerance_fraction(double tolerance);
// The colour gradient of `kind` for this frame: the scale's own, but for drift split at the
// frame's tolerance: drift within it (the storage types' rounding) takes the scale's dark end,
// drift past it (a row that differs from a fresh pass) the bright end, with a step between, so
// that int8 / FP8 noise does not read as divergence.
QCPColorGradient map_gradient(const Frame& frame, MapKind kind);
// What the drift map compares, for the line above it: the reference and the tolerance.
QString drift_map_note(const Frame& frame);

}  // namespace kvw
