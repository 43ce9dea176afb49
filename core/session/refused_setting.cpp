#include "core/session/refused_setting.h"

#include "core/cache/cache_capacity.h"
#include "core/cache/cache_error.h"
#include "core/cache/ring_options.h"
#include "core/policy/policy_error.h"
#include "core/session/option_conflicts.h"

namespace kvw {

std::string refused_setting(const std::exception& error) {
    if (const auto* e = dynamic_cast<const BudgetError*>(&error)) {
        switch (e->field()) {
            case BudgetField::Sink: return "sink";
            case BudgetField::Budget: return "budget";
            case BudgetField::Window: return "window";
        }
    }
    if (const auto* e = dynamic_cast<const RingError*>(&error))
        return e->field() == RingField::Sinks ? "ring-sinks" : "tokens-per-frame";
    // The ring's T is the capacity field of the window's layout form.
    if (const auto* e = dynamic_cast<const OptionConflict*>(&error))
        return e->first() == "ring-size" ? "capacity" : e->first();
    if (dynamic_cast<const InvalidCapacity*>(&error) ||
        dynamic_cast<const CapacityExceeded*>(&error))
        return "capacity";
    return {};
}

}  // namespace kvw
