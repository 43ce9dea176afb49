// The shared colour scales: the brightness scale runs from dark to bright, text on any of its
// colours keeps WCAG AA contrast, and the map gradient agrees with the chip colours.
#include <QtTest>

#include "frame_builder.h"
#include "widgets/view_colors.h"

using namespace kvw;

class TestViewColors : public QObject {
    Q_OBJECT
private slots:
    void brightness_scale_runs_dark_to_bright() {
        // Inferno's published end points.
        QVERIFY(test::near(scale_color(ColorScale::Brightness, 0.0), QColor("#000004"), 1));
        QVERIFY(test::near(scale_color(ColorScale::Brightness, 1.0), QColor("#fcffa4"), 1));
        double last = -1;
        for (int i = 0; i <= 100; ++i) {
            const double l = test::luminance(scale_color(ColorScale::Brightness, i / 100.0));
            QVERIFY2(l >= last, qPrintable(QString("luminance drops at %1").arg(i)));
            last = l;
        }
        // Out of range clamps instead of wrapping.
        QCOMPARE(scale_color(ColorScale::Brightness, -3), scale_color(ColorScale::Brightness, 0));
        QCOMPARE(scale_color(ColorScale::Brightness, 7), scale_color(ColorScale::Brightness, 1));
    }

    void text_on_every_scale_colour_is_readable() {
        for (ColorScale scale :
             {ColorScale::Brightness, ColorScale::Sequence, ColorScale::Diverging}) {
            for (int i = 0; i <= 255; ++i) {
                const QColor bg = scale_color(scale, i / 255.0);
                const double lb = test::luminance(bg);
                const double lt = test::luminance(readable_text_color(bg));
                const double contrast = (std::max(lb, lt) + 0.05) / (std::min(lb, lt) + 0.05);
                QVERIFY2(contrast >= 4.5,
                         qPrintable(QString("contrast %1 on %2").arg(contrast).arg(bg.name())));
            }
        }
    }

    void map_gradient_matches_chip_colours() {
        QCPColorGradient g = color_gradient(ColorScale::Brightness);
        for (double t : {0.0, 0.3, 0.5, 0.9, 1.0}) {
            const QColor map = QColor::fromRgba(g.color(t, QCPRange(0, 1)));
            QVERIFY2(test::near(map, scale_color(ColorScale::Brightness, t)),
                     qPrintable(QString("%1 vs %2 at %3")
                                    .arg(map.name(), scale_color(ColorScale::Brightness, t).name())
                                    .arg(t)));
        }
        // NaN cells stay transparent, so the map's "no row here" background shows through.
        QCOMPARE(g.nanHandling(), QCPColorGradient::nhTransparent);
    }

    void diverging_scale_is_light_at_zero() {
        const QColor mid = scale_color(ColorScale::Diverging, 0.5);
        QVERIFY(test::luminance(mid) > test::luminance(scale_color(ColorScale::Diverging, 0.0)));
        QVERIFY(test::luminance(mid) > test::luminance(scale_color(ColorScale::Diverging, 1.0)));
        QVERIFY(scale_color(ColorScale::Diverging, 0.0).blue() >
                scale_color(ColorScale::Diverging, 0.0).red());
        QVERIFY(scale_color(ColorScale::Diverging, 1.0).red() >
                scale_color(ColorScale::Diverging, 1.0).blue());
    }
};

QTEST_MAIN(TestViewColors)
#include "test_view_colors.moc"
