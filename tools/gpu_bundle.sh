#!/usr/bin/env bash
# Packs the device checks into one archive for a machine that has a GPU and the CUDA runtime but
# not this project's build (docs/ARCHITECTURE.md §18): the `gpu` test binaries and kvw of a CUDA
# build, stripped, the shared libraries they load that such a machine lacks (Qt, spdlog, fmt,
# ICU: whatever ldd names outside the C / C++ runtimes and CUDA's own), and run.sh, which runs
# every gpu test and then `kvw bench decode` on cpu:fast and cuda.
#
#   tools/gpu_bundle.sh BUILD_DIR OUT.tar.xz      (BUILD_DIR configured with CUDA found)
#   there:  mkdir g && tar -C g -xJf OUT.tar.xz && g/run.sh      (logs in $OUT, else g/out)
set -euo pipefail

build=${1:?usage: tools/gpu_bundle.sh BUILD_DIR OUT.tar.xz}
archive=${2:?usage: tools/gpu_bundle.sh BUILD_DIR OUT.tar.xz}
[[ -x $build/app/kvw ]] || { echo "gpu_bundle: no $build/app/kvw: build kvw first" >&2; exit 2; }
ldd "$build/app/kvw" | grep -q libcudart ||
    { echo "gpu_bundle: $build/app/kvw has no CUDA backend (configured without CUDA)" >&2; exit 2; }

# The gpu-labelled tests, as CTest lists them (make_test_data is their fixture, not a test).
mapfile -t tests < <(ctest --test-dir "$build" -L gpu -N |
    sed -n 's/^ *Test *#[0-9]*: //p' | grep -v '^make_test_data$')
((${#tests[@]})) || { echo "gpu_bundle: $build has no gpu tests" >&2; exit 2; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib"
for t in "${tests[@]}"; do
    [[ -x $build/tests/$t ]] || { echo "gpu_bundle: $build/tests/$t is not built" >&2; exit 2; }
    strip -o "$stage/bin/$t" "$build/tests/$t"
done
strip -o "$stage/bin/kvw" "$build/app/kvw"

# Libraries the machine is expected to have: the C and C++ runtimes and CUDA's.
keep_out='^(linux-vdso|ld-linux|libc\.|libm\.|libdl\.|libpthread\.|librt\.|libgcc_s\.|libstdc\+\+\.|libcuda|libcudart|libcublas)'
for b in "$stage"/bin/*; do
    ldd "$b" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
    [[ $name =~ $keep_out ]] || cp -L "$path" "$stage/lib/$name"
done

cat > "$stage/run.sh" <<'EOF'
#!/usr/bin/env bash
# Every gpu test of the bundle, then kvw bench decode on cpu:fast and cuda (TYPES to choose the
# weight types). Exits non-zero when a test failed or skipped (a device check that found no
# device checked nothing).
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} QT_QPA_PLATFORM=offscreen
status=0
for t in "$here"/bin/test_*; do
    name=$(basename "$t")
    timeout "${TEST_LIMIT:-300}" "$t" > "$out/$name.log" 2>&1 || status=1
    grep -q "^SKIP" "$out/$name.log" && status=1
    echo "$name: $(grep '^Totals' "$out/$name.log" || echo 'no totals (crashed or timed out)')"
    grep -E '^(FAIL|SKIP)' -A2 "$out/$name.log" | head -20
done
"$here/bin/kvw" bench decode --backend cpu:fast,cuda --types "${TYPES:-q4_k,q8_0,f16}" \
    --contexts 128,1024,4096 --decode-tokens 16 --k-type f16 --v-type f16 --quiet \
    > "$out/bench.log" 2>&1 || status=1
cat "$out/bench.log"
exit $status
EOF
chmod +x "$stage/run.sh"
tar -C "$stage" -cJf "$archive" .
echo "gpu_bundle: $archive ($(du -h "$archive" | cut -f1)): ${#tests[@]} tests, kvw, $(ls "$stage/lib" | wc -l) libraries"
