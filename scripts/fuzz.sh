#!/usr/bin/env bash
# Runs one fuzz target of tests/fuzz under libFuzzer (the fuzz preset: clang, ASan + UBSan) for
# a bounded time, on one core, going on after a crash so that one run can find several.
#   scripts/fuzz.sh TARGET [SECONDS] [more libFuzzer flags]
# TARGET: gguf, safetensors, hf_folder, hf_config, tokenizer_json, action_json, kvs_script,
# trace (tests/fuzz/fuzz_TARGET.cpp). The corpus grows in build-fuzz/corpus/TARGET, starting
# from the generated seeds and the committed regression inputs; inputs that crash land in
# build-fuzz/findings/TARGET/. Replay one with build-fuzz/tests/fuzz/fuzz_TARGET FILE.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz.sh TARGET [SECONDS] [libFuzzer flags]}
seconds=${2:-300}
shift $(($# < 2 ? $# : 2))

scripts/install-deps.sh --tests --fuzz
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j2 --target "fuzz_$target"
seeds=build-fuzz/testdata/fuzz_seeds
build/pyenv/bin/python tests/data/make_fuzz_seeds.py "$seeds" >/dev/null

corpus=build-fuzz/corpus/$target
findings=build-fuzz/findings/$target
mkdir -p "$corpus" "$findings"
inputs=("$corpus" "$seeds/$target")
[[ -d tests/fuzz/regressions/$target ]] && inputs+=("tests/fuzz/regressions/$target")
# fork=1 runs the target in a child process and starts a new one after a crash, a timeout or
# running out of memory; the final status line gives the executions, and oom/timeout/crash.
exec "build-fuzz/tests/fuzz/fuzz_$target" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 \
     -ignore_ooms=1 -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
     -artifact_prefix="$findings/" "$@" "${inputs[@]}"
