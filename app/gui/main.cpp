// kv-workbench: the workbench window, or (--script) a headless run of a .kvs script.
#include <cstdio>

#include <spdlog/spdlog.h>
#include <QApplication>
#include <QTimer>

#include "app/gui/app_options.h"
#include "app/gui/main_window.h"
#include "app/gui/script_runner.h"
#include "app/gui/session_controller.h"
#include "core/backend/backend_registry.h"
#include "core/model/model_loader.h"
#include "core/script/script_parser.h"
#include "widgets/log_hub.h"
#include "widgets/workbench_look.h"
#ifdef KVW_WITH_CUDA
#include "kernels/cuda_backend.h"
#endif

namespace {

constexpr const char* kDefaultPrompt = "In the beginning God created";

QString default_backend() {
    std::string why;
    return kvw::backend_available("cuda", why) ? "cuda" : "cpu";
}

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

}  // namespace

int main(int argc, char** argv) {
    const bool script_mode = [&] {
        for (int i = 1; i < argc; ++i)
            if (std::string_view(argv[i]) == "--script") return true;
        return false;
    }();
    if (script_mode) {
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
    kvw::set_wall_clock_hidden(script_mode);

    kvw::SessionController controller;
    kvw::MainWindow window(controller, {script_mode, options->size});
    window.setBackend(options->backend.isEmpty() ? (script_mode ? "cpu" : default_backend())
                                                 : options->backend);
    window.setPrompt(options->prompt.isEmpty() && !script_mode ? kDefaultPrompt : options->prompt);
    window.show();
    const QString model =
        options->model.isEmpty() && !script_mode ? kvw::kDefaultModelSpec : options->model;
    if (!model.isEmpty()) window.openModel(model);

    if (script_mode) return run_script(controller, window, *options);
    return app.exec();
}
