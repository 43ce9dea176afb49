"""SmartKV gate sidecars written by the independent `gguf` package, with the expected outputs
computed by numpy in float64 (tests/unit/test_gate.cpp).

Files (in OUTDIR):
  ref.gate.gguf: a gate of 2 model layers, input 8, hidden 16, depth 3 (ReLU between fully
  connected layers), seeded random weights; ref16.gate.gguf: the same stored as F16;
  ref_cases.json: per layer, input keys and the float64 forward of each with the F32 weights
  (`expected`) and with the F16-rounded ones (`expected_f16`).
  bad_*.gate.gguf: ref.gate.gguf with one fault each; bad_expected.json: the error kind and
  the tensor (or metadata key) each must be refused with.
"""
import json
import pathlib

import numpy as np
import gguf

from sidecar_writer import write_sidecar

SEED = 20261123
LAYERS, INPUT, HIDDEN, DEPTH = 2, 8, 16, 3


def dims(i: int) -> tuple[int, int]:
    return (INPUT if i == 0 else HIDDEN), (1 if i == DEPTH - 1 else HIDDEN)


def make_weights(rng: np.random.Generator) -> dict[str, np.ndarray]:
    tensors = {}
    for layer in range(LAYERS):
        for i in range(DEPTH):
            n_in, n_out = dims(i)
            # numpy shape (out, in): gguf stores it as [in, out], ne[0] = in.
            tensors[f"gate.{layer}.fc{i}.weight"] = rng.normal(0, 0.5, (n_out, n_in)).astype(np.float32)
            tensors[f"gate.{layer}.fc{i}.bias"] = rng.normal(0, 0.2, (n_out,)).astype(np.float32)
    return tensors


def forward64(tensors: dict[str, np.ndarray], layer: int, x: np.ndarray) -> float:
    a = x.astype(np.float64)
    for i in range(DEPTH):
        w = tensors[f"gate.{layer}.fc{i}.weight"].astype(np.float64)
        b = tensors[f"gate.{layer}.fc{i}.bias"].astype(np.float64)
        a = w @ a + b
        if i < DEPTH - 1:
            a = np.maximum(a, 0.0)
    return float(a[0])


def write_gate(path: pathlib.Path, tensors: dict[str, np.ndarray], meta: dict) -> None:
    def metadata(w: gguf.GGUFWriter) -> None:
        w.add_uint32("gate.layer_count", meta.get("layer_count", LAYERS))
        w.add_uint32("gate.input_dim", meta.get("input_dim", INPUT))
        w.add_uint32("gate.hidden", meta.get("hidden", HIDDEN))
        w.add_uint32("gate.depth", meta.get("depth", DEPTH))
        w.add_string("gate.key_kind", meta.get("key_kind", "pre-rope"))

    write_sidecar(path, meta.get("arch", "kvw-gate"), tensors, metadata)


def generate(out: pathlib.Path) -> None:
    rng = np.random.default_rng(SEED)
    tensors = make_weights(rng)
    write_gate(out / "ref.gate.gguf", tensors, {})
    half = {name: t.astype(np.float16) for name, t in tensors.items()}
    write_gate(out / "ref16.gate.gguf", half, {})
    cases = []
    for layer in range(LAYERS):
        keys = rng.normal(0, 1.5, (12, INPUT)).astype(np.float32)
        cases.append({"inputs": [[float(v) for v in k] for k in keys],
                      "expected": [forward64(tensors, layer, k) for k in keys],
                      "expected_f16": [forward64(half, layer, k) for k in keys]})
    (out / "ref_cases.json").write_text(json.dumps({"layers": cases}))

    bad = {}

    def variant(name, kind, where, changed=None, meta=None, drop=None):
        t = dict(tensors)
        if drop:
            del t[drop]
        t.update(changed or {})
        write_gate(out / f"bad_{name}.gate.gguf", t, meta or {})
        bad[name] = {"kind": kind, "where": where}

    w = "gate.1.fc1.weight"
    variant("shape", "shape contradicts config", w,
            changed={w: np.zeros((HIDDEN - 1, HIDDEN), np.float32)})
    variant("missing", "missing tensor", "gate.0.fc2.bias", drop="gate.0.fc2.bias")
    # BF16 bits (the top half of each float32): a type the gate does not read.
    bf16 = (tensors["gate.0.fc0.weight"].view(np.uint32) >> 16).astype(np.uint16)
    variant("bf16", "shape contradicts config", "gate.0.fc0.weight",
            changed={"gate.0.fc0.weight": bf16})
    variant("extra", "shape contradicts config", "gate.2.fc0.weight",
            changed={"gate.2.fc0.weight": tensors["gate.0.fc0.weight"]})
    nan_bias = tensors["gate.1.fc0.bias"].copy()
    nan_bias[3] = np.nan
    variant("nan", "non-finite weight", "gate.1.fc0.bias", changed={"gate.1.fc0.bias": nan_bias})
    variant("kind", "bad metadata", "gate.key_kind", meta={"key_kind": "sideways"})
    variant("depth", "bad metadata", "gate.depth", meta={"depth": 0})
    variant("arch", "bad metadata", "general.architecture", meta={"arch": "llama"})
    (out / "bad_expected.json").write_text(json.dumps(bad, indent=1))


if __name__ == "__main__":
    import sys
    generate(pathlib.Path(sys.argv[1]))
