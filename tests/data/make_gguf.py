"""GGUF test files written by the independent `gguf` package (GGUFWriter, gguf.quants).

Files (all in OUTDIR):
  metadata.gguf (+ metadata_v2.gguf, metadata_v1.gguf: the version field patched) and
  metadata_expected.json: one key of every value type plus arrays (nested too), each value
  spelled out with its type (integers as decimal strings, floats as float.hex()).
  tensors.gguf + tensors_expected.json: one tensor per supported type; for each, NAME.raw.bin
  (the stored bytes) and NAME.f32.bin (float32 values: the source values for F32, gguf's own
  dequantisation for every other type).
  tiny_*.gguf: a 2-layer llama model and its bad variants; tiny_expected.json says what each
  bad file must be rejected with (kind, tensor, offset) and holds the tiny config.
"""
import json
import pathlib
import struct

import numpy as np
import gguf
from gguf import GGMLQuantizationType as QT
from gguf import GGUFValueType as VT
from gguf.quants import dequantize, quantize

RNG_SEED = 20240607


def write(writer: gguf.GGUFWriter) -> None:
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


# --- metadata -----------------------------------------------------------------------------

def spell(vtype: VT, value, sub_type: VT | None = None):
    """The value as the C++ test expects it: {"type", "value"}, or for arrays
    {"type", "element_type", "values"}."""
    name = vtype.name.lower()
    if vtype == VT.ARRAY:
        return {"type": name, "element_type": sub_type.name.lower(),
                "values": [spell(sub_type, v) for v in value]}
    if vtype in (VT.FLOAT32, VT.FLOAT64):
        stored = float(np.float32(value)) if vtype == VT.FLOAT32 else float(value)
        return {"type": name, "value": stored.hex()}
    if vtype == VT.BOOL:
        return {"type": name, "value": bool(value)}
    if vtype == VT.STRING:
        return {"type": name, "value": value}
    return {"type": name, "value": str(int(value))}


def make_metadata(out: pathlib.Path) -> None:
    scalars = [
        ("test.uint8", VT.UINT8, 200),
        ("test.int8", VT.INT8, -100),
        ("test.uint16", VT.UINT16, 60000),
        ("test.int16", VT.INT16, -30000),
        ("test.uint32", VT.UINT32, 4_000_000_000),
        ("test.int32", VT.INT32, -2_000_000_000),
        ("test.float32", VT.FLOAT32, 3.1415927),
        ("test.bool", VT.BOOL, True),
        ("test.string", VT.STRING, "h\u00e9llo \u2581world \U0001F600"),
        ("test.uint64", VT.UINT64, 2**63 + 5),
        ("test.int64", VT.INT64, -(2**62) - 3),
        ("test.float64", VT.FLOAT64, -1.5e300),
        ("test.empty_string", VT.STRING, ""),
    ]
    arrays = [
        ("test.array_uint8", VT.UINT8, [0, 1, 255]),
        ("test.array_int16", VT.INT16, [-32768, 32767]),
        ("test.array_int32", VT.INT32, [1, -2, 3, -4]),
        ("test.array_uint64", VT.UINT64, [2**64 - 1, 0]),
        ("test.array_float32", VT.FLOAT32, [0.5, -1.25, 1e-30]),
        ("test.array_float64", VT.FLOAT64, [2.0**-1074, 1e308]),
        ("test.array_bool", VT.BOOL, [True, False, True]),
        ("test.array_string", VT.STRING, ["a", "", "\u2581b", "<0x0A>"]),
    ]
    w = gguf.GGUFWriter(out / "metadata.gguf", "llama")
    w.add_name("metadata test")
    expected = [
        {"key": "general.architecture", **spell(VT.STRING, "llama")},
        {"key": "general.name", **spell(VT.STRING, "metadata test")},
    ]
    for key, vtype, value in scalars:
        w.add_key_value(key, value, vtype)
        expected.append({"key": key, **spell(vtype, value)})
    for key, sub, values in arrays:
        w.add_key_value(key, values, VT.ARRAY, sub_type=sub)
        expected.append({"key": key, **spell(VT.ARRAY, values, sub)})
    # Nested arrays: the writer infers the inner element types (Python ints -> int32).
    nested = [[1, 2, 3], [4]]
    w.add_array("test.array_nested", nested)
    expected.append({"key": "test.array_nested", "type": "array", "element_type": "array",
                     "values": [spell(VT.ARRAY, inner, VT.INT32) for inner in nested]})
    write(w)
    (out / "metadata_expected.json").write_text(json.dumps(expected, indent=1))

    data = bytearray((out / "metadata.gguf").read_bytes())
    for version in (2, 1):
        data[4:8] = struct.pack("<I", version)
        (out / f"metadata_v{version}.gguf").write_bytes(bytes(data))


# --- tensors of every type -----------------------------------------------------------------

def random_k_blocks(rng, n_blocks: int, block_bytes: int, f16_offsets: list[int]) -> np.ndarray:
    """K-quant blocks from random bytes with sane f16 scales at the given byte offsets
    (gguf 0.19 cannot quantise to Q4_K/Q6_K; its dequantiser is the reference)."""
    blocks = rng.integers(0, 256, size=(n_blocks, block_bytes), dtype=np.uint8)
    for off in f16_offsets:
        scale = rng.uniform(1e-3, 2e-2, size=n_blocks).astype(np.float16)
        blocks[:, off:off + 2] = scale.view(np.uint8).reshape(n_blocks, 2)
    return blocks


def make_tensors(out: pathlib.Path) -> None:
    rng = np.random.default_rng(RNG_SEED)
    rows, cols = 3, 512  # 512 = two K-quant super-blocks per row
    w = gguf.GGUFWriter(out / "tensors.gguf", "llama")
    expected = []

    def add(name: str, qtype: QT, stored: np.ndarray, values: np.ndarray, shape: tuple[int, ...]):
        w.add_tensor(name, stored, raw_dtype=qtype)
        stored.tofile(out / f"{name}.raw.bin")
        values.astype(np.float32).tofile(out / f"{name}.f32.bin")
        expected.append({"name": name, "type": int(qtype), "shape_ne": list(reversed(shape))})

    source = rng.standard_normal((rows, cols)).astype(np.float32)
    f32 = np.array(source)
    f32[0, :4] = [0.0, -0.0, 1e-40, 3.4e38]  # a subnormal and a huge value read bit for bit
    add("t_F32", QT.F32, f32, f32, f32.shape)
    f16 = source.astype(np.float16)
    add("t_F16", QT.F16, f16, dequantize(f16.view(np.uint8), QT.F16), f16.shape)
    bf16 = quantize(source, QT.BF16)
    add("t_BF16", QT.BF16, bf16, dequantize(bf16, QT.BF16), source.shape)
    for qtype in (QT.Q8_0, QT.Q4_0):
        q = quantize(source, qtype)
        add(f"t_{qtype.name}", qtype, q, dequantize(q, qtype), source.shape)
    n_blocks = rows * cols // 256
    q4k = random_k_blocks(rng, n_blocks, 144, [0, 2]).reshape(rows, -1)
    add("t_Q4_K", QT.Q4_K, q4k, dequantize(q4k, QT.Q4_K), source.shape)
    q6k = random_k_blocks(rng, n_blocks, 210, [208]).reshape(rows, -1)
    add("t_Q6_K", QT.Q6_K, q6k, dequantize(q6k, QT.Q6_K), source.shape)
    cube = rng.standard_normal((2, 3, 4)).astype(np.float32)
    add("t_F32_3d", QT.F32, cube, cube, cube.shape)
    write(w)
    (out / "tensors_expected.json").write_text(json.dumps(expected, indent=1))


# --- a tiny llama model and its bad variants -----------------------------------------------

TINY = {"n_layers": 2, "n_embd": 64, "n_heads": 4, "n_kv_heads": 2, "n_ff": 96,
        "max_context": 128, "rope_theta": 500000.0, "rms_eps": 1e-5}


def tiny_vocab() -> tuple[list[str], list[float], list[int]]:
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    types = [2, 3, 3] + [6] * 256
    space = "\u2581"
    for piece in [space, "a", "b", "c", space + "a", space + "b", "ab", space + "ab", "abc",
                  space + "abc"]:
        tokens.append(piece)
        types.append(1)
    scores = [0.0] * 259 + [-float(i) for i in range(len(tokens) - 259)]
    return tokens, scores, types


def tiny_tensors(rng, vocab: int, quant: QT | None, config: dict = TINY):
    c = config
    head_dim = c["n_embd"] // c["n_heads"]
    q_dim, kv_dim = c["n_heads"] * head_dim, c["n_kv_heads"] * head_dim
    shapes = {"token_embd.weight": (vocab, c["n_embd"]), "output_norm.weight": (c["n_embd"],),
              "output.weight": (vocab, c["n_embd"])}
    for i in range(c["n_layers"]):
        p = f"blk.{i}."
        shapes.update({p + "attn_norm.weight": (c["n_embd"],),
                       p + "attn_q.weight": (q_dim, c["n_embd"]),
                       p + "attn_k.weight": (kv_dim, c["n_embd"]),
                       p + "attn_v.weight": (kv_dim, c["n_embd"]),
                       p + "attn_output.weight": (c["n_embd"], q_dim),
                       p + "ffn_norm.weight": (c["n_embd"],),
                       p + "ffn_gate.weight": (c["n_ff"], c["n_embd"]),
                       p + "ffn_up.weight": (c["n_ff"], c["n_embd"]),
                       p + "ffn_down.weight": (c["n_embd"], c["n_ff"])})
    tensors = {}
    for name, shape in shapes.items():
        values = (rng.standard_normal(shape) * 0.05).astype(np.float32)
        if len(shape) == 1:
            values += 1.0
        tensors[name] = (values, QT.F32 if quant is None or len(shape) == 1 else quant)
    return tensors


def write_tiny(path: pathlib.Path, tensors: dict, arch: str = "llama",
               vocab_size_key: int | None = None, tied: bool = False, config: dict = TINY):
    tokens, scores, types = tiny_vocab()
    c = config
    w = gguf.GGUFWriter(path, arch)
    w.add_name("tiny test llama")
    w.add_uint32("llama.block_count", c["n_layers"])
    w.add_uint32("llama.embedding_length", c["n_embd"])
    w.add_uint32("llama.attention.head_count", c["n_heads"])
    w.add_uint32("llama.attention.head_count_kv", c["n_kv_heads"])
    w.add_uint32("llama.feed_forward_length", c["n_ff"])
    w.add_uint32("llama.context_length", c["max_context"])
    w.add_float32("llama.rope.freq_base", c["rope_theta"])
    w.add_float32("llama.attention.layer_norm_rms_epsilon", c["rms_eps"])
    w.add_uint32("llama.rope.dimension_count", c["n_embd"] // c["n_heads"])
    if vocab_size_key is not None:
        w.add_uint32("llama.vocab_size", vocab_size_key)
    w.add_string("tokenizer.ggml.model", "llama")
    w.add_key_value("tokenizer.ggml.tokens", tokens, VT.ARRAY, sub_type=VT.STRING)
    w.add_key_value("tokenizer.ggml.scores", scores, VT.ARRAY, sub_type=VT.FLOAT32)
    w.add_key_value("tokenizer.ggml.token_type", types, VT.ARRAY, sub_type=VT.INT32)
    w.add_uint32("tokenizer.ggml.bos_token_id", 1)
    w.add_uint32("tokenizer.ggml.eos_token_id", 2)
    w.add_uint32("tokenizer.ggml.unknown_token_id", 0)
    w.add_bool("tokenizer.ggml.add_bos_token", True)
    w.add_bool("tokenizer.ggml.add_space_prefix", False)
    for name, (values, qtype) in tensors.items():
        if tied and name == "output.weight":
            continue
        stored = values if qtype == QT.F32 else quantize(values, qtype)
        w.add_tensor(name, stored, raw_dtype=qtype)
    write(w)


def tensor_info_offset(data: bytes, name: str) -> int:
    """Offset of NAME's tensor info record (its length-prefixed name), found in the raw bytes."""
    encoded = name.encode()
    at = data.find(struct.pack("<Q", len(encoded)) + encoded)
    assert at > 0 and data.find(struct.pack("<Q", len(encoded)) + encoded, at + 1) < 0
    return at


def make_tiny(out: pathlib.Path) -> None:
    rng = np.random.default_rng(RNG_SEED + 1)
    vocab = len(tiny_vocab()[0])
    tensors = tiny_tensors(rng, vocab, None)
    write_tiny(out / "tiny_f32.gguf", tensors)
    for name in ("blk.1.ffn_down.weight", "output_norm.weight"):
        tensors[name][0].tofile(out / f"tiny_f32.{name}.f32.bin")

    q8 = tiny_tensors(rng, vocab, QT.Q8_0)
    write_tiny(out / "tiny_q8_tied.gguf", q8, tied=True)
    for name in ("blk.0.attn_q.weight", "token_embd.weight"):
        values, qtype = q8[name]
        dequantize(quantize(values, qtype), qtype).astype(np.float32).tofile(
            out / f"tiny_q8_tied.{name}.f32.bin")

    bad = {}
    good = (out / "tiny_f32.gguf").read_bytes()

    (out / "bad_magic.gguf").write_bytes(b"GGML" + good[4:])
    bad["bad_magic.gguf"] = {"kind": "BadMagic", "offset": 0}

    cut = good.find(b"tokenizer.ggml.tokens") + 100  # inside the token strings
    (out / "truncated.gguf").write_bytes(good[:cut])
    bad["truncated.gguf"] = {"kind": "Truncated", "max_offset": cut,
                             "mentions": "tokenizer.ggml.tokens"}

    absurd = bytearray(good)
    absurd[24:32] = struct.pack("<Q", 2**60)  # length of the first key, right after the header
    (out / "absurd_string.gguf").write_bytes(bytes(absurd))
    bad["absurd_string.gguf"] = {"kind": "Truncated", "offset": 24}

    last = list(tensors)[-1]
    (out / "data_past_end.gguf").write_bytes(good[:-100])
    bad["data_past_end.gguf"] = {"kind": "TensorDataPastEnd", "tensor": last}

    unknown = bytearray(good)
    name = "blk.0.attn_v.weight"
    at = tensor_info_offset(good, name) + 8 + len(name)
    n_dims = struct.unpack_from("<I", good, at)[0]
    type_at = at + 4 + 8 * n_dims
    assert struct.unpack_from("<I", good, type_at)[0] == int(QT.F32)
    unknown[type_at:type_at + 4] = struct.pack("<I", 99)
    (out / "unknown_type.gguf").write_bytes(bytes(unknown))
    bad["unknown_type.gguf"] = {"kind": "UnknownTensorType", "tensor": name, "offset": type_at}

    shape = dict(tensors)
    wide = rng.standard_normal((64, 64)).astype(np.float32)  # kv_dim is 32
    shape["blk.0.attn_k.weight"] = (wide, QT.F32)
    write_tiny(out / "shape_mismatch.gguf", shape)
    bad["shape_mismatch.gguf"] = {"kind": "ShapeMismatch", "tensor": "blk.0.attn_k.weight",
                                  "offset": tensor_info_offset(
                                      (out / "shape_mismatch.gguf").read_bytes(),
                                      "blk.0.attn_k.weight")}

    missing = {k: v for k, v in tensors.items() if k != "blk.1.ffn_down.weight"}
    write_tiny(out / "missing_tensor.gguf", missing)
    bad["missing_tensor.gguf"] = {"kind": "MissingTensor", "tensor": "blk.1.ffn_down.weight"}

    write_tiny(out / "vocab_mismatch.gguf", tensors, vocab_size_key=vocab + 1)
    bad["vocab_mismatch.gguf"] = {"kind": "VocabMismatch", "mentions": "llama.vocab_size",
                                  "offset": (out / "vocab_mismatch.gguf").read_bytes().find(
                                      struct.pack("<Q", 16) + b"llama.vocab_size")}

    nan = dict(tensors)
    poisoned = tensors["blk.1.ffn_up.weight"][0].copy()
    poisoned.flat[123] = np.nan
    poisoned.flat[500] = np.inf
    nan["blk.1.ffn_up.weight"] = (poisoned, QT.F32)
    write_tiny(out / "nan_weight.gguf", nan)
    bad["nan_weight.gguf"] = {"kind": "NonFiniteWeight", "tensor": "blk.1.ffn_up.weight",
                              "element": 123}

    # one block more than llama.block_count: the error names the deepest block's first tensor
    deeper = dict(tensors)
    extra = TINY["n_layers"]
    for k, v in tensors.items():
        if k.startswith(f"blk.{extra - 1}."):
            deeper[k.replace(f"blk.{extra - 1}.", f"blk.{extra}.")] = v
    write_tiny(out / "extra_layer.gguf", deeper)
    first = sorted(k for k in deeper if k.startswith(f"blk.{extra}."))[0]
    bad["extra_layer.gguf"] = {"kind": "ShapeMismatch", "tensor": first,
                               "mentions": "llama.block_count",
                               "offset": tensor_info_offset(
                                   (out / "extra_layer.gguf").read_bytes(), first)}

    write_tiny(out / "not_llama.gguf", tensors, arch="gpt2")
    bad["not_llama.gguf"] = {"kind": "BadMetadata", "mentions": "general.architecture"}

    config = dict(TINY, vocab_size=vocab)
    (out / "tiny_expected.json").write_text(json.dumps({"config": config, "bad": bad}, indent=1))


def generate(outdir: pathlib.Path) -> None:
    make_metadata(outdir)
    make_tensors(outdir)
    make_tiny(outdir)


if __name__ == "__main__":
    import sys
    generate(pathlib.Path(sys.argv[1]))
