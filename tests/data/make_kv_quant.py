"""Reference encodings of cached K/V rows (core/math/kv_quant.h) by independent code.

FP8 E4M3 through the `ml_dtypes` package's float8_e4m3fn cast; int8 written here in numpy from
the definition (scale = finite amax / 127, q = clip(rint(x / scale), -127, 127)).

Layout under OUTDIR, raw little-endian arrays, groups of GROUP = 16 values:
  e4m3_in.f32 / e4m3_cast.u8   float32 inputs and their plain float8_e4m3fn cast (RNE; NaN,
                               infinities and values rounding past 448 become NaN, sign kept)
  e4m3_codes.f32               the 256 codes decoded to float32 (index == code)
  groups.f32                   [n][GROUP] rows to quantise: random and edge groups
  int8_scale.f32 / int8_q.i8   [n] scales, [n][GROUP] codes
  int8_out.f32                 [n][GROUP] decoded values (q * scale in float32)
  fp8_scale.f32 / fp8_code.u8  [n] scales (finite amax / 448), [n][GROUP] codes of the scaled
                               values clamped to +-448
  fp8_out.f32                  [n][GROUP] decoded values (float32(code) * scale)
"""
import pathlib

import ml_dtypes
import numpy as np

GROUP = 16
E4M3 = ml_dtypes.float8_e4m3fn


def edge_values() -> np.ndarray:
    f32 = np.float32
    codes = np.arange(256, dtype=np.uint8).view(E4M3).astype(np.float32)
    finite = codes[np.isfinite(codes)]
    pos = np.unique(finite[finite > 0])
    midpoints = (pos[:-1].astype(np.float64) + pos[1:]) / 2  # exact ties: round to even
    values = [0.0, -0.0, 1e-45, -1e-45, 1e-40, 2.0**-10, 3 * 2.0**-10, 2.0**-9, 2.0**-6,
              448.0, 449.0, 463.9, 464.0, 465.0, 480.0, 1e6, 3.4e38, np.inf, -np.inf, np.nan]
    out = np.concatenate([np.array(values, dtype=f32), pos, -pos, midpoints.astype(f32),
                          -midpoints.astype(f32), np.nextafter(midpoints.astype(f32), f32(0)),
                          np.nextafter(midpoints.astype(f32), f32(np.inf))])
    return out.astype(np.float32)


def random_values(rng: np.random.Generator, n: int) -> np.ndarray:
    return (rng.standard_normal(n) * 10.0 ** rng.uniform(-12, 4, n)).astype(np.float32)


def groups(rng: np.random.Generator) -> np.ndarray:
    rows = [random_values(rng, GROUP) for _ in range(200)]
    rows += [(rng.standard_normal(GROUP) * s).astype(np.float32) for s in (1.0, 1e-3, 1e3)]
    special = [np.zeros(GROUP), np.full(GROUP, -0.0), np.full(GROUP, 1e-45),
               np.full(GROUP, 3.4e38)]
    for bad in (np.nan, np.inf, -np.inf):
        r = rng.standard_normal(GROUP)
        r[3] = bad
        special.append(r)
    tiny = rng.standard_normal(GROUP) * 1e-39  # amax / 127 underflows towards 0
    special.append(tiny)
    edges = edge_values()
    edges = edges[: len(edges) // GROUP * GROUP].reshape(-1, GROUP)
    rows += [np.asarray(r, dtype=np.float32) for r in special] + list(edges)
    return np.stack(rows).astype(np.float32)


def finite_amax(g: np.ndarray) -> np.float32:
    finite = np.abs(g[np.isfinite(g)])
    return np.float32(finite.max() if finite.size else 0.0)


def int8_reference(rows: np.ndarray):
    scales, codes = [], []
    for g in rows:
        s = np.float32(finite_amax(g) / np.float32(127))
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            t = g / s if s > 0 else g.copy()
        t = np.where(np.isnan(g), np.float32(0), np.rint(t))
        codes.append(np.clip(t, -127, 127).astype(np.int8))
        scales.append(s)
    scales = np.array(scales, dtype=np.float32)
    codes = np.stack(codes)
    return scales, codes, (codes.astype(np.float32) * scales[:, None]).astype(np.float32)


def fp8_reference(rows: np.ndarray):
    scales, codes = [], []
    for g in rows:
        s = np.float32(finite_amax(g) / np.float32(448))
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            t = g / s if s > 0 else g.copy()
        t = np.where(np.isnan(t), t, np.clip(t, -448, 448)).astype(np.float32)
        codes.append(t.astype(E4M3).view(np.uint8))
        scales.append(s)
    scales = np.array(scales, dtype=np.float32)
    codes = np.stack(codes)
    out = codes.view(E4M3).astype(np.float32) * scales[:, None]
    return scales, codes, out.astype(np.float32)


def generate(out: pathlib.Path) -> None:
    rng = np.random.default_rng(11)
    cast_in = np.concatenate([edge_values(), random_values(rng, 20000)]).astype(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        cast = cast_in.astype(E4M3).view(np.uint8)
    cast_in.tofile(out / "e4m3_in.f32")
    cast.tofile(out / "e4m3_cast.u8")
    np.arange(256, dtype=np.uint8).view(E4M3).astype(np.float32).tofile(out / "e4m3_codes.f32")

    rows = groups(rng)
    rows.tofile(out / "groups.f32")
    for name, reference in (("int8", int8_reference), ("fp8", fp8_reference)):
        scales, codes, decoded = reference(rows)
        scales.tofile(out / f"{name}_scale.f32")
        codes.tofile(out / (f"{name}_q.i8" if name == "int8" else f"{name}_code.u8"))
        decoded.tofile(out / f"{name}_out.f32")
