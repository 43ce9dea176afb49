// The registry: every view of the window listed once, made by its factory, named as listed,
// and able to take a frame.
#include <QSet>
#include <QtTest>

#include "frame_builder.h"
#include "widgets/frame_view.h"
#include "widgets/view_registry.h"

using namespace kvw;

class TestViewRegistry : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { test::use_workbench_look(); }

    void every_view_is_registered_once_and_takes_frames() {
        QSet<QString> names;
        auto frame = test::make_frame(4, 40, 3, true);
        for (const ViewInfo& info : registered_views()) {
            QVERIFY2(!names.contains(info.name), qPrintable(info.name));
            names.insert(info.name);
            QWidget parent;
            FrameView* view = info.create(&parent);
            QVERIFY(view);
            QCOMPARE(view->parent(), &parent);
            QCOMPARE(view->viewName(), info.name);
            QVERIFY(!info.title.isEmpty());
            view->setFrame(frame);
            view->setSelection(1, 5);
        }
        QCOMPARE(names,
                 (QSet<QString>{"tokens", "maps", "invariants", "actions", "tick", "timeline",
                                "log", "wlod", "record", "policy", "ab", "ring", "fork"}));
    }
};

QTEST_MAIN(TestViewRegistry)
#include "test_view_registry.moc"
