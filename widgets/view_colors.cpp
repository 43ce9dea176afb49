#include "widgets/view_colors.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace kvw {

namespace {

QMap<double, QColor> stops(std::initializer_list<std::pair<double, const char*>> list) {
    QMap<double, QColor> map;
    for (const auto& [at, name] : list) map.insert(at, QColor(name));
    return map;
}

double channel_luminance(double c) {
    return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

}  // namespace

const QMap<double, QColor>& color_stops(ColorScale scale) {
    // Matplotlib's inferno and viridis, sampled; ColorBrewer's RdBu for the diverging scale.
    static const QMap<double, QColor> brightness = stops({{0.0, "#000004"},
                                                          {0.125, "#1b0c41"},
                                                          {0.25, "#4a0c6b"},
                                                          {0.375, "#781c6d"},
                                                          {0.5, "#a52c60"},
                                                          {0.625, "#cf4446"},
                                                          {0.75, "#ed6925"},
                                                          {0.875, "#fb9b06"},
                                                          {1.0, "#fcffa4"}});
    static const QMap<double, QColor> sequence = stops({{0.0, "#440154"},
                                                        {0.25, "#3b528b"},
                                                        {0.5, "#21918c"},
                                                        {0.75, "#5ec962"},
                                                        {1.0, "#fde725"}});
    static const QMap<double, QColor> diverging = stops({{0.0, "#2166ac"},
                                                         {0.25, "#67a9cf"},
                                                         {0.5, "#f7f7f7"},
                                                         {0.75, "#ef8a62"},
                                                         {1.0, "#b2182b"}});
    switch (scale) {
        case ColorScale::Brightness: return brightness;
        case ColorScale::Sequence: return sequence;
        case ColorScale::Diverging: return diverging;
    }
    return brightness;
}

QColor scale_color(ColorScale scale, double t) {
    const QMap<double, QColor>& s = color_stops(scale);
    t = std::isnan(t) ? 0.0 : std::clamp(t, 0.0, 1.0);
    auto upper = s.lowerBound(t);
    if (upper == s.begin()) return upper.value();
    if (upper == s.end()) return std::prev(upper).value();
    auto lower = std::prev(upper);
    const double f = (t - lower.key()) / (upper.key() - lower.key());
    const QColor a = lower.value(), b = upper.value();
    auto mix = [f](int x, int y) { return int(std::lround(x + (y - x) * f)); };
    return QColor(mix(a.red(), b.red()), mix(a.green(), b.green()), mix(a.blue(), b.blue()));
}

QCPColorGradient color_gradient(ColorScale scale) {
    QCPColorGradient gradient;
    gradient.setColorStops(color_stops(scale));
    gradient.setColorInterpolation(QCPColorGradient::ciRGB);
    gradient.setNanHandling(QCPColorGradient::nhTransparent);
    return gradient;
}

QColor series_color(int i) {
    static const char* const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                          "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
    constexpr int n = int(std::size(palette));
    return QColor(palette[((i % n) + n) % n]);
}

QColor readable_text_color(const QColor& background) {
    const double l = 0.2126 * channel_luminance(background.redF()) +
                     0.7152 * channel_luminance(background.greenF()) +
                     0.0722 * channel_luminance(background.blueF());
    // Contrast with black is (l + 0.05) / 0.05, with white 1.05 / (l + 0.05); equal at l ≈ 0.179.
    return l > 0.179 ? QColor(Qt::black) : QColor(Qt::white);
}

QColor pass_color() { return QColor("#c8e6c9"); }
QColor fail_color() { return QColor("#ef9a9a"); }
QColor not_applicable_color() { return QColor("#e0e0e0"); }
QString error_style_sheet() { return "color: #b00020; font-weight: bold;"; }

}  // namespace kvw
