// Traces and outputs that survive a kill or a failed write (issue 26 item 1): the live trace
// file grows a line per event, a replaced file is written beside its target and renamed, a
// failed write names the reason and leaves the old file whole, and a trace cut mid-line reads
// up to its last whole line.
#include <QtTest>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/resource.h>

#include "core/io/replacing_file.h"
#include "core/model/model_loader.h"
#include "core/session/session.h"
#include "core/session/trace_file.h"

using namespace kvw;
namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

size_t lines_in(const std::string& text) {
    return size_t(std::count(text.begin(), text.end(), '\n'));
}

// Files may grow to `bytes` at most while it lives: a write past that fails with EFBIG, as a
// full disk fails with ENOSPC (SIGXFSZ, which would end the process, is ignored meanwhile).
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes) {
        getrlimit(RLIMIT_FSIZE, &saved_);
        previous_ = std::signal(SIGXFSZ, SIG_IGN);
        rlimit limited = saved_;
        limited.rlim_cur = bytes;
        setrlimit(RLIMIT_FSIZE, &limited);
    }
    ~FileSizeLimit() {
        setrlimit(RLIMIT_FSIZE, &saved_);
        std::signal(SIGXFSZ, previous_);
    }

private:
    rlimit saved_{};
    void (*previous_)(int) = nullptr;
};

SessionOptions tiny_options() {
    SessionOptions o;
    o.model = "synthetic:tiny";
    o.capacity = 128;
    o.sampling.seed = 3;
    return o;
}

// Names of the files in `dir`, to see that no temporary file is left behind.
std::vector<std::string> names_in(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace

class TestTraceFile : public QObject {
    Q_OBJECT
private slots:
    void a_failed_write_keeps_the_old_file_and_says_why() {
        QTemporaryDir dir;
        const fs::path target = fs::path(dir.path().toStdString()) / "t.ndjson";
        Session session(tiny_options(), load_model("synthetic:tiny"));
        session.start("a good trace");
        session.trace().write(target);
        const std::string good = read_text(target);
        QVERIFY(lines_in(good) == 2);
        for (int i = 0; i < 40; ++i) session.step();
        {
            // The longer trace does not fit: before, the file was truncated first and left cut.
            const FileSizeLimit limit(good.size() + 100);
            try {
                session.trace().write(target);
                QFAIL("the write past the size limit succeeded");
            } catch (const FileWriteError& e) {
                const std::string what = e.what();
                QVERIFY2(what.find(target.string()) != std::string::npos, what.c_str());
                QVERIFY2(what.find(std::strerror(EFBIG)) != std::string::npos, what.c_str());
            }
        }
        QCOMPARE(read_text(target), good);
        QCOMPARE(names_in(target.parent_path()), std::vector<std::string>{"t.ndjson"});
    }

    void the_file_appears_only_when_complete() {
        QTemporaryDir dir;
        const fs::path target = fs::path(dir.path().toStdString()) / "out.bin";
        write_file_atomically(target, std::string_view("old"));
        {
            ReplacingFile file(target);
            file.append(std::string_view("new bytes"));
            QCOMPARE(read_text(target), std::string("old"));  // not yet
            QCOMPARE(file.temporary().parent_path(), target.parent_path());
            QCOMPARE(read_text(file.temporary()), std::string("new bytes"));
        }  // destroyed without commit(): the target stays, the temporary file goes
        QCOMPARE(read_text(target), std::string("old"));
        QCOMPARE(names_in(target.parent_path()), std::vector<std::string>{"out.bin"});
        write_file_atomically(target, std::string_view("new"));
        QCOMPARE(read_text(target), std::string("new"));
    }

    void a_folder_that_vanished_is_named_with_the_reason() {
        QTemporaryDir dir;
        const fs::path folder = fs::path(dir.path().toStdString()) / "gone";
        fs::create_directory(folder);
        ReplacingFile file(folder / "x.ndjson");
        file.append(std::string_view("{}\n"));
        fs::remove_all(folder);
        try {
            file.commit();
            QFAIL("renamed into a folder that is gone");
        } catch (const FileWriteError& e) {
            QCOMPARE(e.error(), ENOENT);
            QVERIFY2(
                std::string(e.what()).find((folder / "x.ndjson").string()) != std::string::npos,
                e.what());
        }
        QVERIFY_THROWS_EXCEPTION(FileWriteError, write_file_atomically(folder / "y", "z"));
    }

    void the_live_trace_grows_with_every_tick() {
        QTemporaryDir dir;
        const fs::path target = fs::path(dir.path().toStdString()) / "live.ndjson";
        write_file_atomically(target, std::string_view("an older trace\n"));
        Session session(tiny_options(), load_model("synthetic:tiny"));
        TraceFile live(target);
        // Nothing synced yet: the older file is still whole.
        QCOMPARE(read_text(target), std::string("an older trace\n"));
        session.start("live");
        live.sync(session.trace());
        QCOMPARE(lines_in(read_text(target)), size_t(2));
        for (size_t i = 1; i <= 5; ++i) {
            session.step();
            live.sync(session.trace());
            // On disk before close(): what a SIGKILL now would leave.
            QCOMPARE(lines_in(read_text(target)), 2 + i);
        }
        QCOMPARE(Trace::read(target).to_ndjson(), session.trace().to_ndjson());
        // Undo drops events: the file is written again, as the trace is now.
        session.undo(2);
        live.sync(session.trace());
        QCOMPARE(read_text(target), session.trace().to_ndjson());
        session.step();
        live.sync(session.trace());
        QCOMPARE(read_text(target), session.trace().to_ndjson());
        live.close();
        QCOMPARE(names_in(target.parent_path()), std::vector<std::string>{"live.ndjson"});
    }

    void a_trace_cut_mid_line_reads_to_its_last_whole_line() {
        Session session(tiny_options(), load_model("synthetic:tiny"));
        session.start("cut");
        for (int i = 0; i < 4; ++i) session.step();
        const std::string whole = session.trace().to_ndjson();
        const std::string cut = whole.substr(0, whole.size() - 25);  // inside tick 4's line
        const Trace trace = Trace::parse(cut, "cut.ndjson");
        QCOMPARE(trace.events().size(), size_t(5));  // header, start, ticks 1-3
        QCOMPARE(trace.cut_line(), size_t(6));
        QCOMPARE(trace.cut_note(), std::string("trace ends at tick 3 (incomplete last line 6)"));
        // A whole trace has no note; a broken line that is not the last one stays an error.
        QCOMPARE(Trace::parse(whole).cut_line(), size_t(0));
        QVERIFY(Trace::parse(whole).cut_note().empty());
        QVERIFY_THROWS_EXCEPTION(TraceError, Trace::parse(cut + "\n" + "{\"event\":\"x\"}\n"));
    }
};

QTEST_GUILESS_MAIN(TestTraceFile)
#include "test_trace_file.moc"
