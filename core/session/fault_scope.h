#pragma once
// The fault Session::inject_fault armed (command::InjectFault), live on the state for one action
// list's transaction and disarmed after it: a primitive outside a list (a rebuild, a layout
// change) has no rollback to show. A list pre-flight refuses runs no primitive, so a list applied
// again after its refused proposals left (InvalidProposals::Drop) still meets the fault.
#include <utility>

#include "core/state/state_manager.h"

namespace kvw {

class FaultScope {
public:
    FaultScope(StateManager& state, int& armed) : state_(state) {
        state_.inject_fault_at(std::exchange(armed, 0));
    }
    ~FaultScope() { state_.inject_fault_at(0); }
    FaultScope(const FaultScope&) = delete;
    FaultScope& operator=(const FaultScope&) = delete;

private:
    StateManager& state_;
};

}  // namespace kvw
