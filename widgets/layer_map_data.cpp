#include "widgets/layer_map_data.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace kvw {

const std::vector<MapSpec>& map_specs() {
    static const std::vector<MapSpec> specs = {
        {MapKind::LedgerId, "ledger id", ColorScale::Sequence, false, Pooling::Mean},
        {MapKind::LedgerAge, "ledger age (ticks)", ColorScale::Sequence, false, Pooling::Mean},
        {MapKind::Brightness, "brightness", ColorScale::Brightness, false, Pooling::Mean},
        {MapKind::Drift, "drift (log)", ColorScale::Brightness, true, Pooling::MaxAbs},
        {MapKind::PhaseSkew, "phase skew (rope_pos − row)", ColorScale::Diverging, false,
         Pooling::MaxAbs},
    };
    return specs;
}

const MapSpec& map_spec(MapKind kind) {
    for (const MapSpec& s : map_specs())
        if (s.kind == kind) return s;
    return map_specs().front();
}

int map_columns(const Frame& frame) {
    int rows = 0;
    for (const LayerFrame& layer : frame.layers) rows = std::max(rows, layer.rows());
    return std::max(rows, 2);
}

int map_rows(const Frame& frame) { return std::max(int(frame.layers.size()), 2); }

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The value of `kind` for the rows [first, min(last, rows)) of one layer (NaN where there is
// none); out[i] is row first + i.
void layer_values(const Frame& frame, MapKind kind, const LayerFrame& layer, int first, int last,
                  std::vector<double>& out) {
    const int end = std::max(std::min(last, layer.rows()), first);
    out.assign(size_t(end - first), kNaN);
    // One switch per layer, not per row: 100,000 × 22 rows refill every tick.
    // `available`: rows the quantity has (drift and the like may hold fewer than the layer).
    auto each_row = [&](int available, auto value) {
        for (int r = first; r < std::min(end, available); ++r) out[size_t(r - first)] = value(r);
    };
    switch (kind) {
        case MapKind::LedgerId:
            each_row(end, [&](int r) { return double(layer.pos2ledger[size_t(r)]); });
            break;
        case MapKind::LedgerAge:
            each_row(end, [&](int r) {
                const int64_t id = layer.pos2ledger[size_t(r)];
                return id >= 0 && id < int64_t(frame.ledger.size())
                           ? double(frame.tick - frame.ledger[size_t(id)].born_tick)
                           : kNaN;
            });
            break;
        case MapKind::Brightness:
            if (layer.record_brightness.empty()) break;
            each_row(end, [&](int r) { return double(layer.brightness(size_t(r))); });
            break;
        case MapKind::Drift:
            if (!frame.drift_measured) break;
            each_row(int(layer.drift.size()),
                     [&](int r) { return std::max(double(layer.drift[size_t(r)]), kDriftFloor); });
            break;
        case MapKind::PhaseSkew:
            each_row(int(layer.rope_pos.size()),
                     [&](int r) { return double(layer.rope_pos[size_t(r)] - r); });
            break;
    }
}

double pooled(const std::vector<double>& values, int begin, int end, Pooling pooling) {
    double sum = 0, worst = kNaN;
    int count = 0;
    for (int r = begin; r < end; ++r) {
        const double v = values[size_t(r)];
        if (std::isnan(v)) continue;
        sum += v;
        ++count;
        if (std::isnan(worst) || std::abs(v) > std::abs(worst)) worst = v;
    }
    if (count == 0) return kNaN;
    return pooling == Pooling::Mean ? sum / count : worst;
}

}  // namespace

RowWindow clamp_window(const Frame& frame, RowWindow window) {
    const int columns = map_columns(frame);
    const int first = std::clamp(window.first, 0, columns - 2);
    return {first, std::clamp(window.last, first + 2, columns)};
}

void fill_map_data(const Frame& frame, MapKind kind, QCPColorMapData& data, int max_cells,
                   RowWindow window) {
    window = clamp_window(frame, window);
    const int columns = window.last - window.first;
    const int rows = map_rows(frame);
    max_cells = std::max(max_cells, 2);
    const int per_cell = columns <= max_cells ? 1 : (columns + max_cells - 1) / max_cells;
    const int cells = std::max((columns + per_cell - 1) / per_cell, 2);
    data.setSize(cells, rows);
    // Cell c covers rows first + [c * per_cell, (c + 1) * per_cell): its centre is at the
    // middle row.
    const double half = window.first + 0.5 * (per_cell - 1);
    data.setRange(QCPRange(half, (cells - 1) * per_cell + half), QCPRange(0, rows - 1));
    data.fill(kNaN);
    const Pooling pooling = map_spec(kind).pooling;
    std::vector<double> values;
    for (int l = 0; l < int(frame.layers.size()); ++l) {
        layer_values(frame, kind, frame.layers[size_t(l)], window.first, window.last, values);
        const int n = int(values.size());
        for (int c = 0; c * per_cell < n; ++c) {
            const int begin = c * per_cell;
            data.setCell(c, l,
                         per_cell == 1
                             ? values[size_t(begin)]
                             : pooled(values, begin, std::min(begin + per_cell, n), pooling));
        }
    }
}

QCPRange map_data_range(const Frame& frame, MapKind kind) {
    switch (kind) {
        case MapKind::LedgerId:
            return QCPRange(0, std::max<double>(double(frame.ledger.size()) - 1, 1));
        case MapKind::LedgerAge: return QCPRange(0, std::max<double>(double(frame.tick), 1));
        case MapKind::Brightness: return QCPRange(0, std::max(double(frame.brightness_max), 1.0));
        case MapKind::Drift: return QCPRange(kDriftFloor, 1);
        case MapKind::PhaseSkew: {
            int skew = 1;
            for (const LayerFrame& layer : frame.layers)
                for (int r = 0; r < int(layer.rope_pos.size()); ++r)
                    skew = std::max(skew, std::abs(layer.rope_pos[size_t(r)] - r));
            return QCPRange(-skew, skew);
        }
    }
    return QCPRange(0, 1);
}

double drift_tolerance_fraction(double tolerance) {
    if (!(tolerance > kDriftFloor) || tolerance >= 1) return kNaN;
    return std::log10(tolerance / kDriftFloor) / std::log10(1 / kDriftFloor);
}

QCPColorGradient map_gradient(const Frame& frame, MapKind kind) {
    const MapSpec& spec = map_spec(kind);
    QCPColorGradient gradient = color_gradient(spec.scale);
    const double at = drift_tolerance_fraction(frame.drift_tolerance);
    if (kind != MapKind::Drift || std::isnan(at)) return gradient;
    // Within the tolerance: the darkest 30 % of the scale; past it, from its middle up. The
    // gap between the two is the step a diverging row makes.
    constexpr double kWithin = 0.3, kPast = 0.55;
    constexpr int kSamples = 8;
    QMap<double, QColor> stops;
    for (int i = 0; i <= kSamples; ++i) {
        const double f = double(i) / kSamples;
        stops.insert(f * at * (1 - 1e-4), scale_color(spec.scale, kWithin * f));
        stops.insert(at + f * (1 - at), scale_color(spec.scale, kPast + (1 - kPast) * f));
    }
    gradient.setColorStops(stops);
    return gradient;
}

QString drift_map_note(const Frame& frame) {
    QString note = "Drift against a fresh pass over each layer's own tokens";
    if (std::isnan(drift_tolerance_fraction(frame.drift_tolerance))) return note;
    const QString k = QString::fromStdString(frame.k_type),
                  v = QString::fromStdString(frame.v_type);
    return note + QString("; white line: the %1 rounding tolerance %2")
                      .arg(k == v ? k : QString("K %1 / V %2").arg(k, v))
                      .arg(double(frame.drift_tolerance), 0, 'g', 2);
}

}  // namespace kvw
