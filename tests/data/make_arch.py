"""One tiny random-weight model per Llama-family architecture, as a Hugging Face folder and as
the GGUF llama.cpp's converter makes of it, with float64 reference logits.

Independent writers only: tensors through the `safetensors` package, the byte-level tokenizer
through `tokenizers`, the GGUF through the `gguf` package with the key names
convert_hf_to_gguf.py writes for that architecture (and llama.cpp's Q/K permutation for
`llama` only: qwen2, qwen3 and phi3 keep Hugging Face's rows and rotate the two halves). The
reference forward below is transformers' modelling written out plainly in numpy float64, one
switch per family difference (Q/K/V biases, per-head Q/K RMSNorm, fused Q|K|V and gate|up,
tied embeddings, llama3, linear and LongRoPE scaling, sliding windows per layer).

Layout under OUTDIR, per family FAM (see FAMILIES):
  FAM/hf/           config.json, tokenizer.json, model.safetensors
  FAM/model.gguf    the same model as GGUF (not for a family marked hf_only)
  FAM/reference.txt line 1: prompt ids; line 2: float64 logits of the last prompt token;
                    line 3: the greedy continuation (GREEDY_STEPS ids), each step a full pass;
                    LongRoPE only, line 4: line 2's logits with the short factors (lines 2-3
                    are for a context of MAX_POS positions, longer than the original one)
  bad/NAME.gguf, bad/NAME/ (HF folders): one defect each; bad_cases.txt lists
                    NAME TAB kind TAB what the message must contain
  families.txt      one family a line
"""
import json
import pathlib
import shutil

import gguf
import numpy as np
import safetensors.numpy
from tokenizers import Tokenizer, decoders, models, pre_tokenizers

import make_bpe

SEED = 20251126
N_LAYERS, HIDDEN, N_HEADS, N_KV_HEADS, FFN = 2, 64, 4, 2, 96
ROPE_THETA, RMS_EPS, MAX_POS = 10000.0, 1e-6, 256
GREEDY_STEPS = 6
PROMPT = [3, 71, 200, 15, 99, 42, 180, 7, 64, 250, 33, 120, 5, 77, 160, 21, 90, 211, 44, 8]

# family -> what sets it apart. arch: GGUF general.architecture; cls: HF architectures entry.
FAMILIES = {
    "qwen2": dict(arch="qwen2", cls="Qwen2ForCausalLM", bias=True, tied=True),
    "qwen3": dict(arch="qwen3", cls="Qwen3ForCausalLM", qk_norm=True, head_dim=24),
    "llama3": dict(arch="llama", cls="LlamaForCausalLM", tied=True,
                   scaling={"rope_type": "llama3", "factor": 4.0, "low_freq_factor": 1.0,
                            "high_freq_factor": 4.0, "original_max_position_embeddings": 32}),
    "linear": dict(arch="llama", cls="LlamaForCausalLM",
                   scaling={"type": "linear", "factor": 2.5}),
    "phi3": dict(arch="phi3", cls="Phi3ForCausalLM", fused=True),
    # Sliding windows: Mistral v0.1's on every layer (GGUF: the key Phi-3's converter writes);
    # Qwen2's from max_window_layers on, which GGUF cannot say (HF folder only).
    "mistral": dict(arch="llama", cls="MistralForCausalLM", window=7),
    "qwen2_swa": dict(arch="qwen2", cls="Qwen2ForCausalLM", bias=True, tied=True, window=5,
                      max_window_layers=1, hf_only=True),
    # Phi-3-*-128k / Phi-3.5: per-pair divisors for contexts up to the original one (short) and
    # beyond (long), and an attention factor from the ratio of the contexts.
    "phi3_longrope": dict(arch="phi3", cls="Phi3ForCausalLM", fused=True, original=16,
                          scaling={"type": "longrope",
                                   "short_factor": [1.0, 1.02, 1.05, 1.1, 1.15, 1.2, 1.3, 1.5],
                                   "long_factor": [1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0]}),
}


def opt(fam: dict, key: str, default=False):
    return fam.get(key, default)


def head_dim(fam: dict) -> int:
    return opt(fam, "head_dim", HIDDEN // N_HEADS)


def layer_windows(fam: dict) -> list:
    """Per layer, how many positions back a query sees (0: all), as transformers decides."""
    first = opt(fam, "max_window_layers", 0)
    return [opt(fam, "window", 0) if i >= first else 0 for i in range(N_LAYERS)]


# ---------------------------------------------------------------- tokenizer


def make_tokenizer() -> Tokenizer:
    """GPT-2's byte alphabet, a few merges and two specials: enough for a loadable vocabulary
    (the tokenizers themselves are tested by make_bpe.py)."""
    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    vocab = {c: i for i, c in enumerate(alphabet)}
    merges = [("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("Ġ", "a"), ("i", "n"), ("Ġ", "c"),
              ("a", "c"), ("Ġc", "ac"), ("Ġcac", "he"), ("e", "r")]
    for a, b in merges:
        vocab[a + b] = len(vocab)
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens(["<|endoftext|>", "<|im_start|>"])
    return tok


def tokenizer_gguf(writer: gguf.GGUFWriter, tok: Tokenizer):
    pieces, types, merges = make_bpe.gguf_tokens(tok)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("gpt-2")
    writer.add_token_list(pieces)
    writer.add_token_types(types)
    writer.add_token_merges(merges)
    writer.add_bos_token_id(tok.token_to_id("<|endoftext|>"))
    writer.add_eos_token_id(tok.token_to_id("<|endoftext|>"))
    writer.add_add_bos_token(False)


# ---------------------------------------------------------------- weights (HF names)


def make_weights(fam: dict, vocab: int, rng) -> dict:
    hd = head_dim(fam)
    qd, kvd = N_HEADS * hd, N_KV_HEADS * hd

    def linear(rows, cols):
        return (rng.standard_normal((rows, cols)) / np.sqrt(cols)).astype(np.float32)

    def norm(n):
        return (1.0 + 0.1 * rng.standard_normal(n)).astype(np.float32)

    w = {"model.embed_tokens.weight": rng.standard_normal((vocab, HIDDEN)).astype(np.float32),
         "model.norm.weight": norm(HIDDEN)}
    if not opt(fam, "tied"):
        w["lm_head.weight"] = linear(vocab, HIDDEN)
    for i, window in enumerate(layer_windows(fam)):
        p = f"model.layers.{i}."
        a, m = p + "self_attn.", p + "mlp."
        w[p + "input_layernorm.weight"] = norm(HIDDEN)
        w[p + "post_attention_layernorm.weight"] = norm(HIDDEN)
        if opt(fam, "fused"):
            w[a + "qkv_proj.weight"] = linear(qd + 2 * kvd, HIDDEN)
            w[m + "gate_up_proj.weight"] = linear(2 * FFN, HIDDEN)
        else:
            w[a + "q_proj.weight"] = linear(qd, HIDDEN)
            w[a + "k_proj.weight"] = linear(kvd, HIDDEN)
            w[a + "v_proj.weight"] = linear(kvd, HIDDEN)
            w[m + "gate_proj.weight"] = linear(FFN, HIDDEN)
            w[m + "up_proj.weight"] = linear(FFN, HIDDEN)
        if opt(fam, "bias"):
            for name, n in (("q_proj", qd), ("k_proj", kvd), ("v_proj", kvd)):
                w[a + name + ".bias"] = (0.5 * rng.standard_normal(n)).astype(np.float32)
        if opt(fam, "qk_norm"):
            w[a + "q_norm.weight"] = norm(hd)
            w[a + "k_norm.weight"] = norm(hd)
        w[a + "o_proj.weight"] = linear(HIDDEN, qd)
        w[m + "down_proj.weight"] = linear(HIDDEN, FFN)
    return w


def config_json(fam: dict, vocab: int) -> dict:
    doc = {"architectures": [fam["cls"]], "model_type": fam["arch"],
           "_name_or_path": "kvw-arch-" + fam["arch"], "hidden_size": HIDDEN,
           "num_hidden_layers": N_LAYERS, "num_attention_heads": N_HEADS,
           "num_key_value_heads": N_KV_HEADS, "intermediate_size": FFN, "vocab_size": vocab,
           "max_position_embeddings": MAX_POS, "rope_theta": ROPE_THETA,
           "rms_norm_eps": RMS_EPS, "tie_word_embeddings": opt(fam, "tied"),
           "rope_scaling": opt(fam, "scaling", None), "hidden_act": "silu",
           "torch_dtype": "float32"}
    if fam["arch"] in ("qwen2", "qwen3"):
        # Qwen's files declare a window that applies only with use_sliding_window, and then
        # from layer max_window_layers on.
        doc.update(use_sliding_window="window" in fam, sliding_window=opt(fam, "window", 4096),
                   max_window_layers=opt(fam, "max_window_layers", 28), attention_dropout=0.0)
    elif "window" in fam:
        doc.update(model_type="mistral", sliding_window=fam["window"])
    if fam["arch"] == "qwen3":
        doc.update(head_dim=head_dim(fam), attention_bias=False)
    if fam["arch"] == "phi3":
        # As long as the context: no position falls outside it (Phi-3.5's 262144 > 131072).
        doc.update(sliding_window=MAX_POS, original_max_position_embeddings=original_context(fam),
                   attention_bias=False)
    return doc


# ---------------------------------------------------------------- reference forward


def original_context(fam: dict) -> int:
    """Phi-3's original_max_position_embeddings: the pretrained context."""
    return opt(fam, "original", MAX_POS)


def is_longrope(fam: dict) -> bool:
    return opt(fam, "scaling", {}).get("type") == "longrope"


def longrope_attention_factor(fam: dict) -> float:
    """transformers' _compute_longrope_parameters: from the ratio of the contexts."""
    factor = MAX_POS / original_context(fam)
    return 1.0 if factor <= 1.0 else float(np.sqrt(1 + np.log(factor) /
                                                   np.log(original_context(fam))))


def rms_norm(x, w):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + RMS_EPS) * w


def rotate_half(x):
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def inv_freq_of(fam: dict, long_context: bool) -> np.ndarray:
    """transformers' rope init functions (default, linear, llama3, longrope) in float64;
    long_context: LongRoPE's long factors (a context longer than the original one)."""
    hd = head_dim(fam)
    inv_freq = 1.0 / ROPE_THETA ** (np.arange(0, hd, 2, dtype=np.float64) / hd)
    s = opt(fam, "scaling", None)
    if s is None:
        return inv_freq
    kind = s.get("rope_type", s.get("type"))
    if kind == "linear":
        return inv_freq / s["factor"]
    if kind == "longrope":
        return inv_freq / np.array(s["long_factor" if long_context else "short_factor"])
    assert kind == "llama3"
    factor, low, high = s["factor"], s["low_freq_factor"], s["high_freq_factor"]
    old = s["original_max_position_embeddings"]
    low_wavelen, high_wavelen = old / low, old / high
    wavelen = 2 * np.pi / inv_freq
    scaled = np.where(wavelen > low_wavelen, inv_freq / factor, inv_freq)
    smooth = (old / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < high_wavelen) & ~(wavelen > low_wavelen)
    return np.where(medium, smoothed, scaled)


def reference_logits(fam: dict, w: dict, ids: list, long_context=True) -> np.ndarray:
    """Logits of every position: the family's transformers forward, float64, plainly."""
    W = {k: v.astype(np.float64) for k, v in w.items()}
    hd = head_dim(fam)
    qd, kvd = N_HEADS * hd, N_KV_HEADS * hd
    T = len(ids)
    x = W["model.embed_tokens.weight"][ids]
    freqs = np.outer(np.arange(T, dtype=np.float64), inv_freq_of(fam, long_context))
    emb = np.concatenate([freqs, freqs], axis=-1)
    # LongRoPE's attention factor multiplies cos and sin, as transformers applies it.
    scale = longrope_attention_factor(fam) if is_longrope(fam) else 1.0
    cos, sin = np.cos(emb)[:, None, :] * scale, np.sin(emb)[:, None, :] * scale
    group = N_HEADS // N_KV_HEADS
    for i, window in enumerate(layer_windows(fam)):
        p = f"model.layers.{i}."
        a, m = p + "self_attn.", p + "mlp."
        h = rms_norm(x, W[p + "input_layernorm.weight"])
        if opt(fam, "fused"):
            qkv = h @ W[a + "qkv_proj.weight"].T
            q, k, v = qkv[:, :qd], qkv[:, qd:qd + kvd], qkv[:, qd + kvd:]
        else:
            q = h @ W[a + "q_proj.weight"].T
            k = h @ W[a + "k_proj.weight"].T
            v = h @ W[a + "v_proj.weight"].T
        if opt(fam, "bias"):
            q = q + W[a + "q_proj.bias"]
            k = k + W[a + "k_proj.bias"]
            v = v + W[a + "v_proj.bias"]
        q = q.reshape(T, N_HEADS, hd)
        k = k.reshape(T, N_KV_HEADS, hd)
        v = v.reshape(T, N_KV_HEADS, hd)
        if opt(fam, "qk_norm"):
            q = rms_norm(q, W[a + "q_norm.weight"])
            k = rms_norm(k, W[a + "k_norm.weight"])
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        out = np.zeros((T, N_HEADS, hd))
        for head in range(N_HEADS):
            kv = head // group
            scores = q[:, head] @ k[:, kv].T / np.sqrt(hd)
            scores[np.triu_indices(T, 1)] = -np.inf
            if window:  # a query sees keys fewer than `window` positions back
                scores[np.tril_indices(T, -window)] = -np.inf
            probs = np.exp(scores - scores.max(axis=-1, keepdims=True))
            probs /= probs.sum(axis=-1, keepdims=True)
            out[:, head] = probs @ v[:, kv]
        x = x + out.reshape(T, qd) @ W[a + "o_proj.weight"].T
        h = rms_norm(x, W[p + "post_attention_layernorm.weight"])
        if opt(fam, "fused"):
            gu = h @ W[m + "gate_up_proj.weight"].T
            gate, up = gu[:, :FFN], gu[:, FFN:]
        else:
            gate = h @ W[m + "gate_proj.weight"].T
            up = h @ W[m + "up_proj.weight"].T
        x = x + (gate / (1.0 + np.exp(-gate)) * up) @ W[m + "down_proj.weight"].T
    x = rms_norm(x, W["model.norm.weight"])
    head_w = W["model.embed_tokens.weight"] if opt(fam, "tied") else W["lm_head.weight"]
    return x @ head_w.T


# ---------------------------------------------------------------- GGUF twin


def permute(weights: np.ndarray, n_head: int, n_head_kv):
    """llama.cpp convert_hf_to_gguf.py LlamaModel.permute (llama only)."""
    if n_head_kv is not None and n_head != n_head_kv:
        n_head = n_head_kv
    return (weights.reshape(n_head, 2, weights.shape[0] // n_head // 2, *weights.shape[1:])
            .swapaxes(1, 2)
            .reshape(weights.shape))


GGUF_NAMES = {"input_layernorm.weight": "attn_norm.weight",
              "post_attention_layernorm.weight": "ffn_norm.weight",
              "self_attn.q_proj.weight": "attn_q.weight", "self_attn.k_proj.weight": "attn_k.weight",
              "self_attn.v_proj.weight": "attn_v.weight", "self_attn.q_proj.bias": "attn_q.bias",
              "self_attn.k_proj.bias": "attn_k.bias", "self_attn.v_proj.bias": "attn_v.bias",
              "self_attn.q_norm.weight": "attn_q_norm.weight",
              "self_attn.k_norm.weight": "attn_k_norm.weight",
              "self_attn.qkv_proj.weight": "attn_qkv.weight",
              "self_attn.o_proj.weight": "attn_output.weight",
              "mlp.gate_proj.weight": "ffn_gate.weight", "mlp.up_proj.weight": "ffn_up.weight",
              "mlp.gate_up_proj.weight": "ffn_up.weight",
              "mlp.down_proj.weight": "ffn_down.weight"}


def llama3_rope_freqs(fam: dict) -> np.ndarray:
    """convert_hf_to_gguf.py LlamaModel.generate_extra_tensors: rope_freqs.weight holds, per
    pair, what the frequency is divided by."""
    s = fam["scaling"]
    factor, low, high = s["factor"], s["low_freq_factor"], s["high_freq_factor"]
    old = s["original_max_position_embeddings"]
    hd = head_dim(fam)
    freqs = 1.0 / (ROPE_THETA ** (np.arange(0, hd, 2, dtype=np.float32) / hd))
    low_wavelen, high_wavelen = old / low, old / high
    factors = []
    for freq in freqs:
        wavelen = 2 * np.pi / freq
        if wavelen < high_wavelen:
            factors.append(1)
        elif wavelen > low_wavelen:
            factors.append(factor)
        else:
            smooth = (old / wavelen - low) / (high - low)
            factors.append(1 / ((1 - smooth) / factor + smooth))
    return np.array(factors, dtype=np.float32)


def write_gguf(path: pathlib.Path, fam: dict, w: dict, tok: Tokenizer, vocab: int,
               skip_key=None, skip_tensor=None, arch=None, extra=None):
    arch = arch or fam["arch"]
    writer = gguf.GGUFWriter(str(path), arch)
    keys = [
        ("name", lambda: writer.add_name("kvw-arch-" + fam["arch"])),
        ("context_length", lambda: writer.add_context_length(MAX_POS)),
        ("embedding_length", lambda: writer.add_embedding_length(HIDDEN)),
        ("block_count", lambda: writer.add_block_count(N_LAYERS)),
        ("feed_forward_length", lambda: writer.add_feed_forward_length(FFN)),
        ("attention.head_count", lambda: writer.add_head_count(N_HEADS)),
        ("attention.head_count_kv", lambda: writer.add_head_count_kv(N_KV_HEADS)),
        ("rope.freq_base", lambda: writer.add_rope_freq_base(ROPE_THETA)),
        ("attention.layer_norm_rms_epsilon", lambda: writer.add_layer_norm_rms_eps(RMS_EPS)),
        ("file_type", lambda: writer.add_file_type(gguf.LlamaFileType.ALL_F32)),
    ]
    if "head_dim" in fam:  # TextModel writes key/value length when config.json has head_dim
        keys += [("attention.key_length", lambda: writer.add_key_length(head_dim(fam))),
                 ("attention.value_length", lambda: writer.add_value_length(head_dim(fam)))]
    if fam["arch"] == "llama":
        keys += [("vocab_size", lambda: writer.add_vocab_size(vocab)),
                 ("rope.dimension_count", lambda: writer.add_rope_dimension_count(head_dim(fam)))]
        s = opt(fam, "scaling", None)
        if s and s.get("type") == "linear":
            keys += [("rope.scaling.type",
                      lambda: writer.add_rope_scaling_type(gguf.RopeScalingType.LINEAR)),
                     ("rope.scaling.factor", lambda: writer.add_rope_scaling_factor(s["factor"]))]
    if fam["arch"] == "phi3":
        keys += [("rope.scaling.original_context_length",
                  lambda: writer.add_rope_scaling_orig_ctx_len(original_context(fam))),
                 ("rope.dimension_count", lambda: writer.add_rope_dimension_count(head_dim(fam))),
                 ("attention.sliding_window", lambda: writer.add_sliding_window(MAX_POS))]
    if is_longrope(fam):  # Phi3MiniModel: the attention factor of a LongRoPE model
        keys += [("rope.scaling.attn_factor",
                  lambda: writer.add_rope_scaling_attn_factors(longrope_attention_factor(fam)))]
    if fam["arch"] == "llama" and "window" in fam:
        keys += [("attention.sliding_window", lambda: writer.add_sliding_window(fam["window"]))]
    skip = {skip_key} if isinstance(skip_key, str) else set(skip_key or ())
    for key, add in keys:
        if key not in skip:
            add()
    if extra:
        extra(writer)
    tokenizer_gguf(writer, tok)

    tensors = {"token_embd.weight": w["model.embed_tokens.weight"],
               "output_norm.weight": w["model.norm.weight"]}
    if "lm_head.weight" in w:
        tensors["output.weight"] = w["lm_head.weight"]
    s = opt(fam, "scaling", None)
    if s and s.get("rope_type") == "llama3":
        tensors["rope_freqs.weight"] = llama3_rope_freqs(fam)
    if is_longrope(fam):
        tensors["rope_factors_long.weight"] = np.array(s["long_factor"], dtype=np.float32)
        tensors["rope_factors_short.weight"] = np.array(s["short_factor"], dtype=np.float32)
    for i in range(N_LAYERS):
        for hf_name, gguf_name in GGUF_NAMES.items():
            key = f"model.layers.{i}.{hf_name}"
            if key not in w:
                continue
            data = w[key]
            if fam["arch"] == "llama" and hf_name == "self_attn.q_proj.weight":
                data = permute(data, N_HEADS, N_HEADS)
            elif fam["arch"] == "llama" and hf_name == "self_attn.k_proj.weight":
                data = permute(data, N_HEADS, N_KV_HEADS)
            tensors[f"blk.{i}.{gguf_name}"] = np.ascontiguousarray(data)
    for name, data in tensors.items():
        if name != skip_tensor:
            writer.add_tensor(name, data)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def write_hf(folder: pathlib.Path, config: dict, w: dict, tok: Tokenizer):
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    tok.save(str(folder / "tokenizer.json"))
    safetensors.numpy.save_file(w, str(folder / "model.safetensors"), metadata={"format": "pt"})


# ---------------------------------------------------------------- defects


def write_bad(out: pathlib.Path, tok: Tokenizer, vocab: int, rng):
    """One defect each; bad_cases.txt: NAME TAB ModelErrorKind TAB text the message holds."""
    bad = out / "bad"
    bad.mkdir(parents=True, exist_ok=True)
    cases = []
    qwen2, qwen3 = FAMILIES["qwen2"], FAMILIES["qwen3"]
    w2 = make_weights(qwen2, vocab, rng)
    w3 = make_weights(qwen3, vocab, rng)

    def gguf_case(name, fam, w, kind, text, **kw):
        write_gguf(bad / f"{name}.gguf", fam, w, tok, vocab, **kw)
        cases.append((f"{name}.gguf", kind, text))

    def hf_case(name, fam, w, kind, text, change=None, drop=None):
        config = config_json(fam, vocab)
        if change:
            config.update(change)
        write_hf(bad / name, config, {k: v for k, v in w.items() if k != drop}, tok)
        cases.append((name, kind, text))

    supported = "llama, qwen2, qwen3, phi3"
    gguf_case("unknown_arch", qwen2, w2, "BadMetadata",
              "\"gemma3\"; the supported architectures are " + supported, arch="gemma3")
    gguf_case("missing_key", qwen2, w2, "MissingMetadata", "qwen2.block_count",
              skip_key="block_count")
    gguf_case("missing_bias", qwen2, w2, "MissingTensor", "blk.0.attn_k.bias",
              skip_tensor="blk.0.attn_k.bias")
    gguf_case("missing_k_norm", qwen3, w3, "MissingTensor", "blk.1.attn_k_norm.weight",
              skip_tensor="blk.1.attn_k_norm.weight")
    # qwen3 without key_length: head_dim = 64 / 4 = 16, and the 24-wide tensors do not fit
    gguf_case("missing_key_length", qwen3, w3, "ShapeMismatch", "blk.0.attn_q.weight",
              skip_key=("attention.key_length", "attention.value_length"))
    # a changed key: V heads as wide as K heads is all the engine runs
    gguf_case("changed_value_length", qwen3, w3, "BadMetadata", "qwen3.attention.value_length",
              skip_key="attention.value_length",
              extra=lambda wr: wr.add_value_length(16))
    gguf_case("yarn", qwen2, w2, "BadMetadata", "qwen2.rope.scaling.type",
              extra=lambda wr: (wr.add_rope_scaling_type(gguf.RopeScalingType.YARN),
                                wr.add_rope_scaling_factor(4.0)))
    gguf_case("linear_no_factor", qwen2, w2, "MissingMetadata", "qwen2.rope.scaling.factor",
              extra=lambda wr: wr.add_rope_scaling_type(gguf.RopeScalingType.LINEAR))
    gguf_case("window_too_long", qwen2, w2, "BadMetadata", "qwen2.attention.sliding_window",
              extra=lambda wr: wr.add_sliding_window(2**31))
    longrope = FAMILIES["phi3_longrope"]
    w_lr = make_weights(longrope, vocab, rng)
    gguf_case("longrope_no_short", longrope, w_lr, "MissingTensor", "rope_factors_short.weight",
              skip_tensor="rope_factors_short.weight")
    gguf_case("longrope_type_only", FAMILIES["phi3"], make_weights(FAMILIES["phi3"], vocab, rng),
              "MissingTensor", "rope_factors_short.weight",
              extra=lambda wr: wr.add_rope_scaling_type(gguf.RopeScalingType.LONGROPE))
    gguf_case("longrope_no_original", longrope, w_lr, "MissingMetadata",
              "phi3.rope.scaling.original_context_length",
              skip_key="rope.scaling.original_context_length")
    hf_case("hf_unknown_arch", qwen2, w2, "BadMetadata",
            "the supported architectures are LlamaForCausalLM, MistralForCausalLM, "
            "Qwen2ForCausalLM, Qwen3ForCausalLM, Phi3ForCausalLM",
            change={"architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3"})
    hf_case("hf_missing_bias", qwen2, w2, "MissingTensor", "model.layers.1.self_attn.q_proj.bias",
            drop="model.layers.1.self_attn.q_proj.bias")
    hf_case("hf_missing_q_norm", qwen3, w3, "MissingTensor",
            "model.layers.0.self_attn.q_norm.weight",
            drop="model.layers.0.self_attn.q_norm.weight")
    hf_case("hf_yarn", qwen2, w2, "BadMetadata", "yarn",
            change={"rope_scaling": {"type": "yarn", "factor": 4.0,
                                     "original_max_position_embeddings": 32}})
    llama3 = FAMILIES["llama3"]
    w_l3 = make_weights(llama3, vocab, rng)
    scaling = dict(llama3["scaling"])
    del scaling["low_freq_factor"]
    hf_case("hf_llama3_no_low", llama3, w_l3, "MissingMetadata", "low_freq_factor",
            change={"rope_scaling": scaling})
    hf_case("hf_longrope_short_list", longrope, w_lr, "BadMetadata", "rope_scaling.long_factor",
            change={"rope_scaling": {"type": "longrope", "long_factor": [1.0] * 7,
                                     "short_factor": [1.0] * 8}})
    hf_case("hf_longrope_zero", longrope, w_lr, "BadMetadata", "rope_scaling.short_factor[3]",
            change={"rope_scaling": {"type": "longrope", "long_factor": [1.0] * 8,
                                     "short_factor": [1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0]}})
    hf_case("hf_window_missing", qwen2, w2, "BadMetadata", "\"sliding_window\" is missing",
            change={"use_sliding_window": True, "sliding_window": None})
    hf_case("hf_layer_types", qwen2, w2, "BadMetadata", "\"layer_types\"[1]",
            change={"use_sliding_window": True, "sliding_window": 4,
                    "layer_types": ["full_attention", "chunked_attention"]})
    hf_case("hf_gelu", qwen2, w2, "BadMetadata", "hidden_act",
            change={"hidden_act": "gelu_pytorch_tanh"})
    with open(out / "bad_cases.txt", "w") as fh:
        for name, kind, text in cases:
            fh.write(f"{name}\t{kind}\t{text}\n")


# ---------------------------------------------------------------- main


def generate(out: pathlib.Path):
    out.mkdir(parents=True, exist_ok=True)
    tok = make_tokenizer()
    vocab = tok.get_vocab_size(with_added_tokens=True)
    rng = np.random.default_rng(SEED)
    for name, fam in FAMILIES.items():
        target = out / name
        target.mkdir(parents=True, exist_ok=True)
        w = make_weights(fam, vocab, rng)
        write_hf(target / "hf", config_json(fam, vocab), w, tok)
        if not opt(fam, "hf_only"):
            write_gguf(target / "model.gguf", fam, w, tok, vocab)
        ids = list(PROMPT)
        logits = reference_logits(fam, w, ids)[-1]
        greedy = []
        for _ in range(GREEDY_STEPS):
            step = reference_logits(fam, w, ids + greedy)[-1]
            greedy.append(int(np.argmax(step)))
        with open(target / "reference.txt", "w") as fh:
            fh.write(" ".join(map(str, ids)) + "\n")
            fh.write(" ".join(repr(float(x)) for x in logits) + "\n")
            fh.write(" ".join(map(str, greedy)) + "\n")
            if is_longrope(fam):
                short = reference_logits(fam, w, ids, long_context=False)[-1]
                fh.write(" ".join(repr(float(x)) for x in short) + "\n")
    write_bad(out, tok, vocab, rng)
    (out / "families.txt").write_text("\n".join(FAMILIES) + "\n")


if __name__ == "__main__":
    import sys
    generate(pathlib.Path(sys.argv[1]))
