"""`kvw run --record-lifespans` and `kvw train-gate --json` against float64 references written
here with numpy and the `gguf` package.

The recorded file is read with gguf-py. The run's tokens (the prompt from `kvw tokenize`, the
generated ones from the run's tick lines) go through perplexity_reference.py's float64 forward
pass, which gives every layer's pre-RoPE keys and attention weights; the lifespans are measured
from those as docs/ARCHITECTURE.md §12 defines them (a token born at tick b, watched at ticks
b+1..b+horizon, its lifespan the last age at which its attention share — the weight summed over
heads, times rows, over the total — reached the threshold, 0 if never). Then the gate that
`train-gate` writes is read with gguf-py and run in float64 on the held-out records (the last
fifth of each layer), and its loss and the constant predictor's must match what kvw printed.

usage: lifespans_reference.py --kvw KVW --model GGUF --work DIR
"""
import argparse
import json
import math
import os
import subprocess
import sys

import gguf
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perplexity_reference import all_logits, load, run  # noqa: E402

PROMPT, TICKS, HORIZON, THRESHOLD, SEED = "And it came to pass", 140, 32, 2.0, 5


def read_records(path):
    r = gguf.GGUFReader(path)
    meta = {k: f.contents() for k, f in r.fields.items() if k.startswith("lifespans.")}
    tensors = {t.name: np.asarray(t.data, dtype=np.float64) for t in r.tensors}
    layers = []
    for layer in range(meta["lifespans.layer_count"]):
        layers.append((tensors[f"lifespans.{layer}.keys"], tensors[f"lifespans.{layer}.ticks"]))
    return meta, layers


def reference_lifespans(probs, prompt_len, n_ticks):
    """probs: [heads, T, T]; the token of tick t sits at position prompt_len + t - 1."""
    lifespans = []
    for t in range(1, n_ticks - HORIZON + 1):
        pos, life = prompt_len + t - 1, 0
        for age in range(1, HORIZON + 1):
            q = pos + age
            mass = probs[:, q, : q + 1].sum(axis=0)
            if mass[pos] * (q + 1) / mass.sum() >= THRESHOLD:
                life = age
        lifespans.append(life)
    return np.array(lifespans, dtype=np.float64)


def gate_forward(tensors, layer, depth, x):
    a = x
    for i in range(depth):
        a = tensors[f"gate.{layer}.fc{i}.weight"] @ a + tensors[f"gate.{layer}.fc{i}.bias"]
        if i < depth - 1:
            a = np.maximum(a, 0.0)
    return a[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kvw", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    records = os.path.join(a.work, "lifespans.gguf")
    out = run([a.kvw, "run", "--model", a.model, "--prompt", PROMPT, "--ticks", str(TICKS),
               "--temp", "0.9", "--seed", str(SEED), "--lifespan-horizon", str(HORIZON),
               "--lifespan-threshold", str(THRESHOLD), "--record-lifespans", records,
               "--backend", "cpu", "--quiet"])
    generated = [int(line.split()[1]) for line in out.splitlines()
                 if line[:4].strip().isdigit()]
    assert len(generated) == TICKS, f"{len(generated)} tick lines"
    prompt = json.loads(run([a.kvw, "tokenize", "--model", a.model, PROMPT, "--json"]))["ids"]
    cfg, w = load(a.model)
    layers_ref = []
    all_logits(cfg, w, prompt + generated, record=layers_ref)

    meta, layers = read_records(records)
    assert meta["lifespans.horizon"] == HORIZON and meta["lifespans.key_kind"] == "pre-rope"
    n_expected = TICKS - HORIZON
    equal = total = 0
    for layer, (keys, ticks) in enumerate(layers):
        assert keys.shape == (n_expected, cfg["hidden"] // cfg["heads"] * cfg["kv_heads"]), keys.shape
        want = reference_lifespans(layers_ref[layer]["probs"], len(prompt), TICKS)
        equal += int((want == ticks).sum())
        total += len(want)
        k_ref = layers_ref[layer]["k"].reshape(len(prompt) + TICKS, -1)
        k_ref = k_ref[len(prompt):len(prompt) + n_expected]
        err = np.abs(keys - k_ref).max() / max(1.0, np.abs(k_ref).max())
        print(f"layer {layer}: {len(want)} records, lifespans equal {int((want == ticks).sum())}, "
              f"mean {ticks.mean():.2f} (reference {want.mean():.2f}); keys: max error {err:.2e}")
        assert err < 1e-3, f"layer {layer}: pre-RoPE keys differ by {err}"
    # A share within float32 rounding of the threshold may fall either side.
    assert equal >= 0.97 * total, f"only {equal} of {total} lifespans agree with float64"

    gate_path = os.path.join(a.work, "small.gate.gguf")
    got = json.loads(run([a.kvw, "train-gate", "--data", records, "--out", gate_path,
                          "--hidden", "16", "--depth", "3", "--epochs", "3", "--json",
                          "--quiet"]))
    r = gguf.GGUFReader(gate_path)
    depth = r.fields["gate.depth"].contents()
    assert r.fields["gate.key_kind"].contents() == "pre-rope"
    tensors = {t.name: np.asarray(t.data, dtype=np.float64) for t in r.tensors}
    for layer, (keys, ticks) in enumerate(layers):
        y = np.log1p(ticks) / math.log(4.0)
        n_test = int(math.floor(len(y) * 0.2 + 0.5))
        train, test = slice(0, len(y) - n_test), slice(len(y) - n_test, len(y))
        mean = y[train].mean()
        constant = np.mean((y[test] - mean) ** 2)
        pred = np.array([gate_forward(tensors, layer, depth, k) for k in keys[test]])
        gate = np.mean((pred - y[test]) ** 2)
        rep = got["layers"][layer]
        print(f"layer {layer}: held-out MSE gate {rep['gate_loss']:.6f} (float64 {gate:.6f}), "
              f"constant {rep['constant_loss']:.6f} (float64 {constant:.6f})")
        assert rep["held_out"] == n_test and rep["train"] == len(y) - n_test
        assert abs(rep["constant_loss"] - constant) <= 1e-6 * max(1.0, constant)
        assert abs(rep["gate_loss"] - gate) <= 1e-4 * max(1.0, gate)

    # --lr 1e30 made the training diverge: it printed a "-nan" held-out loss, exited 0 and wrote
    # the gate. The rate is now refused before any work (a rate in range that still diverges
    # fails naming the layer: test_gate::a_diverging_training_is_refused_naming_the_layer).
    diverged = os.path.join(a.work, "diverged.gate.gguf")
    if os.path.exists(diverged):
        os.remove(diverged)
    done = subprocess.run([a.kvw, "train-gate", "--data", records, "--out", diverged,
                           "--hidden", "16", "--depth", "3", "--epochs", "3", "--lr", "1e30",
                           "--quiet"], capture_output=True, text=True)
    assert done.returncode != 0, f"train-gate --lr 1e30 exited 0:\n{done.stdout}"
    assert "--lr" in done.stderr and "1e30" in done.stderr, done.stderr
    assert not os.path.exists(diverged), "train-gate --lr 1e30 wrote a gate"
    print("ok")


if __name__ == "__main__":
    main()
