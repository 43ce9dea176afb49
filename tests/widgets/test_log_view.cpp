// Log view: a line logged on the default logger appears (from the UI thread and from a worker
// thread), the level filter hides and shows lines, long lines wrap, and a destroyed view leaves
// the logger.
#include <spdlog/spdlog.h>

#include <QAbstractTextDocumentLayout>
#include <QComboBox>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QTextBlock>
#include <QtTest>
#include <thread>

#include "frame_builder.h"
#include "widgets/log_hub.h"
#include "widgets/log_view.h"
#include "widgets/workbench_look.h"

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

    // A line wider than the view wraps at its width, keeping its spaces (an error with its
    // context ran off the dock's right edge).
    void long_lines_wrap_at_the_width() {
        LogView view;
        view.resize(320, 240);
        view.show();
        spdlog::error("apply now:{}", QString(" rejected row").repeated(30).toStdString());
        QTRY_VERIFY(shown(view).contains("apply now: rejected row rejected row"));
        auto* text = view.findChild<QPlainTextEdit*>("text");
        QCOMPARE(text->horizontalScrollBar()->maximum(), 0);  // nothing to scroll sideways
        const QTextBlock line = text->document()->lastBlock();
        const qreal height = text->document()->documentLayout()->blockBoundingRect(line).height();
        QVERIFY2(height > 3 * text->fontMetrics().lineSpacing(),
                 qPrintable(QString::number(height)));
    }

    // The newest line stays in view as lines come, also those logged before the view was
    // first shown and after it narrowed (its lines wrap onto more); once the reader scrolls up,
    // new lines leave the view where it is.
    void follows_the_newest_line_until_scrolled_up() {
        LogView view;
        view.resize(600, 240);
        for (int i = 0; i < 30; ++i)
            spdlog::info("line {}:{}", i, QString(" words").repeated(20).toStdString());
        QTRY_VERIFY(shown(view).contains("line 29:"));
        view.show();
        auto* text = view.findChild<QPlainTextEdit*>("text");
        QScrollBar* bar = text->verticalScrollBar();
        const auto newest_in_view = [text] {
            const QTextBlock last = text->document()->lastBlock();
            const QRectF box = text->document()->documentLayout()->blockBoundingRect(last);
            return text->cursorForPosition(QPoint(4, text->viewport()->height() - 4)).block() ==
                       last &&
                   box.height() > 0;
        };
        QTRY_VERIFY(newest_in_view());
        view.resize(300, 240);
        spdlog::info("line 30");
        QTRY_VERIFY(shown(view).endsWith("line 30"));
        QTRY_VERIFY(newest_in_view());

        bar->setValue(0);  // the reader scrolls up
        spdlog::info("line 31");
        QTRY_VERIFY(shown(view).endsWith("line 31"));
        QTest::qWait(20);
        QCOMPARE(bar->value(), 0);
    }

    // A script run hides wall-clock times, which a wrapped line would show at its end: the
    // same script must give the same picture.
    void a_script_run_hides_wall_clock_times() {
        LogView view;
        set_wall_clock_hidden(true);
        spdlog::info("loaded synthetic:tiny: 16.0 MiB of weights in memory, 0.01 s; tick 12.5 ms");
        QTRY_VERIFY(shown(view).contains("loaded synthetic:tiny"));
        set_wall_clock_hidden(false);
        QVERIFY2(shown(view).endsWith("16.0 MiB of weights in memory, — s; tick — ms"),
                 qPrintable(shown(view)));
        spdlog::info("took 0.25 s");
        QTRY_VERIFY(shown(view).contains("took 0.25 s"));  // a person's window shows them
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
