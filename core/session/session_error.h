#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "core/state/action_validation.h"

namespace kvw {

// inject() refused a list: pre-flight found these faults against the current state, and
// nothing was queued.
class ActionsRejected : public std::runtime_error {
public:
    explicit ActionsRejected(std::vector<ValidationError> errors);
    const std::vector<ValidationError>& errors() const { return errors_; }

private:
    std::vector<ValidationError> errors_;
};

// A command that needs a started session (a prompt) came before start().
class SessionNotStarted : public std::logic_error {
public:
    explicit SessionNotStarted(const std::string& command);
};

// Undo, redo, restore or fork (ARCHITECTURE §15) could not do what was asked; the session is
// left as it was, except after NotReproduced from redo (see Session::redo).
enum class HistoryErrorKind {
    NothingToUndo,    // fewer commands in the trace than steps asked
    NothingToRedo,    // the redo stack is empty or a new command dropped it
    UnknownSnapshot,  // no snapshot of that name
    NoSuchTick,       // fork: the current sequence never reached that tick
    NotReproduced,    // repeating the trace gave another outcome than the one recorded
};

class HistoryError : public std::runtime_error {
public:
    HistoryError(HistoryErrorKind kind, const std::string& message);
    HistoryErrorKind kind() const { return kind_; }

private:
    HistoryErrorKind kind_;
};

}  // namespace kvw
