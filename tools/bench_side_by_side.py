#!/usr/bin/env python3
"""kvw against llama.cpp, side by side, in alternated rounds (issue 30's benchmark).

On a shared or throttled machine one pass per type ranks nothing closer than ~1.5x (ARCHITECTURE
5.4): this runs `kvw bench decode` (the reference `cpu` and `cpu:fast`) and llama.cpp's
`llama-bench` on the same TinyLlama-shape GGUF files, type after type, round after round, and
prints the median of the rounds with their range. Files missing from --dir are made with
`kvw make-model tinyllama-shape`. With --reference the reference `cpu` runs too (its 4,096-row
prefill makes a round about three times as long).

  tools/bench_side_by_side.py --llama-bench PATH [--kvw build/app/kvw] [--types q4_0,q4_k]
                              [--rounds 3] [--dir /tmp/kvw-side-by-side] [--threads 2]
                              [--reference]
"""
import argparse
import csv
import io
import os
import statistics
import subprocess
import sys

TYPES = ["f16", "bf16", "q8_0", "q4_0", "q4_k", "q6_k"]
LONG = 4096  # the long context of the 4k / 128 target


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return done.stdout


def kvw_figures(kvw, model, threads, backends):
    """{backend: {"prefill": tok/s, 128: decode tok/s, LONG: decode tok/s}} from kvw's table."""
    out = run([kvw, "bench", "decode", "--model", model, "--threads", str(threads),
               "--contexts", f"128,{LONG}", "--decode-tokens", "8", "--backend", ",".join(backends),
               "--k-type", "f16", "--v-type", "f16", "--quiet"])
    figures = {}
    for line in out.splitlines():
        words = line.split()
        # gguf Q4_0  cpu:fast  0.62  1.06  258.9  128  48.00  0.585  28.1  67.1%
        if len(words) >= 8 and words[0] == "gguf" and words[2] in ("cpu", "cpu:fast"):
            row = figures.setdefault(words[2], {})
            row["prefill"] = float(words[5])
            row[int(words[6])] = float(words[7])
    if set(figures) != set(backends):
        sys.exit(f"kvw bench decode printed no table for {model}:\n{out}")
    return figures


def llama_figures(llama_bench, model, threads):
    """{"prefill": pp128 tok/s, 128: tg16 tok/s, LONG: tg16 at depth LONG}"""
    figures = {}
    for args in (["-p", "128", "-n", "16"], ["-p", "0", "-n", "16", "-d", str(LONG)]):
        out = run([llama_bench, "-m", model, "-t", str(threads), "-r", "1", "-o", "csv"] + args)
        for rec in csv.DictReader(io.StringIO(out)):
            tokens = float(rec["avg_ts"])
            if int(rec["n_prompt"]) > 0:
                figures["prefill"] = tokens
            else:
                figures[LONG if int(rec.get("n_depth", "0") or 0) > 0 else 128] = tokens
    return figures


def median_range(values):
    return statistics.median(values), min(values), max(values)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llama-bench", required=True, help="llama.cpp's llama-bench binary")
    parser.add_argument("--kvw", default="build/app/kvw")
    parser.add_argument("--types", default=",".join(TYPES))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", default="/tmp/kvw-side-by-side")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--reference", action="store_true", help="bench the reference cpu too")
    args = parser.parse_args()
    backends = ["cpu", "cpu:fast"] if args.reference else ["cpu:fast"]
    types = args.types.split(",")
    unknown = [t for t in types if t not in TYPES]
    if unknown:
        sys.exit(f"--types: unknown {', '.join(unknown)} (known: {', '.join(TYPES)})")
    os.makedirs(args.dir, exist_ok=True)
    models = {}
    for t in types:
        models[t] = os.path.join(args.dir, f"tl_{t}.gguf")
        if not os.path.exists(models[t]):
            run([args.kvw, "make-model", "tinyllama-shape", models[t], "--type", t, "--context",
                 str(2 * LONG), "--quiet"])

    # samples[type][(who, figure)] = one value per round
    samples = {t: {} for t in types}
    for r in range(args.rounds):
        for t in types:
            print(f"round {r + 1} / {args.rounds}: {t}", file=sys.stderr, flush=True)
            got = kvw_figures(args.kvw, models[t], args.threads, backends)
            got["llama"] = llama_figures(args.llama_bench, models[t], args.threads)
            for who, figures in got.items():
                for figure, value in figures.items():
                    samples[t].setdefault((who, figure), []).append(value)

    print(f"{args.rounds} alternated rounds, {args.threads} threads, K/V f16, tok/s: median "
          f"(min-max); ratios of medians")
    print(f"{'type':6} {'who':9} {'pp128':>22} {'decode@128':>22} {f'decode@{LONG}':>22} "
          f"{'4k/128':>7}")
    for t in types:
        for who in backends[::-1] + ["llama"]:
            cells = []
            for figure in ("prefill", 128, LONG):
                m, lo, hi = median_range(samples[t][(who, figure)])
                cells.append(f"{m:7.1f} ({lo:.1f}-{hi:.1f})")
            slowdown = (statistics.median(samples[t][(who, 128)]) /
                        statistics.median(samples[t][(who, LONG)]))
            print(f"{t:6} {who:9} {cells[0]:>22} {cells[1]:>22} {cells[2]:>22} {slowdown:7.2f}")
        for who in backends[::-1]:
            ratios = [statistics.median(samples[t][(who, f)]) /
                      statistics.median(samples[t][("llama", f)]) for f in ("prefill", 128, LONG)]
            print(f"{t:6} {who + '/llama':15} pp128 {ratios[0]:.2f}x  decode@128 {ratios[1]:.2f}x  "
                  f"decode@{LONG} {ratios[2]:.2f}x")


if __name__ == "__main__":
    main()
