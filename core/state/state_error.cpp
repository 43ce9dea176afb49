#include "core/state/state_error.h"

namespace kvw {

const char* state_error_kind_name(StateErrorKind kind) {
    switch (kind) {
        case StateErrorKind::LayerOutOfRange: return "LayerOutOfRange";
        case StateErrorKind::RowOutOfRange: return "RowOutOfRange";
        case StateErrorKind::NoItems: return "NoItems";
        case StateErrorKind::TokenOutOfVocabulary: return "TokenOutOfVocabulary";
        case StateErrorKind::PairOrder: return "PairOrder";
        case StateErrorKind::InjectedFault: return "InjectedFault";
        case StateErrorKind::InvariantViolated: return "InvariantViolated";
        case StateErrorKind::WlodShape: return "WlodShape";
        case StateErrorKind::PinnedRow: return "PinnedRow";
        case StateErrorKind::NonFinite: return "NonFinite";
    }
    return "?";
}

StateError::StateError(StateErrorKind kind, std::string primitive, std::string detail)
    : std::runtime_error(primitive + ": " + state_error_kind_name(kind) + ": " + detail),
      kind_(kind),
      primitive_(std::move(primitive)),
      detail_(std::move(detail)) {}

}  // namespace kvw
