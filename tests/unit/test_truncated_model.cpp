// A mapped model truncated by another process while a session uses it (issue 26 item 2): the
// next command that reads weights fails with ModelError(Truncated) instead of the process
// dying of SIGBUS, the session stays at its last tick, and its live trace keeps every tick.
#include <QtTest>

#include <filesystem>

#include <unistd.h>

#include "core/io/replacing_file.h"
#include "core/model/gguf_model_loader.h"
#include "core/model/mapped_file.h"
#include "core/model/model_error.h"
#include "core/model/synthetic_model.h"
#include "core/session/session.h"
#include "core/session/trace_file.h"

using namespace kvw;
namespace fs = std::filesystem;

class TestTruncatedModel : public QObject {
    Q_OBJECT
private slots:
    void a_shrunk_model_file_is_a_typed_error_and_the_trace_survives() {
        QTemporaryDir dir;
        const fs::path model_path = fs::path(dir.path().toStdString()) / "tiny.gguf";
        const fs::path trace_path = fs::path(dir.path().toStdString()) / "run.ndjson";
        write_file_atomically(model_path, write_synthetic_gguf(synthetic_spec("tiny")));
        // map_file, not load_model: a file this small would be read into memory, which no
        // truncation can touch.
        const std::shared_ptr<const Model> model = load_gguf_model(map_file(model_path.string()));
        SessionOptions options;
        options.model = model_path.string();
        options.capacity = 128;
        Session session(options, model);
        TraceFile trace(trace_path);
        session.start("the model goes away");
        trace.sync(session.trace());
        for (int i = 0; i < 3; ++i) {
            session.step();
            trace.sync(session.trace());
        }
        const uint64_t hash = session.state_hash();

        // Another process cuts the file (as `cp other.gguf tiny.gguf` or a writer that
        // truncates first would): the pages past the new end are gone from the mapping.
        QCOMPARE(::truncate(model_path.c_str(), 4096), 0);
        try {
            session.step();
            QFAIL("a tick ran on a truncated model");
        } catch (const ModelError& e) {
            QCOMPARE(e.kind(), ModelErrorKind::Truncated);
            QCOMPARE(e.file(), model_path.string());
            QVERIFY2(std::string(e.what()).find("shrank") != std::string::npos, e.what());
        }
        // Every command that reads weights refuses the same way, before changing anything.
        QVERIFY_THROWS_EXCEPTION(ModelError, session.rebuild());
        QCOMPARE(session.tick(), 3);
        QCOMPARE(session.state_hash(), hash);
        trace.close();
        const Trace kept = Trace::read(trace_path);
        QCOMPARE(kept.events().size(), size_t(5));  // header, start, ticks 1-3
        QCOMPARE(kept.events().back().at("tick").get<int>(), 3);
        QCOMPARE(kept.cut_line(), size_t(0));
    }
};

QTEST_GUILESS_MAIN(TestTruncatedModel)
#include "test_truncated_model.moc"
