"""Learned GistNet sidecars (*.gist.gguf) written by the independent `gguf` package, with the
expected gists computed by numpy in float64 (tests/unit/test_gist_net.cpp).

gist = proj.weight @ (sum_i pool[i] * child_i) + proj.bias, each gist level with its own tensors.

Files (in OUTDIR):
  small.gist.gguf: n_embd 8, K 3, seeded random weights; small16.gist.gguf: the same as F16;
  small_cases.json: per level, child sets and the float64 gist of each with the F32 weights
  (`expected`) and with the F16-rounded ones (`expected_f16`).
  tiny.gist.gguf: n_embd 256 (synthetic:tiny's width), K 4, for a session that collapses.
  tiny_k8.gist.gguf: the same width with K 8 (a session with K 4 must refuse it).
  bad_*.gist.gguf: small.gist.gguf with one fault each; bad_expected.json: the error kind and
  the tensor (or metadata key) each must be refused with.
"""
import json
import pathlib

import numpy as np
import gguf

from sidecar_writer import write_sidecar

SEED = 20261124


def make_weights(rng: np.random.Generator, n: int, k: int) -> dict[str, np.ndarray]:
    tensors = {}
    for level in (1, 2):
        tensors[f"gist.{level}.pool"] = rng.normal(1.0 / k, 0.1, (k,)).astype(np.float32)
        # numpy shape (out, in): gguf stores it as [in, out], ne[0] = in.
        tensors[f"gist.{level}.proj.weight"] = (
            np.eye(n) + rng.normal(0, 0.3 / np.sqrt(n), (n, n))).astype(np.float32)
        tensors[f"gist.{level}.proj.bias"] = rng.normal(0, 0.05, (n,)).astype(np.float32)
    return tensors


def gist64(tensors: dict[str, np.ndarray], level: int, children: np.ndarray) -> np.ndarray:
    pool = tensors[f"gist.{level}.pool"].astype(np.float64)
    w = tensors[f"gist.{level}.proj.weight"].astype(np.float64)
    b = tensors[f"gist.{level}.proj.bias"].astype(np.float64)
    pooled = (pool[:, None] * children.astype(np.float64)).sum(axis=0)
    return w @ pooled + b


def write_gist(path: pathlib.Path, tensors: dict[str, np.ndarray], n: int, k: int,
               meta: dict) -> None:
    def metadata(w: gguf.GGUFWriter) -> None:
        w.add_uint32("gist.embedding_length", meta.get("embedding_length", n))
        w.add_uint32("gist.block_size", meta.get("block_size", k))

    write_sidecar(path, meta.get("arch", "kvw-gist"), tensors, metadata)


def generate(out: pathlib.Path) -> None:
    rng = np.random.default_rng(SEED)
    n, k = 8, 3
    tensors = make_weights(rng, n, k)
    write_gist(out / "small.gist.gguf", tensors, n, k, {})
    half = {name: t.astype(np.float16) for name, t in tensors.items()}
    write_gist(out / "small16.gist.gguf", half, n, k, {})
    cases = []
    for level in (1, 2):
        sets = [rng.normal(0, 1.0, (k, n)).astype(np.float32) for _ in range(5)]
        cases.append({"level": level,
                      "children": [[[float(v) for v in c] for c in s] for s in sets],
                      "expected": [[float(v) for v in gist64(tensors, level, s)] for s in sets],
                      "expected_f16": [[float(v) for v in gist64(half, level, s)] for s in sets]})
    (out / "small_cases.json").write_text(json.dumps({"n_embd": n, "k": k, "levels": cases}))

    write_gist(out / "tiny.gist.gguf", make_weights(rng, 256, 4), 256, 4, {})
    write_gist(out / "tiny_k8.gist.gguf", make_weights(rng, 256, 8), 256, 8, {})

    bad = {}

    def variant(name, kind, where, changed=None, meta=None, drop=None):
        t = dict(tensors)
        if drop:
            del t[drop]
        t.update(changed or {})
        write_gist(out / f"bad_{name}.gist.gguf", t, n, k, meta or {})
        bad[name] = {"kind": kind, "where": where}

    w = "gist.2.proj.weight"
    variant("shape", "shape contradicts config", w, changed={w: np.zeros((n, n - 1), np.float32)})
    variant("pool", "shape contradicts config", "gist.1.pool",
            changed={"gist.1.pool": np.ones((k + 1,), np.float32)})
    variant("missing", "missing tensor", "gist.1.proj.bias", drop="gist.1.proj.bias")
    # BF16 bits (the top half of each float32): a type the gist net does not read.
    bf16 = (tensors["gist.1.pool"].view(np.uint32) >> 16).astype(np.uint16)
    variant("type", "shape contradicts config", "gist.1.pool", changed={"gist.1.pool": bf16})
    variant("extra", "shape contradicts config", "gist.3.pool",
            changed={"gist.3.pool": tensors["gist.1.pool"]})
    nan_bias = tensors["gist.2.proj.bias"].copy()
    nan_bias[5] = np.nan
    variant("nan", "non-finite weight", "gist.2.proj.bias", changed={"gist.2.proj.bias": nan_bias})
    variant("arch", "bad metadata", "general.architecture", meta={"arch": "kvw-gate"})
    variant("block", "bad metadata", "gist.block_size", meta={"block_size": 1})
    variant("width", "bad metadata", "gist.embedding_length", meta={"embedding_length": 0})
    (out / "bad_expected.json").write_text(json.dumps(bad, indent=1))


if __name__ == "__main__":
    import sys
    generate(pathlib.Path(sys.argv[1]))
