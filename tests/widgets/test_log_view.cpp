// Log view: a line logged on the default logger appears (from the UI thread and from a worker
// thread), the level filter hides and shows lines, and a destroyed view leaves the logger.
#include <spdlog/spdlog.h>

#include <QComboBox>
#include <QPlainTextEdit>
#include <QtTest>
#include <thread>

#include "frame_builder.h"
#include "widgets/log_hub.h"
#include "widgets/log_view.h"

using namespace kvw;

namespace {

QString shown(LogView& view) { return view.findChild<QPlainTextEdit*>("text")->toPlainText(); }

}  // namespace

class TestLogView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        test::use_workbench_look();
        spdlog::set_level(spdlog::level::trace);
    }

    void shows_a_logged_line() {
        LogView view;
        spdlog::info("tick {} applied", 17);
        QTRY_VERIFY(shown(view).contains("[info] tick 17 applied"));
    }

    void lines_from_a_worker_thread_arrive() {
        LogView view;
        std::thread worker([] { spdlog::warn("from the worker"); });
        worker.join();
        QTRY_VERIFY(shown(view).contains("[warning] from the worker"));
    }

    void filters_by_level() {
        LogView view;
        spdlog::debug("quiet detail");
        spdlog::error("loud failure");
        QTRY_VERIFY(shown(view).contains("loud failure"));
        QVERIFY(!shown(view).contains("quiet detail"));  // info and above by default
        view.setLevelFilter(spdlog::level::debug);
        QVERIFY(shown(view).contains("quiet detail"));  // kept, so lowering the filter shows it
        auto* combo = view.findChild<QComboBox*>("level");
        QCOMPARE(combo->currentData().toInt(), int(spdlog::level::debug));
        combo->setCurrentIndex(combo->findData(int(spdlog::level::critical)));
        QCOMPARE(view.levelFilter(), spdlog::level::critical);
        QVERIFY(!shown(view).contains("loud failure"));
    }

    // A window's view keeps its session's channel and no channel's lines; a view of no window
    // keeps every channel's; neither keeps a hidden session's (core/session/log_channel.h).
    void keeps_its_own_channel() {
        const LogChannel mine = new_log_channel(), other = new_log_channel();
        LogView window_view, plain_view;
        window_view.setChannel(mine);
        {
            const LogChannelScope scope(mine);
            spdlog::info("line of mine");
        }
        std::thread worker([other] {
            const LogChannelScope scope(other);
            spdlog::info("line of the other window");
            const LogChannelScope hidden(kHiddenLogChannel);
            spdlog::info("line of a hidden session");
        });
        worker.join();
        spdlog::info("line of no session");
        QTRY_VERIFY(shown(plain_view).contains("line of no session"));
        QTRY_VERIFY(shown(window_view).contains("line of no session"));
        QVERIFY(shown(window_view).contains("line of mine"));
        QVERIFY(!shown(window_view).contains("line of the other window"));
        QVERIFY(shown(plain_view).contains("line of mine"));
        QVERIFY(shown(plain_view).contains("line of the other window"));
        for (LogView* v : {&window_view, &plain_view})
            QVERIFY(!shown(*v).contains("hidden session"));
        QCOMPARE(current_log_channel(), kAnyLogChannel);
    }

    void a_destroyed_view_leaves_the_logger() {
        const size_t before = log_hub()->sinks().size();
        {
            LogView view;
            QCOMPARE(log_hub()->sinks().size(), before + 1);
            spdlog::info("queued for a view about to die");
        }
        QCOMPARE(log_hub()->sinks().size(), before);
        // Logging on, from any thread, reaches no dead widget.
        std::thread worker([] { spdlog::info("after the view"); });
        worker.join();
        QCoreApplication::processEvents();
    }
};

QTEST_MAIN(TestLogView)
#include "test_log_view.moc"
