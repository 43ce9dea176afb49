#pragma once
#include <functional>

#include <QString>

namespace kvw {

// What became of one command the window waits on: a settings dialog stays open until the
// session took its values, and shows a refusal beside the field it is about (ARCHITECTURE §6).
struct CommandOutcome {
    QString error;    // empty: the command was done
    QString setting;  // the setting the error is about (core/session/refused_setting.h); or empty
    bool done() const { return error.isEmpty(); }
};

// Called on the UI thread once the command ran (or was skipped by a cancel).
using OutcomeHandler = std::function<void(const CommandOutcome&)>;

}  // namespace kvw
