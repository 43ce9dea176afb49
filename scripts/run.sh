#!/usr/bin/env bash
# The README's run command: installs what is missing, builds, and opens the workbench window on
# the embedded default model (builtin:default). Without a display it runs the demo script
# headless instead and says where its screenshots are. Extra arguments go to kv-workbench
# (e.g. --model ~/models/tinyllama.gguf --prompt "Hello" --backend cuda).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset dev
cmake --build build -j2 --target kvw kv-workbench
if [[ -n "${DISPLAY:-}" || -n "${WAYLAND_DISPLAY:-}" ]]; then
  exec build/app/kv-workbench "$@"
fi
echo "[run] no display: running resources/demo.kvs headless"
rm -rf shots
QT_QPA_PLATFORM=offscreen build/app/kv-workbench --script resources/demo.kvs --shots shots "$@"
echo "[run] the demo's screenshots are in $PWD/shots/:"
ls -1 shots/*.png
