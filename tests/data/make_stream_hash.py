"""Reference XXH64 digests (seed 0) of byte strings, by the `xxhash` package, for the state
hash's StreamHash (core/state/stream_hash.h).

Layout under OUTDIR:
  input.bin     the concatenation of every case's bytes
  cases.txt     one line per case: offset length digest (decimal offset and length, 16 hex
                digits), lengths 0..300 (every tail path of the algorithm, whole stripes and not) and a few long
                ones
"""
import pathlib

import numpy as np
import xxhash


def generate(out: pathlib.Path) -> None:
    rng = np.random.default_rng(20261125)
    lengths = list(range(0, 301)) + [1000, 4096, 65537]
    data = bytearray()
    lines = []
    for n in lengths:
        case = rng.integers(0, 256, size=n, dtype=np.uint8).tobytes()
        lines.append(f"{len(data)} {n} {xxhash.xxh64_hexdigest(case, seed=0)}")
        data += case
    (out / "input.bin").write_bytes(bytes(data))
    (out / "cases.txt").write_text("\n".join(lines) + "\n")
