#include "kernels/launch/device_launch.cuh"
#include "kernels/read_sweep_kernel.h"

KVW_DEVICE_LAUNCHER(kvw::kern::ReadSweep)
