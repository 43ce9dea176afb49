// kvw-bench-ui (`kvw bench ui` runs it): what the window costs, measured, never asserted.
//   frame:   Session::frame() for 22 layers x N rows (N = 8k, 32k, 100k; a thin 22-layer synthetic
//            model: the Frame's cost depends on layers x rows, not on the model's width): the
//            first Frame (nothing to share) and the Frame after a one-row edit (shares what
//            the edit left alone, ARCHITECTURE §7.1).
//   repaint: every view and the layer maps fed those Frames, and built 22 x 100,000 Frames:
//            setFrame (colour map refill) and an immediate replot, per map kind, whole and
//            zoomed in; the policy view zoomed in.
//   stall:   the longest gap between two 1 ms timer ticks on the UI thread while the window
//            steps a session on the worker thread: tinyllama-shape (the real per-tick work),
//            and the run's largest session.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#include <spdlog/spdlog.h>
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

#include "app/gui/main_window.h"
#include "app/gui/session_controller.h"
#include "core/model/model_loader.h"
#include "core/session/session.h"
#include "widgets/layer_maps_view.h"
#include "widgets/log_hub.h"
#include "widgets/policy_view.h"
#include "widgets/view_registry.h"
#include "widgets/workbench_look.h"
#ifdef KVW_WITH_CUDA
#include "kernels/cuda_backend.h"
#endif

namespace kvw {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double median_ms(int repeats, const std::function<void()>& work) {
    std::vector<double> ms;
    for (int i = 0; i < repeats; ++i) {
        const auto start = Clock::now();
        work();
        ms.push_back(ms_since(start));
    }
    return median(ms);
}

void drain_events() {
    for (int i = 0; i < 4; ++i) {
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
    }
}

// Ticks whose Frames are timed after the fill.
constexpr int kTimedTicks = 3;

SessionOptions options_for(int rows) {
    SessionOptions o;
    o.backend = "cpu";
    o.capacity = rows + kTimedTicks;
    return o;
}

// A prompt, then adds up to `rows - 1` rows in one Step 4 append; the timed ticks come after.
ActionList fill_actions(int rows_now, int rows_wanted, int vocab) {
    ActionList adds;
    for (int r = rows_now; r < rows_wanted - 1; ++r)
        adds.push_back(
            Action{AddAction{int32_t(3 + (uint64_t(r) * 7919u) % uint64_t(vocab - 3))}, {}});
    return adds;
}

// The longest gap between timer ticks on the UI thread: how long the window could not react.
class StallProbe {
public:
    StallProbe() {
        timer_.setTimerType(Qt::PreciseTimer);
        timer_.setInterval(1);
        QObject::connect(&timer_, &QTimer::timeout, [this] {
            max_gap_ms_ = std::max(max_gap_ms_, since_.nsecsElapsed() / 1e6);
            since_.restart();
        });
    }
    void start() {
        max_gap_ms_ = 0;
        since_.start();
        timer_.start();
    }
    double stop() {
        timer_.stop();
        return max_gap_ms_;
    }

private:
    QTimer timer_;
    QElapsedTimer since_;
    double max_gap_ms_ = 0;
};

void wait_idle(SessionController& controller) {
    if (controller.isIdle()) return;
    QEventLoop loop;
    QObject::connect(&controller, &SessionController::becameIdle, &loop, &QEventLoop::quit);
    loop.exec();
}

// What each view costs the UI thread per Frame: setFrame, then drawing what it queued.
void bench_views(const FramePtr& a, const FramePtr& b) {
    for (const ViewInfo& info : registered_views()) {
        std::unique_ptr<FrameView> view(info.create(nullptr));
        view->resize(800, 400);
        view->show();
        view->setFrame(a);
        drain_events();
        const double ms = median_ms(5, [&, i = 0]() mutable {
            view->setFrame(++i % 2 ? b : a);
            drain_events();
            view->repaint();
        });
        std::printf("%-8s view %-12s setFrame + draw %7.2f ms\n", "", qPrintable(info.name), ms);
    }
}

void bench_repaint(const FramePtr& before, const FramePtr& after);

// The Frames of a session filled to `rows`: the first one's cost (nothing to share yet), the
// cost of one after a tick (a row appended to every layer, every brightness decayed) and after a
// one-row edit; then what the views cost to show them.
void bench_frame_and_repaint(const std::shared_ptr<const Model>& model, int rows) {
    Session session(options_for(rows), model);
    session.start("The cache remembers");
    auto start = Clock::now();
    session.apply_now(fill_actions(session.state().rows(0), rows, model->config.vocab_size));
    std::fprintf(stderr, "[bench ui] filled 22 x %d rows in %.1f s\n", rows, ms_since(start) / 1e3);
    const auto cold_start = Clock::now();
    const FramePtr before = session.frame();  // the first: nothing to share yet
    const double first_ms = ms_since(cold_start);
    FramePtr after;  // brightness that differs from `before`
    std::vector<double> tick_ms;
    for (int i = 0; i < kTimedTicks; ++i) {
        session.step();
        const auto start = Clock::now();
        after = session.frame();
        tick_ms.push_back(ms_since(start));
    }
    // Then edits that change one row (a delete in one layer), and the Frame after each.
    std::vector<double> edit_ms;
    for (int i = 0; i < 3; ++i) {
        session.apply_now({Action{DeleteAction{rows / 2 + i}, {i}}});
        const auto start = Clock::now();
        (void)session.frame();
        edit_ms.push_back(ms_since(start));
    }
    std::printf(
        "%-8d frame build: first %7.2f ms, after a tick %7.2f ms, after an edit of one row %7.2f "
        "ms  (%d layers x %d rows, %zu ledger records)\n",
        rows, first_ms, median(tick_ms), median(edit_ms), int(after->layers.size()),
        after->layers[0].rows(), after->ledger.size());
    bench_repaint(before, after);
}

// A Frame of `layers` x `rows` built directly (no session: prefilling 100,000 rows costs a few
// minutes of quadratic attention on these machines), with brightness that differs
// by `phase`, so that two of them make the views redraw.
FramePtr built_frame(int layers, int rows, int phase) {
    auto f = std::make_shared<Frame>();
    f->tick = rows;
    f->capacity = rows;
    std::vector<LedgerRecord> records(static_cast<size_t>(rows));
    for (int id = 0; id < rows; ++id) {
        LedgerRecord& r = records[size_t(id)];
        r.id = id;
        r.kind = EntryKind::Generated;
        r.token_id = 3 + id % 1000;
        r.piece = "tok" + std::to_string(id % 1000);
        r.born_tick = id;
        r.status.assign(size_t(layers), RowStatus::Live);
        r.removal.assign(size_t(layers), Removal{});
    }
    f->ledger = LedgerRecords(std::move(records), size_t(Ledger::kChunkRecords));
    for (int l = 0; l < layers; ++l) {
        LayerFrame lf;
        std::vector<int64_t> ids(static_cast<size_t>(rows));
        std::vector<int32_t> phases(static_cast<size_t>(rows));
        std::vector<float> brightness(static_cast<size_t>(rows));
        for (int r = 0; r < rows; ++r) {
            ids[size_t(r)] = r;
            phases[size_t(r)] = r;
            brightness[size_t(r)] = float((r * 7 + l * 13 + phase) % 256);
        }
        // Row r holds record r, so the column by id is the brightness by row.
        lf.record_brightness =
            ChunkedRecords<float>(std::move(brightness), size_t(Ledger::kChunkRecords));
        lf.pos2ledger = std::move(ids);
        lf.rope_pos = std::move(phases);
        f->layers.push_back(std::move(lf));
    }
    return f;
}

void bench_built_frames(int rows) {
    std::printf("%-8d built Frames (22 layers x %d rows, no session)\n", rows, rows);
    bench_repaint(built_frame(22, rows, 0), built_frame(22, rows, 1));
}

// What the views and the layer maps cost the UI thread to show `before`, then `after`.
void bench_repaint(const FramePtr& before, const FramePtr& after) {
    const int rows = after->layers[0].rows();
    LayerMapsView view;
    view.resize(1400, 560);
    view.show();
    view.setFrame(before);
    drain_events();
    bench_views(before, after);
    for (const MapSpec& spec : map_specs()) {
        if (spec.kind == MapKind::Drift) continue;  // needs a measured drift: another prefill
        view.setMapKind(spec.kind);
        drain_events();
        std::vector<double> refill, replot;
        for (int i = 0; i < 8; ++i) {
            const auto t0 = Clock::now();
            view.setFrame(i % 2 ? before : after);
            refill.push_back(ms_since(t0));
            const auto t1 = Clock::now();
            view.plot()->replot(QCustomPlot::rpImmediateRefresh);
            replot.push_back(ms_since(t1));
            drain_events();  // the queued replot the view asked for, outside the timing
        }
        std::printf("%-8s maps %-22s setFrame %6.2f ms + replot %6.2f ms = %6.2f ms\n", "",
                    qPrintable(spec.title), median(refill), median(replot),
                    median(refill) + median(replot));
    }
    // Zoomed in on 1,000 rows in the middle: the detail reads those rows, the overview all.
    view.setMapKind(MapKind::Brightness);
    view.setVisibleRows(rows / 2 - 500, rows / 2 + 500);
    drain_events();
    std::vector<double> zoomed;
    for (int i = 0; i < 8; ++i) {
        const auto t0 = Clock::now();
        view.setFrame(i % 2 ? before : after);
        view.plot()->replot(QCustomPlot::rpImmediateRefresh);
        view.overview()->replot(QCustomPlot::rpImmediateRefresh);
        zoomed.push_back(ms_since(t0));
        drain_events();
    }
    std::printf(
        "%-8s maps brightness zoomed to 1,000 rows + overview: setFrame + replots %6.2f ms\n", "",
        median(zoomed));
    // The policy view zoomed in on 1,000 records in the middle: it reads only those.
    PolicyView policy;
    policy.resize(800, 400);
    policy.show();
    policy.setFrame(before);
    policy.setVisibleRecords(rows / 2 - 500, rows / 2 + 500);
    drain_events();
    const double policy_ms = median_ms(5, [&, i = 0]() mutable {
        policy.setFrame(++i % 2 ? after : before);
        drain_events();
        policy.repaint();
    });
    std::printf("%-8s view policy zoomed to 1,000 records: setFrame + draw %7.2f ms\n", "",
                policy_ms);
}

// The UI thread's own work per Frame: the window's frame slot runs between these two, because
// slots run in the order they were connected.
struct FrameWork {
    Clock::time_point began;
    double max_ms = 0;
};

void bench_stall(SessionController& controller, FrameWork& work, const char* label, int ticks) {
    StallProbe probe;
    work.max_ms = 0;
    const auto start = Clock::now();
    probe.start();
    controller.step(ticks);
    wait_idle(controller);
    const double stall = probe.stop();
    const FramePtr f = controller.lastFrame();
    std::printf(
        "stall    %-34s longest UI gap %6.1f ms over %d ticks (%.0f ms/tick on %s); "
        "window's work per Frame at most %.1f ms\n",
        label, stall, ticks, ms_since(start) / ticks, f ? f->backend.c_str() : "?", work.max_ms);
}

}  // namespace
}  // namespace kvw

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // a line as soon as it is measured
    const QStringList args = app.arguments();
    // --quick: 2,048 and 8,192 rows, no built 100k Frames, no tinyllama-shape stall (2.2 GB, slow)
    const bool quick = args.contains("--quick");
    // --built-only: the built 22 x 100,000 Frames alone, which need no session (seconds,
    // against the minutes of prefilling the sessions)
    const bool built_only = args.contains("--built-only");
    if (args.contains("--help")) {
        std::puts(
            "usage: kvw-bench-ui [--quick] [--built-only]\n"
            "  --quick       2k and 8k rows only, no built 100k Frames, no tinyllama-shape stall\n"
            "  --built-only  only every view and the maps on built 22 x 100,000 Frames (no\n"
            "                session: no prefill, no Frame build, no stall)");
        return 0;
    }
    spdlog::set_level(spdlog::level::warn);
    kvw::log_hub();
#ifdef KVW_WITH_CUDA
    kvw::register_cuda_backend();
#endif
    kvw::apply_workbench_look(app);
    if (built_only) {
        kvw::bench_built_frames(100000);
        return 0;
    }

    const std::vector<int> sizes =
        quick ? std::vector<int>{2048, 8192} : std::vector<int>{8192, 32768, 100000};
    const int largest = sizes.back();
    const auto model = kvw::load_model("synthetic:thin-22");
    for (int rows : sizes) kvw::bench_frame_and_repaint(model, rows);
    if (!quick) kvw::bench_built_frames(100000);

    kvw::SessionController controller;
    kvw::FrameWork work;
    QObject::connect(&controller, &kvw::SessionController::frameReady,
                     [&work] { work.began = kvw::Clock::now(); });
    kvw::MainWindow window(controller, {true, {1600, 1000}});
    QObject::connect(&controller, &kvw::SessionController::frameReady,
                     [&work] { work.max_ms = std::max(work.max_ms, kvw::ms_since(work.began)); });
    window.show();
    kvw::drain_events();

    controller.adoptModel(model, kvw::options_for(largest));
    controller.startPrompt("The cache remembers");
    kvw::wait_idle(controller);
    const int prompt_rows = controller.lastFrame()->layers[0].rows();
    controller.postCommand(kvw::command::ApplyNow{
        kvw::fill_actions(prompt_rows, largest - 16, model->config.vocab_size)});
    kvw::wait_idle(controller);
    const std::string label = "22 x " + std::to_string(largest - 16) + " rows (thin model)";
    kvw::bench_stall(controller, work, label.c_str(), 8);

    if (!quick) {
        controller.loadModel("synthetic:tinyllama-shape", "auto");
        controller.startPrompt("The cache remembers the tokens it was given");
        kvw::wait_idle(controller);
        kvw::bench_stall(controller, work, "tinyllama-shape f16", 8);
    }
    return 0;
}
