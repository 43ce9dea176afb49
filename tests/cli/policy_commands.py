"""kvw compare and kvw sweep --plot on the built-in model and a short held-out text.

kvw compare --json with --gate: each policy keeps S + B + W rows per layer, the overlap figures
agree with each other, and the NLL difference is B's mean NLL minus A's.

kvw perplexity --policy without --rope prices as compare does (the same perplexity), and each
command names the RoPE policy beside its perplexities (text, --json, the sweep's CSV).

kvw sweep --plot: the CSV has a row per policy and budget (plus `full`), and the PNG that
kvw-plot-sweep draws from it is a real PNG of the plot's size in which each policy's line colour
(Tableau 10, in the order the policies were given) and the full cache's black dashes are drawn.
The PNG is decoded here with zlib alone. A CSV that is not a sweep is refused naming the file
and line; --plot without --out is a usage error.

A grid's --plot (kvw sweep --plan DIR --jobs 1 --plot PNG over two texts): the policy's line and
its 95 % bootstrap band (the line's colour at alpha 50 over white) are drawn, from sweep.csv.

usage: policy_commands.py KVW TEXT GATE WORK
"""
import json
import pathlib
import struct
import subprocess
import sys
import zlib

KVW, TEXT, GATE = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3]
WORK = pathlib.Path(sys.argv[4])
COLORS = {"streaming-llm": (0x4E, 0x79, 0xA7), "random": (0xF2, 0x8E, 0x2B)}


def decode_png(data: bytes):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB or RGBA, non-interlaced PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and color in (2, 6) and interlace == 0, (depth, color, interlace)
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def main():
    WORK.mkdir(parents=True, exist_ok=True)
    text = WORK / "text.txt"
    text.write_text(TEXT.read_text(encoding="utf-8")[:400], encoding="utf-8")
    run = subprocess.run([KVW, "compare", "--model", "builtin:default", "--file", str(text),
                          "--ctx", "32", "--sink", "2", "--budget", "4", "--window", "3",
                          "--policy", "streaming-llm", "--policy", "smartkv", "--gate", GATE,
                          "--json"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    a, b = out["policies"]
    assert (a["policy"], b["policy"]) == ("streaming-llm", "smartkv"), out["policies"]
    assert abs(out["nll_difference"] - (b["mean_nll"] - a["mean_nll"])) < 1e-12, out
    for layer in out["layers"]:
        assert layer["kept_a"] == layer["kept_b"] == 2 + 4 + 3, layer
        assert 2 + 3 <= layer["both"] <= 9, layer  # sinks and window are the same records
        either = layer["kept_a"] + layer["kept_b"] - layer["both"]
        assert abs(layer["jaccard"] - layer["both"] / either) < 1e-12, layer

    # One RoPE policy prices a cache policy whichever command prices it (issue 25 item 18):
    # kvw perplexity's session path without --rope gives compare's numbers, and every command
    # names the policy beside its perplexities.
    rope = out["rope"]
    common = ["--model", "builtin:default", "--file", str(text), "--ctx", "32", "--sink", "2",
              "--budget", "4", "--window", "3", "--policy", "streaming-llm"]
    run = subprocess.run([KVW, "perplexity", *common, "--json"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    ppl = json.loads(run.stdout)
    assert ppl["rope"] == rope, (ppl["rope"], rope)
    assert abs(ppl["perplexity"] - a["perplexity"]) <= 1e-9 * a["perplexity"], (ppl, a)
    run = subprocess.run([KVW, "perplexity", *common], capture_output=True, text=True)
    assert run.returncode == 0 and f"(RoPE {rope})" in run.stdout, run.stdout
    run = subprocess.run([KVW, "compare", *common, "--policy", "random"], capture_output=True,
                         text=True)
    assert run.returncode == 0 and f"RoPE {rope}" in run.stdout, run.stdout

    csv, png = WORK / "sweep.csv", WORK / "sweep.png"
    png.unlink(missing_ok=True)
    run = subprocess.run([KVW, "sweep", "--model", "builtin:default", "--file", str(text),
                          "--ctx", "32", "--sink", "2", "--window", "4", "--budgets", "2,6,10",
                          "--policy", "streaming-llm", "--policy", "random", "--out", str(csv),
                          "--plot", str(png)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    lines = csv.read_text().splitlines()
    assert lines[1].startswith("full,"), lines
    policies = [line.split(",")[0] for line in lines[2:]]
    assert policies == ["streaming-llm"] * 3 + ["random"] * 3, policies
    assert lines[0].endswith(",rope") and all(line.endswith("," + rope) for line in lines[2:]), lines

    width, height, rows = decode_png(png.read_bytes())
    assert (width, height) == (800, 480), (width, height)
    count = {name: 0 for name in COLORS}
    black = 0
    for row in rows:
        for pixel in row:
            for name, color in COLORS.items():
                count[name] += pixel == color
            black += pixel == (0, 0, 0)
    for name, n in count.items():
        assert n > 200, f"{name}'s line colour covers {n} pixels"
    assert black > 100, f"black (axes, full cache, text) covers {black} pixels"

    bad = WORK / "bad.csv"
    bad.write_text("policy,budget\nh2o,3\n")
    helper = pathlib.Path(KVW).with_name("kvw-plot-sweep")
    run = subprocess.run([str(helper), str(bad), str(WORK / "bad.png")], capture_output=True,
                         text=True)
    assert run.returncode == 1 and f"{bad}:1: not a kvw sweep CSV" in run.stderr, run.stderr
    run = subprocess.run([KVW, "sweep", "--file", str(text), "--plot", str(png)],
                         capture_output=True, text=True)
    assert run.returncode != 0 and "--plot needs --out" in run.stderr, run.stderr

    # A grid: one policy over two texts, so its band is the only one and keeps its own colour.
    second = WORK / "text2.txt"
    second.write_text(TEXT.read_text(encoding="utf-8")[400:800], encoding="utf-8")
    grid, grid_png = WORK / "grid", WORK / "grid.png"
    for path in sorted(grid.glob("**/*"), reverse=True) if grid.exists() else []:
        path.unlink() if path.is_file() else path.rmdir()
    run = subprocess.run([KVW, "sweep", "--plan", str(grid), "--model", "builtin:default",
                          "--file", str(text), "--file", str(second), "--ctx", "32",
                          "--sink", "2", "--window", "4", "--budgets", "2,6,10",
                          "--policy", "full", "--policy", "streaming-llm", "--jobs", "1",
                          "--plot", str(grid_png), "--quiet"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    rows = (grid / "sweep.csv").read_text().splitlines()
    assert len(rows) == 1 + 1 + 3 and rows[1].split(",")[1] == "full", rows
    width, height, rows = decode_png(grid_png.read_bytes())
    line = COLORS["streaming-llm"]
    band = tuple(round(255 + (c - 255) * 50 / 255) for c in line)
    near = lambda p, c: all(abs(a - b) <= 2 for a, b in zip(p, c))
    n_line = sum(pixel == line for row in rows for pixel in row)
    n_band = sum(near(pixel, band) for row in rows for pixel in row)
    assert n_line > 200 and n_band > 500, (n_line, n_band, band)
    print("ok")


main()
