// Traces written by earlier builds keep replaying (issue 27 item 2): every trace committed under
// tests/data/traces (README.md there says which format each one is and how it was made)
// replays with no mismatch, its state hashes compared where its header says they are this
// build's, and together they hold every command of the table, so a refactoring of how commands
// are recorded or decoded cannot silently drop one.
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <set>

#include "core/session/command/command_table.h"
#include "core/session/replay.h"
#include "core/session/trace_events.h"

using namespace kvw;

namespace {

std::vector<std::filesystem::path> committed_traces() {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(KVW_TRACES_DIR))
        if (entry.path().extension() == ".ndjson") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

class TestCommittedTraces : public QObject {
    Q_OBJECT
private slots:
    void every_committed_trace_replays_identically_data() {
        QTest::addColumn<QString>("file");
        const std::vector<std::filesystem::path> files = committed_traces();
        QVERIFY(files.size() >= 4);
        for (const std::filesystem::path& f : files)
            QTest::newRow(f.filename().string().c_str()) << QString::fromStdString(f.string());
    }

    void every_committed_trace_replays_identically() {
        QFETCH(QString, file);
        const Trace trace = Trace::read(file.toStdString());
        const ReplayReport report = replay_trace(trace);
        if (!report.ok()) {
            const ReplayMismatch& m = report.mismatches.front();
            QFAIL(qPrintable(QString("%1 mismatch(es); first at line %2 (%3): %4 %5, recorded %6")
                                 .arg(report.mismatches.size())
                                 .arg(m.line)
                                 .arg(QString::fromStdString(m.event))
                                 .arg(QString::fromStdString(m.field))
                                 .arg(QString::fromStdString(m.actual))
                                 .arg(QString::fromStdString(m.expected))));
        }
        QCOMPARE(report.events, trace.events().size() - 1);
        QVERIFY(report.checked > report.events);
        QCOMPARE(report.state_hashes_compared,
                 header_has_current_state_hashes(trace.events().front()));
    }

    void the_committed_traces_hold_every_command() {
        std::set<std::string> recorded;
        for (const std::filesystem::path& f : committed_traces()) {
            const Trace trace = Trace::read(f);
            for (size_t i = 1; i < trace.events().size(); ++i)
                recorded.insert(trace.events()[i].at("event").get<std::string>());
        }
        for (std::string_view name : command_event_names())
            QVERIFY2(recorded.count(std::string(name)),
                     qPrintable(QString("no committed trace records \"%1\"")
                                    .arg(QString::fromUtf8(name.data(), qsizetype(name.size())))));
    }
};

QTEST_GUILESS_MAIN(TestCommittedTraces)
#include "test_committed_traces.moc"
