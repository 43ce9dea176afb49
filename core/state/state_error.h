#pragma once
#include <stdexcept>
#include <string>

namespace kvw {

// Why a StateManager primitive refused its arguments or stopped. Validation errors are thrown
// before anything changes; InjectedFault (a test hook) and InvariantViolated (guard mode) are
// thrown after a change, and the tick transaction answers them with a rebuild.
enum class StateErrorKind {
    LayerOutOfRange,
    RowOutOfRange,
    NoItems,
    TokenOutOfVocabulary,
    PairOrder,
    InjectedFault,
    InvariantViolated,
    WlodShape,  // collapse / expand of something that is not a whole aligned block or a gist
    PinnedRow,  // a collapse whose block holds BOS at row 0 or a ring sink row
    NonFinite,  // a NaN or an infinity where it was made: a gist, K / V, logits, a score, drift
};

const char* state_error_kind_name(StateErrorKind kind);

class StateError : public std::runtime_error {
public:
    StateError(StateErrorKind kind, std::string primitive, std::string detail);

    StateErrorKind kind() const { return kind_; }
    const std::string& primitive() const { return primitive_; }  // "remove", "insert", ...
    const std::string& detail() const { return detail_; }

private:
    StateErrorKind kind_;
    std::string primitive_;
    std::string detail_;
};

}  // namespace kvw
