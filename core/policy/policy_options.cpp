#include "core/policy/policy_options.h"

#include <string>

#include "core/policy/policy_error.h"

namespace kvw {

void check_budget(const PolicyBudget& b) {
    if (b.sink < 0)
        throw BudgetError(BudgetField::Sink, "sink must be >= 0, got " + std::to_string(b.sink));
    if (b.budget < 0)
        throw BudgetError(BudgetField::Budget,
                          "budget must be >= 0, got " + std::to_string(b.budget));
    if (b.window < 1)
        throw BudgetError(BudgetField::Window,
                          "window must be >= 1 (the token being generated sits there), got " +
                              std::to_string(b.window));
}

}  // namespace kvw
