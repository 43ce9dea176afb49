#include "core/session/session_error.h"

namespace kvw {

namespace {

std::string describe(const std::vector<ValidationError>& errors) {
    std::string text = "action list rejected:";
    for (const ValidationError& e : errors) text += " [" + e.message + "]";
    return text;
}

}  // namespace

ActionsRejected::ActionsRejected(std::vector<ValidationError> errors)
    : std::runtime_error(describe(errors)), errors_(std::move(errors)) {}

SessionNotStarted::SessionNotStarted(const std::string& command)
    : std::logic_error(command + ": the session has no prompt yet (start it first)") {}

HistoryError::HistoryError(HistoryErrorKind kind, const std::string& message)
    : std::runtime_error(message), kind_(kind) {}

}  // namespace kvw
