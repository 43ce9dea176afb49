#!/usr/bin/env python3
"""kvw's quantiser against the independent `gguf` package: `kvw make-model` writes the tiny
synthetic model with Q8_0, Q4_0, Q4_K and Q6_K matrices and the built-in model re-encoded as
Q4_K; gguf's reader and dequantiser read them back, and every matrix must be the float32
original within the type's rounding error (a wrong block layout gives errors of order 1), every
other tensor copied bit for bit. `kvw info --json` of each file reports its bytes by type.

usage: quantized_round_trip.py KVW WORKDIR MODELS_DIR
"""
import json
import pathlib
import subprocess
import sys

import numpy as np
import gguf
from gguf.quants import dequantize

# Largest RMS error of a matrix relative to its RMS, per type (roughly 3x what plain
# round-to-nearest gives on normal-ish weights: Q8_0 ~0.005, Q4_0 ~0.09, Q4_K ~0.07, Q6_K ~0.02).
TOLERANCE = {"q8_0": 0.015, "q4_0": 0.25, "q4_k": 0.2, "q6_k": 0.06}


def tensors(path: pathlib.Path) -> dict:
    reader = gguf.GGUFReader(path)
    out = {}
    for t in reader.tensors:
        values = dequantize(t.data, t.tensor_type).astype(np.float64)
        out[t.name] = (t.tensor_type.name.lower(), values.reshape(-1))
    return out


def check(original: pathlib.Path, copy: pathlib.Path, kind: str, kvw: str) -> None:
    before, after = tensors(original), tensors(copy)
    assert before.keys() == after.keys(), (copy, set(before) ^ set(after))
    quantised = 0
    for name, (old_type, old) in before.items():
        new_type, new = after[name]
        if new_type == old_type:
            assert np.array_equal(old, new), f"{copy}: {name} changed"
            continue
        assert new_type == kind, f"{copy}: {name} is {new_type}"
        quantised += 1
        rms = np.sqrt(np.mean(old ** 2))
        err = np.sqrt(np.mean((new - old) ** 2)) / rms
        assert err < TOLERANCE[kind], f"{copy}: {name} relative RMS error {err:.4f}"
    assert quantised > 0, f"{copy}: nothing was quantised"
    info = json.loads(subprocess.run([kvw, "info", str(copy), "--json"], check=True,
                                     capture_output=True, text=True).stdout)
    by_type = info["weight_bytes_by_type"]
    assert by_type.get(kind, 0) > 0.5 * info["weight_bytes"], (copy, by_type)
    assert sum(by_type.values()) == info["weight_bytes"], by_type
    print(f"{copy.name}: {quantised} matrices as {kind}, bytes by type {by_type}")


def main() -> int:
    kvw, work, models = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
    work.mkdir(parents=True, exist_ok=True)
    f32 = work / "tiny_f32.gguf"
    subprocess.run([kvw, "make-model", "tiny", str(f32), "--type", "f32"], check=True)
    for kind in TOLERANCE:
        out = work / f"tiny_{kind}.gguf"
        subprocess.run([kvw, "make-model", "tiny", str(out), "--type", kind], check=True)
        check(f32, out, kind, kvw)
    out = work / "builtin_q4_k.gguf"
    subprocess.run([kvw, "make-model", "builtin:default", str(out), "--type", "q4_k"], check=True)
    check(models / "kjv-llama.gguf", out, "q4_k", kvw)
    return 0


if __name__ == "__main__":
    sys.exit(main())
