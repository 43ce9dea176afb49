// Export: every registered view gives a table whose CSV and JSON parse back (with a CSV reader
// written here) to the Frame's own values at full precision; quoting survives commas, quotes and
// line breaks; a bad suffix or an unwritable path is an error that names the file.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "core/model/model_loader.h"
#include "core/session/session.h"
#include "frame_builder.h"
#include "widgets/frame_view.h"
#include "widgets/view_export.h"
#include "widgets/view_registry.h"
#include "widgets/view_table.h"

using namespace kvw;

namespace {

// RFC 4180, read plainly: fields split on commas outside quotes, "" inside quotes is a quote,
// records end at CRLF outside quotes.
QList<QStringList> parse_csv(const QString& text) {
    QList<QStringList> records;
    QStringList record;
    QString field;
    bool quoted = false;
    for (int i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            record << field;
            field.clear();
        } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
            record << field;
            records << record;
            record.clear();
            field.clear();
            ++i;
        } else {
            field += c;
        }
    }
    return records;
}

QString read_text(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(f.readAll());
}

// A real session under h2o with drift measured: layers differ, every map has values.
FramePtr session_frame() {
    static FramePtr frame = [] {
        SessionOptions o;
        o.model = "synthetic:tiny";
        o.capacity = 128;
        o.proposer = "h2o";
        o.policy.budget = {2, 6, 4};
        o.sampling.seed = 9;
        Session s(o, load_model("synthetic:tiny"));
        s.start("the cache, with \"quotes\" and commas, remembers");
        for (int i = 0; i < 8; ++i) s.step();
        s.measure_drift();
        return s.frame();
    }();
    return frame;
}

}  // namespace

class TestViewExport : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { test::use_workbench_look(); }

    void every_view_exports_csv_and_json_that_parse_back() {
        const FramePtr frame = session_frame();
        QTemporaryDir dir;
        QWidget parent;
        for (const ViewInfo& info : registered_views()) {
            FrameView* view = info.create(&parent);
            view->setFrame(frame);
            view->setSelection(1, 3);
            const ViewTable table = view->table();
            QVERIFY2(!table.columns.isEmpty(), qPrintable(info.name));
            for (const QVariantList& row : table.rows) QCOMPARE(row.size(), table.columns.size());

            const QString csv_path = dir.filePath(info.name + ".csv");
            QCOMPARE(export_view(*view, csv_path, frame->tick), QString());
            const QList<QStringList> csv = parse_csv(read_text(csv_path));
            QCOMPARE(csv.size(), table.rows.size() + 1);
            QCOMPARE(csv[0], table.columns);
            for (int r = 0; r < table.rows.size(); ++r)
                for (int c = 0; c < table.columns.size(); ++c)
                    QCOMPARE(csv[r + 1][c], view_cell_text(table.rows[r][c]));

            const QString json_path = dir.filePath(info.name + ".json");
            QCOMPARE(export_view(*view, json_path, frame->tick), QString());
            const QJsonObject json =
                QJsonDocument::fromJson(read_text(json_path).toUtf8()).object();
            QCOMPARE(json["view"].toString(), info.name);
            QCOMPARE(qint64(json["tick"].toDouble()), frame->tick);
            const QJsonArray rows = json["rows"].toArray();
            QCOMPARE(rows.size(), table.rows.size());
            for (int r = 0; r < table.rows.size(); ++r)
                for (int c = 0; c < table.columns.size(); ++c) {
                    const QVariant& cell = table.rows[r][c];
                    const QJsonValue v = rows[r].toArray()[c];
                    if (!cell.isValid())
                        QVERIFY(v.isNull());
                    else if (cell.typeId() == QMetaType::Float)
                        QCOMPARE(float(v.toDouble()), cell.toFloat());
                    else if (cell.typeId() == QMetaType::QString)
                        QCOMPARE(v.toString(), cell.toString());
                }

            const QString png_path = dir.filePath(info.name + ".png");
            QCOMPARE(export_view(*view, png_path, frame->tick), QString());
            QVERIFY(!QImage(png_path).isNull());
        }
    }

    void maps_export_is_the_frame_at_full_precision() {
        const FramePtr frame = session_frame();
        QVERIFY(frame->drift_measured);
        QTemporaryDir dir;
        QWidget parent;
        FrameView* maps = nullptr;
        for (const ViewInfo& info : registered_views())
            if (info.name == "maps") maps = info.create(&parent);
        QVERIFY(maps);
        maps->setFrame(frame);
        const QString path = dir.filePath("maps.csv");
        QCOMPARE(export_view(*maps, path, frame->tick), QString());
        const QList<QStringList> csv = parse_csv(read_text(path));
        const QStringList header = csv[0];
        const int layer = header.indexOf("layer"), row = header.indexOf("row"),
                  id = header.indexOf("ledger_id"), age = header.indexOf("ledger_age"),
                  bright = header.indexOf("brightness"), skew = header.indexOf("phase_skew"),
                  drift = header.indexOf("drift");
        QVERIFY(layer >= 0 && row >= 0 && id >= 0 && age >= 0 && bright >= 0 && skew >= 0 &&
                drift >= 0);
        int lines = 1;
        for (size_t l = 0; l < frame->layers.size(); ++l) {
            const LayerFrame& lf = frame->layers[l];
            for (int r = 0; r < lf.rows(); ++r, ++lines) {
                const QStringList& f = csv[lines];
                QCOMPARE(f[layer].toInt(), int(l));
                QCOMPARE(f[row].toInt(), r);
                QCOMPARE(f[id].toLongLong(), lf.pos2ledger[size_t(r)]);
                QCOMPARE(f[age].toLongLong(),
                         frame->tick - frame->ledger[size_t(lf.pos2ledger[size_t(r)])].born_tick);
                // Bit for bit: 9 significant digits read a float back exactly.
                QCOMPARE(f[bright].toFloat(), lf.brightness(size_t(r)));
                QCOMPARE(f[drift].toFloat(), lf.drift[size_t(r)]);
                QCOMPARE(f[skew].toInt(), lf.rope_pos[size_t(r)] - r);
            }
        }
        QCOMPARE(lines, csv.size());
    }

    void quoting_survives_commas_quotes_and_line_breaks() {
        ViewTable t{{"a,b", "say \"hi\""}, {{QString("x,y"), QString("line\r\nbreak \"q\"")}}};
        const QList<QStringList> csv = parse_csv(view_table_csv(t));
        QCOMPARE(csv.size(), 2);
        QCOMPARE(csv[0], t.columns);
        QCOMPARE(csv[1], (QStringList{"x,y", "line\r\nbreak \"q\""}));
        // JSON has no NaN: null stands for it.
        const QJsonObject json =
            QJsonDocument::fromJson(view_table_json({{"v"}, {{std::nan("")}, {2.5}}}, "x", 3))
                .object();
        QVERIFY(json["rows"].toArray()[0].toArray()[0].isNull());
        QCOMPARE(json["rows"].toArray()[1].toArray()[0].toDouble(), 2.5);
    }

    void bad_paths_are_errors_that_name_the_file() {
        QWidget parent;
        FrameView* view = registered_views().front().create(&parent);
        view->setFrame(test::make_frame(2, 6));
        QVERIFY(export_view(*view, "/tmp/x.txt", 0).contains("x.txt"));
        const QString problem = export_view(*view, "/nonexistent-dir/a.csv", 0);
        QVERIFY2(problem.contains("/nonexistent-dir/a.csv"), qPrintable(problem));
    }
};

QTEST_MAIN(TestViewExport)
#include "test_view_export.moc"
