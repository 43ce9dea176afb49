#!/usr/bin/env bash
# The README's test command: installs what is missing, builds everything (the CUDA backend too
# when nvcc exists), generates the test data with the independent Python writers and runs
# every CTest test except the benchmarks. GPU tests skip cleanly without a device.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --tests
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKVW_CUDA=AUTO \
      -DKVW_BUILD_TESTS=ON -DKVW_TEST_PYTHON="$PWD/build/pyenv/bin/python"
cmake --build build -j2
ctest --test-dir build --output-on-failure -LE bench -j2 --timeout 900
