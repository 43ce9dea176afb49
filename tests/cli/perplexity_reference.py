"""`kvw perplexity --json` against a float64 reference written here with numpy.

The reference reads the GGUF file with the `gguf` package, runs the Llama forward pass in
float64 (RMSNorm, RoPE on adjacent pairs as GGUF llama files store Q/K, grouped-query attention,
SwiGLU) and does llama-perplexity's chunk loop itself; the tokens come from `sentencepiece` with
the model's own .model file when one is given (otherwise from `kvw tokenize --json`, for models
without one, such as the synthetic ones). With --unigram, the model's perplexity must also be far
below that of a unigram model of the same text (token frequencies counted on the text itself).

usage: perplexity_reference.py --kvw KVW --model GGUF --text FILE [--spm MODEL]
                               [--ctx N] [--stride S] [--unigram]
"""
import argparse
import json
import math
import subprocess
import sys

import gguf
import numpy as np


def field(reader, key):
    return reader.fields[key].contents()


def load(path):
    r = gguf.GGUFReader(path)
    cfg = {
        "layers": field(r, "llama.block_count"),
        "heads": field(r, "llama.attention.head_count"),
        "kv_heads": field(r, "llama.attention.head_count_kv"),
        "hidden": field(r, "llama.embedding_length"),
        "theta": field(r, "llama.rope.freq_base"),
        "eps": field(r, "llama.attention.layer_norm_rms_epsilon"),
        "bos": field(r, "tokenizer.ggml.bos_token_id"),
    }
    w = {t.name: np.asarray(t.data, dtype=np.float64) for t in r.tensors}
    if "output.weight" not in w:  # tied to the embedding
        w["output.weight"] = w["token_embd.weight"]
    return cfg, w


def rms_norm(x, weight, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def rope_adjacent_pairs(x, theta):
    """x: [T, heads, d]; rotates the pairs (2i, 2i+1) of every head by position * theta^(-2i/d)."""
    T, _, d = x.shape
    angle = np.outer(np.arange(T, dtype=np.float64), theta ** (-np.arange(0, d, 2) / d))
    cos, sin = np.cos(angle)[:, None, :], np.sin(angle)[:, None, :]
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


def all_logits(cfg, w, ids):
    T, H, KV = len(ids), cfg["heads"], cfg["kv_heads"]
    hd = cfg["hidden"] // H
    x = w["token_embd.weight"][ids]
    causal = np.triu(np.ones((T, T), dtype=bool), 1)
    for layer in range(cfg["layers"]):
        p = f"blk.{layer}."
        h = rms_norm(x, w[p + "attn_norm.weight"], cfg["eps"])
        q = rope_adjacent_pairs((h @ w[p + "attn_q.weight"].T).reshape(T, H, hd), cfg["theta"])
        k = rope_adjacent_pairs((h @ w[p + "attn_k.weight"].T).reshape(T, KV, hd), cfg["theta"])
        v = (h @ w[p + "attn_v.weight"].T).reshape(T, KV, hd)
        out = np.zeros((T, H, hd))
        for head in range(H):
            kv = head // (H // KV)
            scores = q[:, head] @ k[:, kv].T / math.sqrt(hd)
            scores[causal] = -np.inf
            probs = np.exp(scores - scores.max(axis=-1, keepdims=True))
            out[:, head] = (probs / probs.sum(axis=-1, keepdims=True)) @ v[:, kv]
        x = x + out.reshape(T, H * hd) @ w[p + "attn_output.weight"].T
        h = rms_norm(x, w[p + "ffn_norm.weight"], cfg["eps"])
        gate, up = h @ w[p + "ffn_gate.weight"].T, h @ w[p + "ffn_up.weight"].T
        x = x + (gate / (1.0 + np.exp(-gate)) * up) @ w[p + "ffn_down.weight"].T
    return rms_norm(x, w["output_norm.weight"], cfg["eps"]) @ w["output.weight"].T


def log_softmax(z):
    peak = z.max(axis=-1, keepdims=True)
    return z - peak - np.log(np.exp(z - peak).sum(axis=-1, keepdims=True))


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} exited with {done.returncode}:\n{done.stderr}")
    return done.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kvw", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--text", required=True)
    ap.add_argument("--spm")
    ap.add_argument("--ctx", type=int, default=128)
    ap.add_argument("--stride", type=int, default=64)
    ap.add_argument("--unigram", action="store_true")
    a = ap.parse_args()

    got = json.loads(run([a.kvw, "perplexity", "--model", a.model, "--file", a.text, "--ctx",
                          str(a.ctx), "--stride", str(a.stride), "--json", "--quiet"]))
    cfg, w = load(a.model)
    text = open(a.text, encoding="utf-8").read()
    if a.spm:
        import sentencepiece as spm
        ids = [cfg["bos"]] + spm.SentencePieceProcessor(model_file=a.spm).encode(text)
    else:
        ids = json.loads(run([a.kvw, "tokenize", "--model", a.model, text, "--json"]))["ids"]
    assert got["text_tokens"] == len(ids), f"kvw saw {got['text_tokens']} tokens, reference {len(ids)}"

    nll, scored, chunks, targets = 0.0, 0, 0, []
    for start in range(0, len(ids) - a.ctx + 1, a.stride):
        chunk = [cfg["bos"]] + ids[start + 1:start + a.ctx]
        logp = log_softmax(all_logits(cfg, w, chunk))
        for j in range(a.ctx // 2, a.ctx - 1):
            nll -= logp[j, chunk[j + 1]]
            targets.append(chunk[j + 1])
        scored += a.ctx - 1 - a.ctx // 2
        chunks += 1
    ppl = math.exp(nll / scored)
    print(f"kvw: {got['chunks']} chunks, {got['scored_tokens']} tokens, perplexity "
          f"{got['perplexity']:.6f}; float64 reference: {chunks} chunks, {scored} tokens, "
          f"perplexity {ppl:.6f}")
    assert (got["chunks"], got["scored_tokens"]) == (chunks, scored)
    rel = abs(got["nll_sum"] - nll) / nll
    assert rel <= 1e-4, f"NLL sum {got['nll_sum']} vs reference {nll}: relative error {rel:.2e}"

    if a.unigram:
        # The best unigram model of this very text (its own token frequencies, BOS left out),
        # scored on the same targets: a bar that knows the text's vocabulary in advance.
        counts = np.bincount(ids[1:])
        unigram_nll = -np.mean(np.log(counts[targets] / counts.sum()))
        unigram_ppl = math.exp(unigram_nll)
        # "Far below": at least a factor 4 in perplexity, i.e. the model saves at least
        # ln 4 = 1.39 nats on every token the unigram model pays for.
        margin = unigram_nll - got["mean_nll"]
        print(f"unigram perplexity of the same text {unigram_ppl:.3f}; the model saves "
              f"{margin:.3f} nats/token (needs >= {math.log(4):.3f})")
        assert margin >= math.log(4), "the model is not far below the unigram perplexity"
    print("ok")


if __name__ == "__main__":
    main()
