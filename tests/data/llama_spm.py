"""Trains SentencePiece BPE models with the settings of Llama's tokenizer.model.

Shared by the generators that need a real tokenizer: BPE with byte fallback, no NFKC
(identity normalisation), a dummy "▁" prefix, whitespace kept as written, digits split.
Deterministic: one thread, input order kept.
"""
import io

import sentencepiece as spm


def train_llama_bpe(sentences, vocab_size: int, **extra) -> spm.SentencePieceProcessor:
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(sentences),
        model_writer=model,
        model_type="bpe",
        vocab_size=vocab_size,
        byte_fallback=True,
        normalization_rule_name="identity",
        add_dummy_prefix=True,
        remove_extra_whitespaces=False,
        allow_whitespace_only_pieces=True,
        split_digits=True,
        num_threads=1,
        shuffle_input_sentence=False,
        minloglevel=2,
        **extra,
    )
    return spm.SentencePieceProcessor(model_proto=model.getvalue())
