#include "core/session/refused_setting.h"

#include "core/cache/cache_capacity.h"
#include "core/cache/cache_error.h"
#include "core/cache/ring_options.h"
#include "core/policy/policy_error.h"

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
    if (dynamic_cast<const InvalidCapacity*>(&error) ||
        dynamic_cast<const CapacityExceeded*>(&error))
        return "capacity";
    return {};
}

}  // namespace kvw
