#include "core/mirror/removal.h"

namespace kvw {

namespace {

constexpr RemovalReason kReasons[] = {
    RemovalReason::Deleted,     RemovalReason::Replaced,      RemovalReason::Reset,
    RemovalReason::TickAborted, RemovalReason::BulkPrune,     RemovalReason::StreamingLoss,
    RemovalReason::Window,      RemovalReason::RingOverwrite,
};

}  // namespace

const char* removal_reason_name(RemovalReason reason) {
    switch (reason) {
        case RemovalReason::Deleted: return "deleted";
        case RemovalReason::Replaced: return "replaced";
        case RemovalReason::Reset: return "reset";
        case RemovalReason::TickAborted: return "tick_aborted";
        case RemovalReason::BulkPrune: return "bulk_prune";
        case RemovalReason::StreamingLoss: return "streaming_loss";
        case RemovalReason::Window: return "window";
        case RemovalReason::RingOverwrite: return "ring_overwrite";
    }
    return "?";
}

std::optional<RemovalReason> parse_removal_reason(std::string_view name) {
    for (RemovalReason r : kReasons)
        if (name == removal_reason_name(r)) return r;
    return std::nullopt;
}

}  // namespace kvw
