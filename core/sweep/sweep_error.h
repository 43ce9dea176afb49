#pragma once
#include <stdexcept>

namespace kvw {

// A sweep plan or its results that cannot be used: a cell the grid cannot run (named with its
// index and configuration), a plan or shard file that is not what it claims, a shard missing
// at the merge. Typed so that the command line reports it as the input's fault.
class SweepError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace kvw
