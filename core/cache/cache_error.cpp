#include "core/cache/cache_error.h"

#include <string>

namespace kvw {

CapacityExceeded::CapacityExceeded(int layer, int position, int requested, int capacity)
    : std::runtime_error("kv cache layer " + std::to_string(layer) + ": writing " +
                         std::to_string(requested) + " rows at position " +
                         std::to_string(position) + " exceeds the capacity of " +
                         std::to_string(capacity) + " rows"),
      layer_(layer),
      position_(position),
      requested_(requested),
      capacity_(capacity) {}

}  // namespace kvw
