#pragma once
#include <stdexcept>

namespace kvw {

// An evaluation that cannot be run as asked: a text too short for the chunk size, a chunk size
// the model or the cache cannot hold, a tick whose token could not be appended.
class EvalError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace kvw
