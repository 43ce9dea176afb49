"""`kvw perplexity --k-type/--v-type`: the quality price of quantised K/V storage
(docs/ARCHITECTURE.md §13, §17) on the built-in model and a held-out passage.

* f32 storage through the session path (--k-type f32 --v-type f32) scores the text exactly as
  the plain full-cache pass does: the same NLL sum, bit for bit (both paths attend to the same
  float32 rows; the session decodes token by token, the plain pass prefills a chunk at once).
* Every other pair (the types alone, and the seed's K bf16 + V fp8) gives a finite perplexity
  that differs from f32's (the storage took effect) by at most a bound per type, relative:
  f16 1e-4 (10 mantissa bits), bf16 and int8 5e-3 (7 bits, 1/127 of the head's amax), fp8 in
  either half 1e-2 (3 mantissa bits). The types cost this model below 1e-3, so the bounds
  leave room for rounding and catch storage that decodes wrongly, not a subtle shift.

usage: kv_types_perplexity.py KVW TEXT
"""
import json
import math
import subprocess
import sys

BOUNDS = {"f16": 1e-4, "bf16": 5e-3, "int8": 5e-3, "fp8": 1e-2}
PAIRS = [("f16", "f16"), ("bf16", "bf16"), ("int8", "int8"), ("fp8", "fp8"), ("bf16", "fp8")]


def perplexity(kvw, text, *extra):
    # The reference backend: the bounds below are the storage's price on its numbers.
    cmd = [kvw, "perplexity", "--model", "builtin:default", "--file", text, "--ctx", "64",
           "--backend", "cpu", "--json", "--quiet", *extra]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} exited with {done.returncode}:\n{done.stderr}")
    return json.loads(done.stdout)


def main():
    kvw, text = sys.argv[1], sys.argv[2]
    plain = perplexity(kvw, text)
    f32 = perplexity(kvw, text, "--k-type", "f32", "--v-type", "f32")
    assert (plain["path"], f32["path"]) == ("full-cache", "session"), (plain["path"], f32["path"])
    print(f"plain: perplexity {plain['perplexity']:.6f} over {plain['scored_tokens']} tokens; "
          f"f32 storage: {f32['perplexity']:.6f}")
    assert f32["nll_sum"] == plain["nll_sum"], (f32["nll_sum"], plain["nll_sum"])
    assert f32["scored_tokens"] == plain["scored_tokens"]
    for k, v in PAIRS:
        got = perplexity(kvw, text, "--k-type", k, "--v-type", v)
        assert (got["k_type"], got["v_type"]) == (k, v)
        rel = got["perplexity"] / f32["perplexity"] - 1.0
        bound = max(BOUNDS[k], BOUNDS[v])
        print(f"K {k:5s} V {v:5s}: perplexity {got['perplexity']:.6f}, {rel:+.2e} against f32 "
              f"(bound {bound:.0e})")
        assert math.isfinite(got["nll_sum"]), got
        assert got["nll_sum"] != f32["nll_sum"], f"K {k} V {v} scored exactly as f32"
        assert abs(rel) <= bound, f"K {k} V {v}: {rel:+.2e} against f32, bound {bound:.0e}"
    print("ok")


if __name__ == "__main__":
    main()
