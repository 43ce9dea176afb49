"""`kvw perplexity --json` against a float64 reference written here with numpy.

The reference reads the GGUF file with the `gguf` package, runs the Llama forward pass in
float64 (RMSNorm, RoPE on adjacent pairs as GGUF llama files store Q/K, grouped-query attention,
SwiGLU) and does llama-perplexity's chunk loop itself; the tokens come from `sentencepiece` with
the model's own .model file when one is given (otherwise from `kvw tokenize --json`, for models
without one, such as the synthetic ones). With --unigram, the model's perplexity must also be far
below the unigram perplexity of the same text (see the end of main()).

usage: perplexity_reference.py --kvw KVW --model GGUF --text FILE [--spm MODEL]
                               [--ctx N] [--stride S] [--unigram]
"""
import argparse
import glob
import json
import math
import os
import subprocess
import sys

import gguf
import numpy as np
import sentencepiece as spm


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


def all_logits(cfg, w, ids, record=None):
    """Logits of every position. With a list as `record`, appends per layer a dict with the
    pre-RoPE keys ("k": [T, kv_heads, head_dim]) and the attention weights ("probs":
    [heads, T, T])."""
    T, H, KV = len(ids), cfg["heads"], cfg["kv_heads"]
    hd = cfg["hidden"] // H
    x = w["token_embd.weight"][ids]
    causal = np.triu(np.ones((T, T), dtype=bool), 1)
    for layer in range(cfg["layers"]):
        p = f"blk.{layer}."
        h = rms_norm(x, w[p + "attn_norm.weight"], cfg["eps"])
        q = rope_adjacent_pairs((h @ w[p + "attn_q.weight"].T).reshape(T, H, hd), cfg["theta"])
        k_pre = (h @ w[p + "attn_k.weight"].T).reshape(T, KV, hd)
        k = rope_adjacent_pairs(k_pre, cfg["theta"])
        v = (h @ w[p + "attn_v.weight"].T).reshape(T, KV, hd)
        out = np.zeros((T, H, hd))
        all_probs = np.zeros((H, T, T))
        for head in range(H):
            kv = head // (H // KV)
            scores = q[:, head] @ k[:, kv].T / math.sqrt(hd)
            scores[causal] = -np.inf
            probs = np.exp(scores - scores.max(axis=-1, keepdims=True))
            all_probs[head] = probs / probs.sum(axis=-1, keepdims=True)
            out[:, head] = all_probs[head] @ v[:, kv]
        if record is not None:
            record.append({"k": k_pre, "probs": all_probs})
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
                          str(a.ctx), "--stride", str(a.stride), "--backend", "cpu", "--json",
                          "--quiet"]))
    cfg, w = load(a.model)
    text = open(a.text, encoding="utf-8").read()
    if a.spm:
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
    print(f"relative difference of the NLL sums: {rel:.2e}")
    assert rel <= 1e-4, f"NLL sum {got['nll_sum']} vs reference {nll}: relative error {rel:.2e}"

    if a.unigram:
        # Two unigram models of the scored tokens, computed here. The usual one counts tokens
        # elsewhere: in the other passages beside this one (held out like it), add-one smoothed;
        # "far below" it means a factor of 4 at least. The other is an oracle, fitted on this very
        # text (its own frequencies, BOS left out): no unigram model can do better on it, and the
        # model must still stay below half of it.
        others = [p for p in glob.glob(os.path.join(os.path.dirname(a.text), "*.txt"))
                  if os.path.abspath(p) != os.path.abspath(a.text)]
        assert others and a.spm, "--unigram needs --spm and other passages beside --text"
        sp = spm.SentencePieceProcessor(model_file=a.spm)
        vocab = sp.get_piece_size()
        counts = np.ones(vocab)
        for path in others:
            counts += np.bincount(sp.encode(open(path, encoding="utf-8").read()), minlength=vocab)
        held_out_nll = -np.mean(np.log(counts[targets] / counts.sum()))
        own = np.bincount(ids[1:], minlength=vocab)
        oracle_nll = -np.mean(np.log(own[targets] / own.sum()))
        model_nll = got["mean_nll"]
        print(f"unigram perplexity of the same text: {math.exp(held_out_nll):.1f} with counts "
              f"from {len(others)} other passages, {math.exp(oracle_nll):.1f} fitted on the text "
              f"itself; the model's {got['perplexity']:.1f} is "
              f"{math.exp(held_out_nll - model_nll):.1f}x and {math.exp(oracle_nll - model_nll):.2f}x "
              f"below them")
        assert held_out_nll - model_nll >= math.log(4), "not far below the unigram perplexity"
        assert oracle_nll - model_nll >= math.log(2), "not below half the oracle unigram's"
    print("ok")


if __name__ == "__main__":
    main()
