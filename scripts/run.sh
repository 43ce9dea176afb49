#!/usr/bin/env bash
# The README's run command: installs what is missing, builds, and runs the main job on the
# embedded default model (synthetic:tiny). Extra arguments go to `kvw generate`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKVW_CUDA=AUTO
cmake --build build -j2 --target kvw
if (($#)); then
  exec build/app/kvw generate "$@"
fi
exec build/app/kvw generate --model synthetic:tiny --prompt "The cache remembers" -n 32 --seed 1
