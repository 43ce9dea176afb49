#include "app/gui/app_options.h"

#include <cstdio>
#include <string_view>

#include <QCommandLineParser>
#include <QRegularExpression>

namespace kvw {

bool headless_run(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (std::string_view(argv[i]) == "--script" || std::string_view(argv[i]) == "--bundle")
            return true;
    return false;
}

std::optional<AppOptions> parse_app_options(const QStringList& arguments, int& exit_code) {
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "KV Workbench: step a Llama-family model tick by tick and inspect its KV cache.\n"
        "Headless: QT_QPA_PLATFORM=offscreen kv-workbench --script FILE --shots DIR");
    parser.addHelpOption();
    const QCommandLineOption model("model",
                                   "Model: a .gguf file, a Hugging Face folder, "
                                   "builtin:default (the default) or "
                                   "synthetic:tiny|synthetic:tinyllama-shape.",
                                   "SPEC");
    const QCommandLineOption prompt("prompt", "Prompt to start after loading.", "TEXT");
    const QCommandLineOption backend(
        "backend",
        "auto (the default: the fastest here, cuda where usable, else cpu:fast, else cpu), cpu "
        "(the numeric reference), cpu:fast, cuda, or a pinned CPU kernel (cpu:avx2, ...). With "
        "--trace: replay on it instead of the backend the trace recorded.",
        "NAME");
    const QCommandLineOption trace("trace",
                                   "Open a recorded session (kvw run --trace, File → Save "
                                   "trace): replayed to its last tick; --model replaces the "
                                   "trace's model.",
                                   "FILE");
    const QCommandLineOption script("script", "Run a .kvs script, then exit (0: it passed).",
                                    "FILE");
    const QCommandLineOption shots("shots", "Where the script's shots are written.", "DIR");
    const QCommandLineOption compare("compare",
                                     "Compare every shot with DIR/NAME.png; "
                                     "KVW_UPDATE_GOLDEN=1 rewrites them instead.",
                                     "DIR");
    const QCommandLineOption tolerance("tolerance",
                                       "Largest per-channel difference that "
                                       "still compares equal (default 8).",
                                       "N");
    const QCommandLineOption bundle("bundle",
                                    "Headless: after the model, trace and script, write the "
                                    "session bundle (window, every view's CSV / JSON / PNG, "
                                    "the trace) to DIR and exit (0: all written).",
                                    "DIR");
    const QCommandLineOption size("size", "Window size (default 1600x1000).", "WxH");
    parser.addOptions(
        {model, prompt, backend, trace, script, shots, compare, tolerance, bundle, size});

    const auto usage_error = [&](const QString& message) -> std::optional<AppOptions> {
        std::fprintf(stderr, "kv-workbench: %s\n%s", qPrintable(message),
                     qPrintable(parser.helpText()));
        exit_code = 2;
        return std::nullopt;
    };
    if (!parser.parse(arguments)) return usage_error(parser.errorText());
    if (parser.isSet("help")) {
        std::fputs(qPrintable(parser.helpText()), stdout);
        exit_code = 0;
        return std::nullopt;
    }
    if (!parser.positionalArguments().isEmpty())
        return usage_error("unexpected " + parser.positionalArguments().join(" "));

    AppOptions o;
    o.model = parser.value(model);
    o.prompt = parser.value(prompt);
    o.backend = parser.value(backend);
    o.trace = parser.value(trace);
    o.script = parser.value(script);
    o.bundle = parser.value(bundle);
    o.shots = parser.value(shots);
    o.golden = parser.value(compare);
    if (parser.isSet(tolerance)) {
        bool ok = false;
        o.tolerance = parser.value(tolerance).toInt(&ok);
        if (!ok || o.tolerance < 0 || o.tolerance > 255)
            return usage_error("--tolerance takes 0..255");
    }
    if (parser.isSet(size)) {
        const QRegularExpressionMatch m =
            QRegularExpression("^(\\d{3,4})x(\\d{3,4})$").match(parser.value(size));
        if (!m.hasMatch()) return usage_error("--size takes WxH, e.g. 1600x1000");
        o.size = QSize(m.captured(1).toInt(), m.captured(2).toInt());
    }
    if ((!o.shots.isEmpty() || !o.golden.isEmpty()) && o.script.isEmpty())
        return usage_error("--shots and --compare need --script");
    return o;
}

}  // namespace kvw
