// kv-workbench: the workbench window, or (--script) a headless run of a .kvs script.
#include <cstdio>

#include <spdlog/spdlog.h>
#include <QApplication>
#include <QTimer>

#include "app/gui/app_options.h"
#include "app/gui/main_window.h"
#include "app/gui/script_runner.h"
#include "app/gui/session_bundle.h"
#include "app/gui/session_controller.h"
#include "core/model/model_loader.h"
#include "core/script/script_parser.h"
#include "widgets/log_hub.h"
#include "widgets/workbench_look.h"
#ifdef KVW_WITH_CUDA
#include "kernels/cuda_backend.h"
#endif

namespace {

constexpr const char* kDefaultPrompt = "In the beginning God created";

int run_script(kvw::SessionController& controller, kvw::MainWindow& window,
               const kvw::AppOptions& options) {
    kvw::ShotOptions shots{options.shots, options.golden, options.tolerance,
                           qEnvironmentVariable("KVW_UPDATE_GOLDEN") == "1"};
    kvw::ScriptRunner runner(controller, window, shots);
    try {
        const int mismatches = runner.run(kvw::read_script_file(options.script.toStdString()));
        for (const QString& path : runner.written()) std::printf("shot: %s\n", qPrintable(path));
        if (mismatches > 0) {
            std::fprintf(stderr, "%s: %d shot(s) differ from the golden images\n",
                         qPrintable(options.script), mismatches);
            return 1;
        }
        return 0;
    } catch (const kvw::ScriptError& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}

// --bundle: the session once every command is done (the caller waits); exit status 1 when a
// command failed on the way (its message is on stderr: the bundle would not show what was asked
// for) or a file could not be written.
int write_bundle(kvw::SessionController& controller, kvw::MainWindow& window, const QString& dir,
                 const QStringList& errors) {
    if (!errors.isEmpty()) {
        std::fprintf(stderr, "kv-workbench: no bundle written: %s\n",
                     qPrintable(errors.join("; ")));
        return 1;
    }
    if (!controller.lastFrame()) {
        std::fprintf(stderr,
                     "kv-workbench: no bundle written: no session (give --model, --trace "
                     "or --script)\n");
        return 1;
    }
    const QStringList problems = kvw::export_session_bundle(window, controller, dir);
    controller.waitUntilIdle();  // the trace is written by the worker
    if (!problems.isEmpty()) {
        std::fprintf(stderr, "kv-workbench: bundle %s: %s\n", qPrintable(dir),
                     qPrintable(problems.join("; ")));
        return 1;
    }
    std::printf("bundle: %s\n", qPrintable(dir));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const bool headless = kvw::headless_run(argc, argv);
    if (headless) {
        // The same pixels on every machine (STYLE.md, deterministic screenshots): no display's
        // DPI or scaling gets in, unless a platform is asked for explicitly.
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
        qputenv("QT_ENABLE_HIGHDPI_SCALING", "0");
        qputenv("QT_SCALE_FACTOR", "1");
    }
    QApplication app(argc, argv);
    int exit_code = 0;
    const std::optional<kvw::AppOptions> options =
        kvw::parse_app_options(app.arguments(), exit_code);
    if (!options) return exit_code;

    spdlog::set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
    kvw::log_hub();  // before the worker thread can log (widgets/log_hub.h)
#ifdef KVW_WITH_CUDA
    kvw::register_cuda_backend();
#endif
    kvw::apply_workbench_look(app);
    kvw::set_wall_clock_hidden(headless);

    kvw::SessionController controller;
    QStringList errors;
    QObject::connect(&controller, &kvw::SessionController::errorOccurred,
                     [&errors](const QString& message) { errors << message; });
    kvw::MainWindow window(controller, {headless, options->size});
    // Unnamed, the fastest backend here; the screenshot tests pin the reference (--backend cpu).
    window.setBackend(options->backend.isEmpty() ? "auto" : options->backend);
    window.setPrompt(options->prompt.isEmpty() && !headless ? kDefaultPrompt : options->prompt);
    window.show();
    if (!options->trace.isEmpty()) {
        window.openTrace(options->trace, options->model, options->backend);
    } else {
        const QString model =
            options->model.isEmpty() && !headless ? kvw::kDefaultModelSpec : options->model;
        if (!model.isEmpty()) window.openModel(model);
    }

    if (!options->script.isEmpty()) {
        const int script_result = run_script(controller, window, *options);
        if (script_result != 0 || options->bundle.isEmpty()) return script_result;
    }
    // A script judges its own errors (it may test a rejection); without one, any error counts.
    if (!options->bundle.isEmpty()) {
        controller.waitUntilIdle();  // so that `errors` holds every command's outcome
        return write_bundle(controller, window, options->bundle,
                            options->script.isEmpty() ? errors : QStringList{});
    }
    return app.exec();
}
