#!/usr/bin/env bash
# Trains the default model (resources/models/kjv-llama.gguf) from scratch on the CPU:
#   tools/train_default_model.sh [train_default_model.py options]
# Installs what it needs and is not there yet: the King James Bible (bible-kjv), Debian's
# PyTorch and NumPy, and a virtual environment (build/train-venv) that sees them and adds the
# pinned sentencepiece and gguf packages. Debian's torch is built against Debian's numpy, so
# numpy comes from Debian too rather than from the package registry. Debian's torch calls
# whichever BLAS the alternatives system points at; the reference BLAS is ~20x slower than
# OpenBLAS (the OpenMP build, as torch itself threads with OpenMP).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(bible-kjv python3-torch python3-numpy python3-venv libopenblas0-openmp)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "[train] installing: ${missing[*]}"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

venv=build/train-venv
pins=(sentencepiece==0.2.3 gguf==0.19.0)
if ! "$venv/bin/python" -c 'import gguf, sentencepiece, torch' 2>/dev/null; then
  echo "[train] creating $venv with Debian's torch and ${pins[*]}"
  /usr/bin/python3 -m venv --system-site-packages "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "${pins[@]}"
fi
# The versions the committed model was trained with (resources/models/README.md); Debian's
# python3-torch 1.13.1+dfsg-4 calls itself 1.13.0a0.
"$venv/bin/python" - <<'PY'
import numpy, torch
for name, have, want in (("torch", torch.__version__, "1.13.0a0"), ("numpy", numpy.__version__, "1.24.2")):
    if have != want:
        print(f"[train] warning: {name} {have}; the committed model was trained with {want}")
PY
exec "$venv/bin/python" tools/train_default_model.py "$@"
