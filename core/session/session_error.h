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

}  // namespace kvw
