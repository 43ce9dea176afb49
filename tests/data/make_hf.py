"""Hugging Face Llama folders for the safetensors / config.json / tokenizer.json loader.

Independent writers only: tensors through the `safetensors` package, the tokenizer trained by
`sentencepiece` and laid out the way transformers' LlamaConverter lays out tokenizer.json, the
GGUF twin through the `gguf` package with llama.cpp's Q/K permutation, and reference logits
computed here in float64 with Hugging Face's rotate-half RoPE.

Layout under OUTDIR (each model folder holds config.json + tokenizer.json + weights):
  f32/ bf16/ f16/         the tiny model, one model.safetensors each
  sharded/                the f32 weights in two shards + model.safetensors.index.json
  tied/                   tie_word_embeddings, no lm_head.weight
  misaligned_f32/         the f32 file with its data starting at 2 mod 4
  expected/<dtype>/NAME.bin  raw little-endian bytes of every tensor as numpy holds them
  bad_*/                  one defect each (see BAD_CASES below for what the test expects)
  tokenizer_metaspace.json  the same vocabulary in the newer Metaspace + [a, b] merges form
  tokenizer_cases.txt     hex(UTF-8 text) TAB sentencepiece ids (space separated), per line
  tiny.gguf               the f32 model as convert_hf_to_gguf.py writes a llama
  rope_reference.txt      line 1: token ids; line 2: float64 logits of the last token
"""
import json
import pathlib
import random
import shutil

import gguf
import numpy as np
import safetensors
import safetensors.numpy
import sentencepiece as spm

from llama_spm import train_llama_bpe

SEED = 20240611
N_LAYERS, HIDDEN, N_HEADS, N_KV_HEADS, FFN = 2, 64, 4, 2, 128
HEAD_DIM = HIDDEN // N_HEADS
ROPE_THETA, RMS_EPS, MAX_POS = 10000.0, 1e-5, 256
SPACE = "\u2581"

WORDS = ("the of and to in is was for on that with as by at from it this be are have not had "
         "kv cache token layer head rope position mirror ledger tick gist ring buffer window "
         "sink budget attention query key value matrix vector model weight tensor shard "
         "naïve café über straße façade jalapeño déjà résumé 東京 数据 模型 Ελλάδα мир "
         "2024 1.1B 32000 3.14159 x86_64 C++20 (see §4) e-mail: a@b.c").split()


# ---------------------------------------------------------------- tokenizer


def corpus(rng: random.Random):
    for _ in range(4000):
        words = [rng.choice(WORDS) for _ in range(rng.randint(3, 14))]
        line = " ".join(words)
        if rng.random() < 0.3:
            line = line.capitalize() + rng.choice([".", "!", "?", ",", ";"])
        yield line


def train_sentencepiece() -> spm.SentencePieceProcessor:
    return train_llama_bpe(corpus(random.Random(SEED)), 700, character_coverage=1.0,
                           unk_id=0, bos_id=1, eos_id=2, pad_id=-1)


def hf_merges(sp: spm.SentencePieceProcessor):
    """transformers' SentencePieceExtractor.extract with vocab scores: every split of a piece
    into two pieces of the vocabulary is a merge; merges ordered by the piece's score, highest
    first (a stable sort, so equal scores keep vocabulary order), splits of one piece by the
    ids of their halves."""
    vocab = {sp.id_to_piece(i): i for i in range(sp.get_piece_size())}
    merges = []
    for piece, pid in vocab.items():
        local = [(piece[:k], piece[k:], sp.get_score(pid)) for k in range(1, len(piece))
                 if piece[:k] in vocab and piece[k:] in vocab]
        local.sort(key=lambda m: (vocab[m[0]], vocab[m[1]]))
        merges.extend(local)
    merges.sort(key=lambda m: m[2], reverse=True)
    return [(left, right) for left, right, _ in merges]


def added_token(i, content):
    return {"id": i, "content": content, "single_word": False, "lstrip": False,
            "rstrip": False, "normalized": False, "special": True}


def tokenizer_json(sp: spm.SentencePieceProcessor, metaspace: bool) -> dict:
    """LlamaConverter's output: legacy (Prepend + Replace normalizer, "a b" merges) or the
    newer non-legacy form (Metaspace pre-tokenizer, [a, b] merges)."""
    vocab = {sp.id_to_piece(i): i for i in range(sp.get_piece_size())}
    merges = hf_merges(sp)
    bos = {"SpecialToken": {"id": "<s>", "type_id": 0}}
    doc = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [added_token(0, "<unk>"), added_token(1, "<s>"), added_token(2, "</s>")],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": SPACE},
            {"type": "Replace", "pattern": {"String": " "}, "content": SPACE}]},
        "pre_tokenizer": None,
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [bos, {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [bos, {"Sequence": {"id": "A", "type_id": 0}}, bos,
                     {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": SPACE}, "content": " "},
            {"type": "ByteFallback"}, {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>",
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                  "vocab": vocab, "merges": [f"{a} {b}" for a, b in merges]},
    }
    if metaspace:
        doc["normalizer"] = None
        doc["pre_tokenizer"] = {"type": "Metaspace", "replacement": SPACE,
                                "prepend_scheme": "first", "split": False}
        doc["model"]["merges"] = [[a, b] for a, b in merges]
    return doc


def test_strings(rng: random.Random):
    fixed = ["", " ", "  ", "   ", "\t", "\n", " \n ", "a", " a", "  a", "a ", "a  ", "a  b",
             "Hello world", " Hello world", "Hello  world  ", "hello\nworld", "tab\tseparated",
             "emoji 🙂 here", "🙂", "🦙🦙🦙", "naïve café", "東京の数据", "Ελλάδα мир", "☃ snow",
             "mid-wor", "atten", "the kv cach", "x86_64", "C++20", "3.14159265358979",
             "e-mail: a@b.c!", "<s>", "</s>", "<unk>", "<0x41>", "\u2581", "\u2581\u2581a",
             "zzzzzzzz", "ZZZ QQQ", "a" * 50, " " * 17 + "x", "ß" * 5, "Ǆ ǅ ǆ", "\x00",
             "\x7f", "control\x01char"]
    alphabet = list("abcdefghijklmnopqrstuvwxyz ABCXYZ  0123456789.,;!?-_()'\"") + \
        list("éüßçñ東京数据模型Ελμир🙂🦙😀✓€") + ["\n", "\t", "  "]
    out = list(fixed)
    while len(out) < 150:
        out.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40))))
    while len(out) < 320:
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 12))]
        text = rng.choice([" ", "  ", " "]).join(words)
        if rng.random() < 0.3:
            text = text[: rng.randint(1, len(text))]  # ends mid-word
        if rng.random() < 0.2:
            text = " " * rng.randint(1, 3) + text
        out.append(text)
    return out


# ---------------------------------------------------------------- weights


def tensor_names():
    names = ["model.embed_tokens.weight", "model.norm.weight", "lm_head.weight"]
    for i in range(N_LAYERS):
        p = f"model.layers.{i}."
        names += [p + n + ".weight" for n in (
            "input_layernorm", "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj",
            "self_attn.o_proj", "post_attention_layernorm", "mlp.gate_proj", "mlp.up_proj",
            "mlp.down_proj")]
    return names


def shape_of(name: str, vocab: int):
    kv = N_KV_HEADS * HEAD_DIM
    table = {"embed_tokens": (vocab, HIDDEN), "lm_head": (vocab, HIDDEN), "norm": (HIDDEN,),
             "layernorm": (HIDDEN,), "q_proj": (HIDDEN, HIDDEN), "k_proj": (kv, HIDDEN),
             "v_proj": (kv, HIDDEN), "o_proj": (HIDDEN, HIDDEN), "gate_proj": (FFN, HIDDEN),
             "up_proj": (FFN, HIDDEN), "down_proj": (HIDDEN, FFN)}
    for key, shape in table.items():
        if key in name:
            return shape
    raise KeyError(name)


def make_weights(vocab: int) -> dict:
    rng = np.random.default_rng(SEED)
    weights = {}
    for name in tensor_names():
        shape = shape_of(name, vocab)
        if len(shape) == 1:
            w = 1.0 + 0.1 * rng.standard_normal(shape)
        elif "embed" in name:
            w = rng.standard_normal(shape)
        else:
            w = rng.standard_normal(shape) / np.sqrt(shape[1])
        weights[name] = w.astype(np.float32)
    return weights


def bf16_bits(a: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bit patterns, round to nearest even (no NaNs in our weights)."""
    u = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def save_bf16(tensors: dict, path: pathlib.Path):
    """safetensors.numpy has no bfloat16; the package's own serializer takes raw bytes."""
    specs = {name: safetensors.TensorSpec(dtype="bfloat16", shape=list(bits.shape),
                                          data_ptr=bits.ctypes.data, data_len=bits.nbytes)
             for name, bits in tensors.items()}
    safetensors.serialize_file(specs, str(path))


def config_json(vocab: int, **override) -> dict:
    doc = {"architectures": ["LlamaForCausalLM"], "model_type": "llama",
           "_name_or_path": "kvw-tiny-hf", "hidden_size": HIDDEN,
           "num_hidden_layers": N_LAYERS, "num_attention_heads": N_HEADS,
           "num_key_value_heads": N_KV_HEADS, "intermediate_size": FFN, "vocab_size": vocab,
           "max_position_embeddings": MAX_POS, "rope_theta": ROPE_THETA,
           "rms_norm_eps": RMS_EPS, "tie_word_embeddings": False, "rope_scaling": None,
           "hidden_act": "silu", "bos_token_id": 1, "eos_token_id": 2,
           "torch_dtype": "float32"}
    doc.update(override)
    return doc


def write_folder(root: pathlib.Path, name: str, tok: dict, config: dict) -> pathlib.Path:
    folder = root / name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    (folder / "tokenizer.json").write_text(json.dumps(tok, ensure_ascii=False))
    return folder


def read_header(path: pathlib.Path):
    raw = path.read_bytes()
    n = int.from_bytes(raw[:8], "little")
    return json.loads(raw[8:8 + n]), raw[8 + n:]


def write_with_header(path: pathlib.Path, header: dict, data: bytes):
    text = json.dumps(header).encode()
    path.write_bytes(len(text).to_bytes(8, "little") + text + data)


# ---------------------------------------------------------------- reference forward


def rms_norm(x, w):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + RMS_EPS) * w


def rotate_half(x):
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def reference_logits(w: dict, ids: list) -> np.ndarray:
    """transformers' LlamaForCausalLM forward in float64, written out plainly."""
    W = {k: v.astype(np.float64) for k, v in w.items()}
    T = len(ids)
    x = W["model.embed_tokens.weight"][ids]
    inv_freq = 1.0 / ROPE_THETA ** (np.arange(0, HEAD_DIM, 2, dtype=np.float64) / HEAD_DIM)
    freqs = np.outer(np.arange(T, dtype=np.float64), inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos, sin = np.cos(emb)[:, None, :], np.sin(emb)[:, None, :]
    group = N_HEADS // N_KV_HEADS
    for i in range(N_LAYERS):
        p = f"model.layers.{i}."
        h = rms_norm(x, W[p + "input_layernorm.weight"])
        q = (h @ W[p + "self_attn.q_proj.weight"].T).reshape(T, N_HEADS, HEAD_DIM)
        k = (h @ W[p + "self_attn.k_proj.weight"].T).reshape(T, N_KV_HEADS, HEAD_DIM)
        v = (h @ W[p + "self_attn.v_proj.weight"].T).reshape(T, N_KV_HEADS, HEAD_DIM)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        out = np.zeros((T, N_HEADS, HEAD_DIM))
        for head in range(N_HEADS):
            kv = head // group
            scores = q[:, head] @ k[:, kv].T / np.sqrt(HEAD_DIM)
            scores[np.triu_indices(T, 1)] = -np.inf
            probs = np.exp(scores - scores.max(axis=-1, keepdims=True))
            probs /= probs.sum(axis=-1, keepdims=True)
            out[:, head] = probs @ v[:, kv]
        x = x + out.reshape(T, HIDDEN) @ W[p + "self_attn.o_proj.weight"].T
        h = rms_norm(x, W[p + "post_attention_layernorm.weight"])
        gate = h @ W[p + "mlp.gate_proj.weight"].T
        up = h @ W[p + "mlp.up_proj.weight"].T
        x = x + (gate / (1.0 + np.exp(-gate)) * up) @ W[p + "mlp.down_proj.weight"].T
    x = rms_norm(x, W["model.norm.weight"])
    return x[-1] @ W["lm_head.weight"].T


# ---------------------------------------------------------------- GGUF twin


def permute(weights: np.ndarray, n_head: int, n_head_kv):
    """llama.cpp convert_hf_to_gguf.py LlamaModel.permute: HF rotate-half rows -> the
    interleaved order GGUF llama expects (K uses the KV head count)."""
    if n_head_kv is not None and n_head != n_head_kv:
        n_head = n_head_kv
    return (weights.reshape(n_head, 2, weights.shape[0] // n_head // 2, *weights.shape[1:])
            .swapaxes(1, 2)
            .reshape(weights.shape))


GGUF_NAMES = {"input_layernorm": "attn_norm", "self_attn.q_proj": "attn_q",
              "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
              "self_attn.o_proj": "attn_output", "post_attention_layernorm": "ffn_norm",
              "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up", "mlp.down_proj": "ffn_down"}


def write_gguf(path: pathlib.Path, w: dict, sp: spm.SentencePieceProcessor):
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name("kvw-tiny-hf")
    writer.add_context_length(MAX_POS)
    writer.add_embedding_length(HIDDEN)
    writer.add_block_count(N_LAYERS)
    writer.add_feed_forward_length(FFN)
    writer.add_rope_dimension_count(HEAD_DIM)
    writer.add_head_count(N_HEADS)
    writer.add_head_count_kv(N_KV_HEADS)
    writer.add_layer_norm_rms_eps(RMS_EPS)
    writer.add_rope_freq_base(ROPE_THETA)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("llama")
    n = sp.get_piece_size()
    writer.add_token_list([sp.id_to_piece(i).encode() for i in range(n)])
    writer.add_token_scores([sp.get_score(i) for i in range(n)])
    types = []
    for i in range(n):
        if sp.is_unknown(i):
            types.append(gguf.TokenType.UNKNOWN)
        elif sp.is_control(i):
            types.append(gguf.TokenType.CONTROL)
        elif sp.is_byte(i):
            types.append(gguf.TokenType.BYTE)
        else:
            types.append(gguf.TokenType.NORMAL)
    writer.add_token_types(types)
    writer.add_bos_token_id(sp.bos_id())
    writer.add_eos_token_id(sp.eos_id())
    writer.add_unk_token_id(sp.unk_id())
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)

    writer.add_tensor("token_embd.weight", w["model.embed_tokens.weight"])
    writer.add_tensor("output_norm.weight", w["model.norm.weight"])
    writer.add_tensor("output.weight", w["lm_head.weight"])
    for i in range(N_LAYERS):
        for hf_name, gguf_name in GGUF_NAMES.items():
            data = w[f"model.layers.{i}.{hf_name}.weight"]
            if hf_name == "self_attn.q_proj":
                data = permute(data, N_HEADS, N_HEADS)
            elif hf_name == "self_attn.k_proj":
                data = permute(data, N_HEADS, N_KV_HEADS)
            writer.add_tensor(f"blk.{i}.{gguf_name}.weight", np.ascontiguousarray(data))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


# ---------------------------------------------------------------- bad inputs

# folder -> (ModelErrorKind, the file the error must name, the tensor it must name or "")
BAD_CASES = {}


def bad_folder(out, name, tok, config, kind, file, tensor=""):
    BAD_CASES[name] = (kind, file, tensor)
    return write_folder(out, name, tok, config)


def write_bad_inputs(out: pathlib.Path, w: dict, tok: dict, vocab: int):
    good = out / "f32" / "model.safetensors"
    header, data = read_header(good)
    cfg = config_json(vocab)

    # the last tensor in the file loses its tail
    last = max((k for k in header if k != "__metadata__"), key=lambda k: header[k]["data_offsets"][1])
    f = bad_folder(out, "bad_truncated", tok, cfg, "TensorDataPastEnd", "model.safetensors", last)
    (f / "model.safetensors").write_bytes(good.read_bytes()[:-10])

    f = bad_folder(out, "bad_header_length", tok, cfg, "Truncated", "model.safetensors")
    (f / "model.safetensors").write_bytes(good.read_bytes()[:200])

    f = bad_folder(out, "bad_json", tok, cfg, "BadMetadata", "model.safetensors")
    raw = bytearray(good.read_bytes())
    colon = raw.index(b":", 8)  # the first key's ":" becomes "," - a syntax error right there
    raw[colon] = ord(",")
    (f / "model.safetensors").write_bytes(bytes(raw))
    (f / "broken_offset.txt").write_text(str(colon))

    victim = "model.layers.1.mlp.up_proj.weight"
    h = json.loads(json.dumps(header))
    begin, end = h[victim]["data_offsets"]
    h[victim]["data_offsets"] = [begin + len(data), end + len(data)]
    f = bad_folder(out, "bad_offsets", tok, cfg, "TensorDataPastEnd", "model.safetensors", victim)
    write_with_header(f / "model.safetensors", h, data)

    # two tensors of equal size whose byte ranges overlap
    a, b = "model.layers.0.mlp.gate_proj.weight", "model.layers.0.mlp.up_proj.weight"
    h = json.loads(json.dumps(header))
    h[b]["data_offsets"] = h[a]["data_offsets"]
    f = bad_folder(out, "bad_overlap", tok, cfg, "TensorDataPastEnd", "model.safetensors", b)
    write_with_header(f / "model.safetensors", h, data)

    victim = "model.layers.0.self_attn.o_proj.weight"
    h = json.loads(json.dumps(header))
    h[victim]["shape"] = [HIDDEN, HIDDEN - 1]
    f = bad_folder(out, "bad_byte_size", tok, cfg, "ShapeMismatch", "model.safetensors", victim)
    write_with_header(f / "model.safetensors", h, data)

    victim = "model.layers.0.mlp.gate_proj.weight"
    f = bad_folder(out, "bad_shape", tok, cfg, "ShapeMismatch", "model.safetensors", victim)
    changed = dict(w)
    changed[victim] = np.ones((FFN - 32, HIDDEN), np.float32)
    safetensors.numpy.save_file(changed, str(f / "model.safetensors"))

    victim = "model.layers.1.self_attn.v_proj.weight"
    f = bad_folder(out, "bad_missing", tok, cfg, "MissingTensor", "model.safetensors", victim)
    safetensors.numpy.save_file({k: v for k, v in w.items() if k != victim},
                                str(f / "model.safetensors"))

    # config and embedding agree on vocab + 8; the tokenizer has only vocab: padded as
    # llama.cpp's converter pads it (Qwen's files), so it loads
    big = dict(w)
    rng = np.random.default_rng(1)
    for k in ("model.embed_tokens.weight", "lm_head.weight"):
        big[k] = np.concatenate([w[k], rng.standard_normal((8, HIDDEN)).astype(np.float32)])
    f = write_folder(out, "padded_vocab", tok, config_json(vocab + 8))
    safetensors.numpy.save_file(big, str(f / "model.safetensors"))
    # config and embedding agree on vocab - 8; the tokenizer has more tokens than that
    small = dict(w)
    for k in ("model.embed_tokens.weight", "lm_head.weight"):
        small[k] = np.ascontiguousarray(w[k][:-8])
    f = bad_folder(out, "bad_vocab_tokenizer", tok, config_json(vocab - 8), "VocabMismatch",
                   "tokenizer.json")
    safetensors.numpy.save_file(small, str(f / "model.safetensors"))
    # tokenizer and config agree; the embedding has 8 rows more
    f = bad_folder(out, "bad_vocab_embedding", tok, cfg, "VocabMismatch", "model.safetensors",
                   "model.embed_tokens.weight")
    safetensors.numpy.save_file(big, str(f / "model.safetensors"))

    victim = "model.layers.1.mlp.down_proj.weight"
    f = bad_folder(out, "bad_nan", tok, cfg, "NonFiniteWeight", "model.safetensors", victim)
    nan = dict(w)
    nan[victim] = w[victim].copy()
    nan[victim][3, 5] = np.nan  # element 3 * FFN + 5
    safetensors.numpy.save_file(nan, str(f / "model.safetensors"))

    victim = "model.layers.0.self_attn.k_proj.weight"
    f = bad_folder(out, "bad_inf_f16", tok, cfg, "NonFiniteWeight", "model.safetensors", victim)
    inf = {k: v.astype(np.float16) for k, v in w.items()}
    inf[victim][7, 0] = np.inf  # element 7 * HIDDEN
    safetensors.numpy.save_file(inf, str(f / "model.safetensors"))

    victim = "model.norm.weight"
    f = bad_folder(out, "bad_dtype_f64", tok, cfg, "UnknownTensorType", "model.safetensors",
                   victim)
    f64 = dict(w)
    f64[victim] = w[victim].astype(np.float64)
    safetensors.numpy.save_file(f64, str(f / "model.safetensors"))

    victim = "model.layers.0.input_layernorm.weight"
    f = bad_folder(out, "bad_dtype_i64", tok, cfg, "UnknownTensorType", "model.safetensors",
                   victim)
    i64 = dict(w)
    i64[victim] = np.arange(HIDDEN, dtype=np.int64)
    safetensors.numpy.save_file(i64, str(f / "model.safetensors"))

    victim = "model.layers.1.self_attn.q_proj.weight"
    f = bad_folder(out, "bad_shard_missing", tok, cfg, "MissingTensor",
                   "model-00002-of-00002.safetensors", victim)
    write_shards(f, {k: v for k, v in w.items() if k != victim}, extra_listing=[victim])

    # tie_word_embeddings false and no lm_head.weight: tying silently would run another model
    f = bad_folder(out, "bad_untied_no_lm_head", tok, cfg, "MissingTensor", "model.safetensors",
                   "lm_head.weight")
    safetensors.numpy.save_file({k: v for k, v in w.items() if k != "lm_head.weight"},
                                str(f / "model.safetensors"))

    # config.json says 1 layer, the checkpoint holds 2: the error names the first tensor (by
    # name) of the deepest layer
    f = bad_folder(out, "bad_extra_layers", tok, config_json(vocab, num_hidden_layers=1),
                   "ShapeMismatch", "model.safetensors",
                   f"model.layers.{N_LAYERS - 1}.input_layernorm.weight")
    safetensors.numpy.save_file(w, str(f / "model.safetensors"))

    with open(out / "bad_cases.txt", "w") as fh:
        for name, (kind, file, tensor) in sorted(BAD_CASES.items()):
            fh.write(f"{name}\t{kind}\t{file}\t{tensor}\n")


def write_shards(folder: pathlib.Path, w: dict, extra_listing=()):
    names = sorted(w)
    halves = [names[: len(names) // 2], names[len(names) // 2:]]
    weight_map = {}
    for i, part in enumerate(halves):
        shard = f"model-{i + 1:05d}-of-00002.safetensors"
        safetensors.numpy.save_file({k: w[k] for k in part}, str(folder / shard),
                                    metadata={"format": "pt"})
        weight_map.update({k: shard for k in part})
    for k in extra_listing:
        weight_map[k] = "model-00002-of-00002.safetensors"
    total = sum(v.nbytes for v in w.values())
    (folder / "model.safetensors.index.json").write_text(json.dumps(
        {"metadata": {"total_size": total}, "weight_map": weight_map}, indent=2))


# ---------------------------------------------------------------- main


def generate(out: pathlib.Path):
    out.mkdir(parents=True, exist_ok=True)
    sp = train_sentencepiece()
    vocab = sp.get_piece_size()
    tok = tokenizer_json(sp, metaspace=False)
    (out / "tokenizer_metaspace.json").write_text(
        json.dumps(tokenizer_json(sp, metaspace=True), ensure_ascii=False))
    with open(out / "tokenizer_cases.txt", "w") as fh:
        for text in test_strings(random.Random(SEED + 1)):
            ids = sp.encode(text)
            fh.write(text.encode("utf-8").hex() + "\t" + " ".join(map(str, ids)) + "\n")

    w = make_weights(vocab)
    cfg = config_json(vocab)
    safetensors.numpy.save_file(w, str(write_folder(out, "f32", tok, cfg) / "model.safetensors"),
                                metadata={"format": "pt"})
    f16 = {k: v.astype(np.float16) for k, v in w.items()}
    safetensors.numpy.save_file(
        f16, str(write_folder(out, "f16", tok, config_json(vocab, torch_dtype="float16"))
                 / "model.safetensors"))
    bf16 = {k: bf16_bits(v) for k, v in w.items()}
    save_bf16(bf16, write_folder(out, "bf16", tok, config_json(vocab, torch_dtype="bfloat16"))
              / "model.safetensors")
    write_shards(write_folder(out, "sharded", tok, cfg), w)
    tied = {k: v for k, v in w.items() if k != "lm_head.weight"}
    safetensors.numpy.save_file(
        tied, str(write_folder(out, "tied", tok, config_json(vocab, tie_word_embeddings=True))
                  / "model.safetensors"))

    # A header length that puts the data at 2 mod 4: legal, but f32 rows are misaligned.
    header, data = read_header(out / "f32" / "model.safetensors")
    text = json.dumps(header).encode()
    text += b" " * ((2 - 8 - len(text)) % 4)
    misaligned = write_folder(out, "misaligned_f32", tok, cfg) / "model.safetensors"
    misaligned.write_bytes(len(text).to_bytes(8, "little") + text + data)

    for dtype, arrays in (("f32", w), ("f16", f16), ("bf16", bf16)):
        d = out / "expected" / dtype
        d.mkdir(parents=True, exist_ok=True)
        for name, a in arrays.items():
            (d / f"{name}.bin").write_bytes(np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<")).tobytes())

    write_bad_inputs(out, w, tok, vocab)

    write_gguf(out / "tiny.gguf", w, sp)
    ids = [sp.bos_id()] + sp.encode("the kv cache keeps every token in its ring buffer")
    logits = reference_logits(w, ids)
    with open(out / "rope_reference.txt", "w") as fh:
        fh.write(" ".join(map(str, ids)) + "\n")
        fh.write(" ".join(repr(float(x)) for x in logits) + "\n")


if __name__ == "__main__":
    import sys
    generate(pathlib.Path(sys.argv[1]))
