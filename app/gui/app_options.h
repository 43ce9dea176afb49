#pragma once
#include <optional>

#include <QSize>
#include <QString>
#include <QStringList>

namespace kvw {

// The command line of kv-workbench.
struct AppOptions {
    QString model;    // --model SPEC: load at start
    QString prompt;   // --prompt TEXT: start it after the load
    QString backend;  // --backend NAME; empty: "auto" (with --trace: the recorded one)
    QString trace;    // --trace FILE: open a recorded session (replayed to its last tick)
    QString script;   // --script FILE: run it, then exit with its result
    QString bundle;   // --bundle DIR: write the session bundle at the end, then exit
    QString shots;    // --shots DIR: where `shot` writes
    QString golden;   // --compare DIR: golden images to compare the shots with
    int tolerance = 8;
    QSize size{1600, 1000};  // --size WxH
};

// Headless runs (--script, --bundle) draw offscreen with fixed pixels and exit at the end.
bool headless_run(int argc, char** argv);

// Parses `arguments` (argv, program name first). Returns the options, or nullopt after
// printing the usage or an error to stderr (`exit_code` says which: 0 for --help, 2 for a
// usage error).
std::optional<AppOptions> parse_app_options(const QStringList& arguments, int& exit_code);

}  // namespace kvw
