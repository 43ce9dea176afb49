// Session ▸ A/B against: one checkable entry per selective policy and "A/B off", in one
// exclusive group; when the menu opens the B the session runs now (from its Frame) is checked,
// whether the menu or the controller started it, and "A/B off" once it is off.
#include <QAction>
#include <QActionGroup>
#include <QMenu>
#include <QtTest>

#include "app/gui/main_window.h"
#include "app/gui/session_controller.h"
#include "core/eval/ab_compare.h"
#include "frame_builder.h"
#include "window_test_support.h"

using namespace kvw;

namespace {

// The names of the A/B menu's checked entries after it is opened.
QStringList checked_after_opening(MainWindow& w) {
    auto* menu = qobject_cast<QMenu*>(test::named_action(w, "ab-off")->parent());
    if (!menu) qFatal("ab-off is not in a menu");
    emit menu->aboutToShow();
    QStringList checked;
    for (QAction* a : menu->actions())
        if (a->isChecked()) checked << a->objectName();
    return checked;
}

}  // namespace

class TestAbMenu : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { test::use_workbench_look(); }

    void the_running_b_is_checked() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        w.setBackend("cpu");
        w.setPrompt("The cache remembers what the model was told");
        w.openModel("synthetic:tiny");
        QVERIFY(test::wait_idle(c));
        QCOMPARE(checked_after_opening(w), QStringList{"ab-off"});

        QAction* h2o = test::named_action(w, "ab-h2o");
        QVERIFY(h2o->isCheckable());
        QVERIFY(h2o->actionGroup() && h2o->actionGroup()->isExclusive());
        QCOMPARE(h2o->actionGroup(), test::named_action(w, "ab-off")->actionGroup());
        h2o->trigger();
        QVERIFY(test::wait_idle(c));
        QVERIFY(c.lastFrame()->ab);
        QCOMPARE(checked_after_opening(w), QStringList{"ab-h2o"});

        c.startAb("random", c.lastFrame()->policy);  // as a script's `ab random …` does
        QVERIFY(test::wait_idle(c));
        QCOMPARE(QString::fromStdString(c.lastFrame()->ab->b.name), QString("random"));
        QCOMPARE(checked_after_opening(w), QStringList{"ab-random"});

        test::named_action(w, "ab-off")->trigger();
        QVERIFY(test::wait_idle(c));
        QVERIFY(!c.lastFrame()->ab);
        QCOMPARE(checked_after_opening(w), QStringList{"ab-off"});
    }
};

QTEST_MAIN(TestAbMenu)
#include "test_ab_menu.moc"
