#pragma once
#include <cstdint>

namespace kvw {

// A revision no other call of the process has returned (never 0): whatever holds one for a
// piece of state takes a new one on every change, so that two equal revisions mean the same
// contents even across copies and replaced objects. Frames share what kept its revision
// (ARCHITECTURE §7.1).
uint64_t next_revision();

}  // namespace kvw
