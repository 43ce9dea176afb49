#pragma once
#include <QImage>
#include <QString>

namespace kvw {

// How a screenshot differs from its golden image, channel by channel (R, G, B, A).
struct ImageDiff {
    bool same_size = false;
    int max_delta = 0;    // the largest channel difference seen
    int pixels_over = 0;  // pixels with a channel differing by more than the tolerance
    QImage marked;        // the golden image greyed, differing pixels in red; null if sizes differ

    bool within_tolerance() const { return same_size && pixels_over == 0; }
    QString describe(int tolerance) const;
};

// Exact comparison is too brittle for rendered text (STYLE.md); a per-channel tolerance is not.
ImageDiff compare_images(const QImage& actual, const QImage& golden, int tolerance);

}  // namespace kvw
