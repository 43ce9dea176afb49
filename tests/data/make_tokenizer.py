"""Trains a small SentencePiece BPE model and records sentencepiece's own encodings.

Writes into OUTDIR:
  vocab.gguf     the model's pieces, scores and types as llama.cpp's GGUF keys (no tensors)
  cases.jsonl    {"text", "ids", "decoded"}: sentencepiece's ids for the text (no BOS) and its
                 decode of those ids
  decode.jsonl   {"ids", "text"}: random id sequences (bytes, controls, unk included) and
                 sentencepiece's decode of each

The trainer mirrors the settings of Llama's tokenizer.model: BPE, byte fallback, identity
normalisation (no NFKC), a dummy "▁" prefix, extra whitespace kept, whitespace-only pieces
allowed and digits split. split_digits only shapes which pieces are learnt; the encoder is the
same greedy merge either way, so it is kept as Llama has it.
"""
import json
import pathlib
import random

import gguf
import sentencepiece as spm

from llama_spm import train_llama_bpe

SEED = 1234
USER_DEFINED = ["<sep>"]

WORDS = """the of and to in is was for on that with as by at from his her they this have had
not are but which one were all their there been has when who will more no if out so said what
up its about into than them can only other new some could time these two may then do first any
my now such like our over man me even most made after also did many before must through back
years where much your way well down should because each just those people how too little state
good very make world still own see men work long get here between both life being under never
day same another know while last might us great old year off come since against go came right
used take three states himself few house use during without again place american around however
home small found thought went say part once general high upon school every does got united left
number course war until always away something fact though water less public put think almost
hand enough far took head yet government system better set told nothing night end why called
didn't eyes find going look asked later knew point next program city business give group toward
young days let room president side social given present several order national second possible
rather per face among form important often things looking early white case john become large big
need four within felt children along saw best church ever least power development light thing
token tokenizer sentence piece merge cache layer attention model inference research workbench
""".split()

UNICODE_WORDS = """café naïve résumé über señor façade déjà vu crème brûlée Zürich São Paulo
Ελληνικά λόγος καλημέρα Москва привет мир спасибо 日本語 東京 中文 你好 世界 한국어 서울
こんにちは ありがとう""".split()

PUNCT = [".", ",", "!", "?", ";", ":", "...", " -", "'s", "\"", "(", ")"]


def corpus(rng: random.Random, n: int) -> list[str]:
    lines = []
    for _ in range(n):
        words = []
        for _ in range(rng.randint(3, 18)):
            r = rng.random()
            if r < 0.08:
                words.append(rng.choice(UNICODE_WORDS))
            elif r < 0.14:
                words.append(str(rng.randint(0, 100000)))
            else:
                w = rng.choice(WORDS)
                words.append(w.capitalize() if rng.random() < 0.1 else w)
            if rng.random() < 0.12:
                words[-1] += rng.choice(PUNCT)
        if rng.random() < 0.05:
            words.insert(rng.randint(0, len(words)), "<sep>")
        sep = "  " if rng.random() < 0.05 else " "
        lines.append(sep.join(words))
    return lines


def train(lines: list[str]) -> spm.SentencePieceProcessor:
    return train_llama_bpe(lines, 800, character_coverage=0.9995,
                           user_defined_symbols=USER_DEFINED)


def token_type(sp: spm.SentencePieceProcessor, i: int) -> int:
    if sp.IsUnknown(i):
        return gguf.TokenType.UNKNOWN
    if sp.IsControl(i):
        return gguf.TokenType.CONTROL
    if sp.IsUnused(i):
        return gguf.TokenType.UNUSED
    if sp.IsByte(i):
        return gguf.TokenType.BYTE
    if sp.IdToPiece(i) in USER_DEFINED:
        return gguf.TokenType.USER_DEFINED
    return gguf.TokenType.NORMAL


def write_gguf(sp: spm.SentencePieceProcessor, path: pathlib.Path,
               chat_template: str | None = None) -> None:
    n = sp.GetPieceSize()
    writer = gguf.GGUFWriter(str(path), arch="llama")
    writer.add_tokenizer_model("llama")
    writer.add_token_list([sp.IdToPiece(i) for i in range(n)])
    writer.add_token_scores([sp.GetScore(i) for i in range(n)])
    writer.add_token_types([token_type(sp, i) for i in range(n)])
    writer.add_bos_token_id(sp.bos_id())
    writer.add_eos_token_id(sp.eos_id())
    writer.add_unk_token_id(sp.unk_id())
    writer.add_add_bos_token(True)
    writer.add_add_space_prefix(True)
    if chat_template is not None:
        writer.add_chat_template(chat_template)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def test_strings(rng: random.Random, training: list[str]) -> list[str]:
    fixed = [
        "", " ", "  ", "   ", "\t", "\n", " \n ", "a", " a", "a ", "  a  b  ", "hello world",
        " hello world", "hello world ", "hello  world", "Hello, World!", "\thello\n\nworld\t",
        "line one\nline two\r\n", "1234567890", "3.14159", "year 2024-11-23", "x=y+z*2",
        "café naïve résumé", "日本語の文章", "東京と中文", "Привет, мир!", "Ελληνικά",
        "emoji 😀🚀 ok", "🎉", "👩‍👩‍👧", "mixed 日本 and 😀 text", "\u00a0non-breaking",
        "zero\u200bwidth", "<s>", "</s>", "<unk>", "<0x41>", "<sep>", "a<sep>b", " <sep> ",
        "<sep><sep>", "\u2581", "\u2581\u2581 x", "tokeniz", "workbenc", "researc", "th",
        "the" * 50, " the" * 200, "~`!@#$%^&*()_+-={}[]|\\:;\"'<>,.?/",
    ]
    alphabet = (
        list("abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        + list(" \t\n.,;:!?'\"-()")
        + ["é", "ü", "ñ", "ç", "ø", "日", "本", "語", "你", "好", "😀", "🚀", "€", "∑", "\u2581"]
    )
    cases = list(fixed)
    for line in training[:300]:  # text the model has seen, cut at random points (mid-word)
        cases.append(line[: rng.randint(0, len(line))])
    for _ in range(400):  # recombined words with odd spacing
        words = [rng.choice(WORDS + UNICODE_WORDS) for _ in range(rng.randint(1, 12))]
        text = ""
        for w in words:
            text += rng.choice([" ", "  ", "", "\n", "\t", " ", " "]) + w
        cases.append(text + rng.choice(["", " ", "  ", "\n", ".", "😀"]))
    for _ in range(300):  # random characters, any mix
        cases.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40))))
    for _ in range(20):  # long strings
        cases.append(" ".join(training[rng.randint(0, len(training) - 1)] for _ in range(30)))
    return cases


def generate(outdir: pathlib.Path) -> None:
    rng = random.Random(SEED)
    training = corpus(rng, 6000)
    sp = train(training)
    write_gguf(sp, outdir / "vocab.gguf")

    with open(outdir / "cases.jsonl", "w", encoding="utf-8") as f:
        for text in test_strings(rng, training):
            ids = sp.encode(text)
            record = {"text": text, "ids": ids, "decoded": sp.decode(ids)}
            f.write(json.dumps(record, ensure_ascii=False) + "\n")

    n = sp.GetPieceSize()
    with open(outdir / "decode.jsonl", "w", encoding="utf-8") as f:
        for _ in range(300):
            ids = [rng.randrange(n) for _ in range(rng.randint(0, 12))]
            if rng.random() < 0.5:  # runs of byte pieces, often not valid UTF-8
                ids += [sp.PieceToId(f"<0x{rng.randrange(256):02X}>") for _ in range(4)]
            f.write(json.dumps({"ids": ids, "text": sp.decode(ids)}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    import sys

    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    generate(out)
