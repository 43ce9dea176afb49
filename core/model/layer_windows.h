#pragma once
#include <cstdint>
#include <span>
#include <string>

namespace kvw {

// ModelConfig::layer_window as people read it: runs of layers with one window each,
// "7 positions on layers 0-1; 4096 positions on layer 3"; empty when no layer has a window.
std::string layer_windows_text(std::span<const int32_t> layer_window);

}  // namespace kvw
