#!/usr/bin/env python3
"""Checks that the engine runs the default model as PyTorch does.

Reads the weights back from the GGUF file with the gguf package (so it checks the file that is
committed, not a checkpoint), rebuilds the training script's PyTorch model from them, and
  * prints the held-out perplexity of each resources/text passage under that model (one window
    of the trained context after a BOS, every token scored), for comparison with the engine's;
  * runs `kvw generate` greedily on a few prompts and compares its ids token for token with
    PyTorch's greedy continuation.
Run it with the training environment: build/train-venv/bin/python tools/check_default_model.py
"""
import argparse
import math
import pathlib
import re
import subprocess
import sys

import gguf
import sentencepiece as spm
import torch
import torch.nn.functional as F

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from train_default_model import Config, Llama  # noqa: E402

PROMPTS = ["And God said", "In the beginning", "The LORD is my shepherd", "Blessed are the"]


def model_from_gguf(path):
    reader = gguf.GGUFReader(str(path))
    cfg = Config()
    model = Llama(cfg)
    tensors = {t.name: torch.from_numpy(t.data.astype("float32")) for t in reader.tensors}
    with torch.no_grad():
        model.token_embd.copy_(tensors["token_embd.weight"])
        model.output_norm.copy_(tensors["output_norm.weight"])
        model.output.copy_(tensors["output.weight"])
        for i, layer in enumerate(model.layers):
            for key, p in layer.items():
                p.copy_(tensors[f"blk.{i}.{key}.weight"])
    return model.eval()


@torch.no_grad()
def greedy(model, ids, n):
    ids = list(ids)
    for _ in range(n):
        ids.append(int(model(torch.tensor([ids]))[0, -1].argmax()))
    return ids


def kvw_greedy(kvw, model_path, prompt, n):
    out = subprocess.run([kvw, "generate", "--model", str(model_path), "--prompt", prompt,
                          "-n", str(n)], check=True, capture_output=True, text=True).stdout
    prompt_ids = re.search(r"prompt ids: ([\d ]+)", out).group(1).split()
    generated = re.search(r"generated ids: ([\d ]+)", out).group(1).split()
    return [int(i) for i in prompt_ids + generated]


@torch.no_grad()
def passage_perplexity(model, sp, text, context):
    ids = sp.encode(text)[: context - 1]
    inputs = torch.tensor([[sp.bos_id()] + ids[:-1]])
    nll = F.cross_entropy(model(inputs)[0].double(), torch.tensor(ids), reduction="mean")
    return math.exp(nll.item()), len(ids)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", type=pathlib.Path, default=pathlib.Path("resources/models/kjv-llama.gguf"))
    ap.add_argument("--kvw", default="build/app/kvw")
    ap.add_argument("-n", type=int, default=40)
    args = ap.parse_args()
    torch.set_num_threads(2)

    model = model_from_gguf(args.model)
    sp = spm.SentencePieceProcessor(model_file=str(args.model.with_suffix(".model")))
    for path in sorted(pathlib.Path("resources/text").glob("*.txt")):
        ppl, n = passage_perplexity(model, sp, path.read_text(), Config.context)
        print(f"{path.name}: perplexity {ppl:.3f} over its first {n} tokens")

    agree = True
    for prompt in PROMPTS:
        ours = greedy(model, [sp.bos_id()] + sp.encode(prompt), args.n)
        engine = kvw_greedy(args.kvw, args.model, prompt, args.n)
        same = next((i for i, (a, b) in enumerate(zip(ours, engine)) if a != b), None)
        print(f"{prompt!r}: " + ("same ids" if same is None and len(ours) == len(engine)
                                 else f"differ from id {same}"))
        print("   torch:", sp.decode(ours[1:]))
        print("   kvw:  ", sp.decode(engine[1:]))
        agree &= ours == engine
    sys.exit(0 if agree else 1)


if __name__ == "__main__":
    main()
