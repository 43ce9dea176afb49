#pragma once
#include <exception>
#include <string>

namespace kvw {

// The setting a typed error is about, named as the command line names it: "sink", "budget",
// "window" (BudgetError), "ring-sinks", "tokens-per-frame" (RingError), "capacity" (a cache
// size refused: InvalidCapacity, or CapacityExceeded when a layer holds more rows). A settings
// form shows the message beside that field. Empty when the error is about no one setting.
std::string refused_setting(const std::exception& error);

}  // namespace kvw
