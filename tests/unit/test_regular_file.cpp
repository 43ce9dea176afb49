// Every reader of a file (a model, a gate, a gist net, a trace, an action list, a script, a
// text) refuses what is not a regular file at once — a FIFO used to block the open forever,
// /dev/zero to be read without end — and a file over its bound, naming the file and the limit
// (core/io/regular_file.h).
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/gist/gist_file.h"
#include "core/io/regular_file.h"
#include "core/model/mapped_file.h"
#include "core/model/model_error.h"
#include "core/model/model_loader.h"
#include "core/model/weight_file.h"
#include "core/policy/gate/gate_file.h"
#include "core/script/script_error.h"
#include "core/script/script_parser.h"
#include "core/session/trace.h"
#include "core/state/action_json.h"

using namespace kvw;

namespace {

// A directory of the run's own, removed when the program ends.
std::filesystem::path scratch() {
    static const QTemporaryDir dir;
    return dir.path().toStdString();
}

// Runs `read` on another thread: it must end (throw) within five seconds. A reader still
// blocked then is released by a writer opening and closing the FIFO, and the test fails.
std::string refusal_of(const std::filesystem::path& fifo, const std::function<void()>& read) {
    std::future<std::string> done = std::async(std::launch::async, [&] {
        try {
            read();
        } catch (const std::exception& e) {
            return std::string(e.what());
        }
        return std::string("(read without an error)");
    });
    if (done.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
        const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
        if (fd >= 0) ::close(fd);
        done.wait();
        return "(blocked on the FIFO)";
    }
    return done.get();
}

}  // namespace

class TestRegularFile : public QObject {
    Q_OBJECT

private slots:
    void a_fifo_is_refused_by_every_reader_without_waiting() {
        const auto fifo = scratch() / "fifo.gguf";
        std::filesystem::remove(fifo);
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        const std::string path = fifo.string();
        const std::vector<std::pair<const char*, std::function<void()>>> readers = {
            {"read_regular_file", [&] { read_regular_file(path, 1024); }},
            {"map_file", [&] { map_file(path); }},
            {"read_into_huge_pages", [&] { read_into_huge_pages(path); }},
            {"load_model", [&] { load_model(path); }},
            {"read_gate_file", [&] { read_gate_file(path); }},
            {"read_gist_net_file", [&] { read_gist_net_file(path); }},
            {"Trace::read", [&] { Trace::read(path); }},
            {"read_action_list_file", [&] { read_action_list_file(path); }},
            {"read_script_file", [&] { read_script_file(path); }},
        };
        for (const auto& [name, read] : readers) {
            const std::string what = refusal_of(fifo, read);
            QVERIFY2(what.find("is a FIFO, not a regular file") != std::string::npos,
                     (std::string(name) + ": " + what).c_str());
            QVERIFY2(what.find(path) != std::string::npos,
                     (std::string(name) + ": " + what).c_str());
        }
        std::filesystem::remove(fifo);
    }

    // /dev/zero never ends: it used to be read at about 1 GB/s until memory ran out.
    void a_device_is_refused_with_its_kind() {
        try {
            Trace::read("/dev/zero");
            QFAIL("/dev/zero was read as a trace");
        } catch (const TraceError& e) {
            QVERIFY2(std::string(e.what()).find("/dev/zero: is a character device, not a regular "
                                                "file") != std::string::npos,
                     e.what());
        }
        try {
            read_action_list_file("/dev/zero");
            QFAIL("/dev/zero was read as actions");
        } catch (const ActionParseError& e) {
            QCOMPARE(e.kind(), ActionParseErrorKind::CannotRead);
            QVERIFY2(std::string(e.what()).find("character device") != std::string::npos, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(ScriptError, read_script_file("/dev/zero"));
    }

    void a_file_over_the_bound_names_the_limit() {
        const auto file = scratch() / "big.txt";
        std::ofstream(file) << std::string(3000, 'x');
        QCOMPARE(read_regular_file(file, 3000).size(), size_t(3000));
        try {
            read_regular_file(file, 2048, "raise it with --never");
            QFAIL("a file over the bound was read");
        } catch (const FileReadError& e) {
            QCOMPARE(e.kind(), FileFaultKind::TooLarge);
            QCOMPARE(std::string(e.what()),
                     file.string() +
                         ": is larger than the 2 KiB this reader takes (raise it with --never)");
        }
        std::filesystem::remove(file);
    }

    void a_trace_line_over_the_bound_names_the_line_and_limit() {
        std::string text = "{\"kvw_trace\":1}\n{\"event\":\"start\",\"prompt\":\"";
        text += std::string(kMaxTraceLineBytes, 'a');
        text += "\"}\n";
        try {
            Trace::parse(text, "long.ndjson");
            QFAIL("a line over the bound was parsed");
        } catch (const TraceError& e) {
            QCOMPARE(e.line(), size_t(2));
            QVERIFY2(std::string(e.what()).find("64 MiB") != std::string::npos, e.what());
        }
    }

    void missing_files_keep_their_reason() {
        try {
            Trace::read("/no/such/trace.ndjson");
            QFAIL("read");
        } catch (const TraceError& e) {
            QVERIFY2(std::string(e.what()).find("cannot open the file: No such file") !=
                         std::string::npos,
                     e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestRegularFile)
#include "test_regular_file.moc"
