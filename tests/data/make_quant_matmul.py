"""Weights of every storage type for the matmul kernel tests (test_quant_matmul), stored and
dequantised by the independent `gguf` package.

Files (all in OUTDIR): cases.json lists {name, dtype, rows, cols}; NAME.raw.bin holds the
weight as stored (rows of blocks), NAME.f32.bin gguf's dequantisation of it (float32 [rows][cols]),
which the test multiplies in float64 as the reference. Shapes are odd: row counts that are not
multiples of any tile (4, 8, 16 rows), and for the plain types column counts that are not
multiples of a vector (8 or 16 lanes); the block types need whole blocks per row and have
several (the fast kernels, test_fast_kernels, sum per block).
"""
import json
import pathlib

import numpy as np
from gguf import GGMLQuantizationType as QT
from gguf.quants import dequantize, quantize

import make_gguf

RNG_SEED = 20241123

CASES = [  # name, type, rows, cols
    ("f32_13x37", QT.F32, 13, 37),
    ("f16_21x45", QT.F16, 21, 45),
    ("bf16_11x70", QT.BF16, 11, 70),
    ("q8_0_19x96", QT.Q8_0, 19, 96),
    ("q4_0_13x160", QT.Q4_0, 13, 160),
    ("q4_k_11x512", QT.Q4_K, 11, 512),
    ("q6_k_17x512", QT.Q6_K, 17, 512),
    # Rows for the amx path's tiles of sixteen (fast_vnni_batch.cpp) on 1 to 3 threads, then
    # fewer: 53 rows.
    ("q4_0_53x160", QT.Q4_0, 53, 160),
    ("q4_k_53x512", QT.Q4_K, 53, 512),
    ("q6_k_53x768", QT.Q6_K, 53, 768),
    # Rows enough for a decode's row blocks to be claimed in several turns at each type's claim
    # size (core/backend/cpu/fast_cpu_backend.cpp), the last claim short.
    ("q4_0_450x64", QT.Q4_0, 450, 64),
    ("q4_k_450x256", QT.Q4_K, 450, 256),
    ("q6_k_330x256", QT.Q6_K, 330, 256),
    # Rows over several segments of the device mat-vec (256 columns), the last one short.
    ("q8_0_5x608", QT.Q8_0, 5, 608),
    ("q4_0_3x800", QT.Q4_0, 3, 800),
]


def generate(out: pathlib.Path) -> None:
    rng = np.random.default_rng(RNG_SEED)
    listed = []
    for name, qtype, rows, cols in CASES:
        source = rng.standard_normal((rows, cols)).astype(np.float32)
        if qtype == QT.F32:
            stored = source
        elif qtype == QT.F16:
            stored = source.astype(np.float16)
        elif qtype in (QT.Q4_K, QT.Q6_K):  # gguf cannot quantise these: random valid blocks
            block_bytes, scales = (144, [0, 2]) if qtype == QT.Q4_K else (210, [208])
            stored = make_gguf.random_k_blocks(rng, rows * cols // 256, block_bytes, scales)
            stored = stored.reshape(rows, -1)
        else:
            stored = quantize(source, qtype)
        values = dequantize(stored.view(np.uint8) if qtype == QT.F16 else stored, qtype)
        stored.tofile(out / f"{name}.raw.bin")
        np.asarray(values, dtype=np.float32).reshape(rows, cols).tofile(out / f"{name}.f32.bin")
        listed.append({"name": name, "dtype": qtype.name.lower(), "rows": rows, "cols": cols})
    (out / "cases.json").write_text(json.dumps(listed, indent=1))
