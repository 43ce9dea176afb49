"""Seed corpora for the fuzz targets in tests/fuzz: a few small valid inputs per parser, so
that mutation starts from files that reach deep into each reader. The replay tests
(fuzz_replay_NAME) run them under every build; scripts/fuzz.sh copies them as the starting
corpus of a libFuzzer run.

Layout under OUTDIR: one folder per target (gguf, safetensors, hf_folder, hf_config,
tokenizer_json, action_json, kvs_script, trace, fork_trace, gate_sidecar, gist_sidecar,
lifespans, chat_template). hf_folder inputs pack several files in the
format of tests/fuzz/hf_folder_pack.h ("@@file NAME" lines). Models are as small as the
loaders allow (1 layer, hidden 8 or 32), because a fuzzer's speed falls with input size.
"""
import json
import pathlib
import tempfile

import numpy as np
import safetensors.numpy
from gguf import GGMLQuantizationType as QT

import gguf

import make_chat_templates
import make_gate
import make_gguf
import make_gist
import make_hf

RNG_SEED = 20240612
SPACE = make_hf.SPACE
HIDDEN, N_HEADS, N_KV_HEADS, FFN = 8, 2, 1, 16


def write_seeds(folder: pathlib.Path, seeds: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in seeds.items():
        data = content if isinstance(content, bytes) else content.encode()
        (folder / name).write_bytes(data)


# ---------------------------------------------------------------- GGUF


def gguf_seeds(out: pathlib.Path) -> None:
    rng = np.random.default_rng(RNG_SEED)
    vocab = len(make_gguf.tiny_vocab()[0])
    small = {"n_layers": 1, "n_embd": HIDDEN, "n_heads": N_HEADS, "n_kv_heads": N_KV_HEADS,
             "n_ff": FFN, "max_context": 32, "rope_theta": 10000.0, "rms_eps": 1e-5}
    q8 = dict(small, n_embd=32, n_ff=32)  # Q8_0 blocks hold 32 values along a row
    folder = out / "gguf"
    folder.mkdir(parents=True, exist_ok=True)
    make_gguf.write_tiny(folder / "tiny_f32.gguf",
                         make_gguf.tiny_tensors(rng, vocab, None, small), config=small)
    make_gguf.write_tiny(folder / "tiny_q8_tied.gguf",
                         make_gguf.tiny_tensors(rng, vocab, QT.Q8_0, q8), tied=True, config=q8)
    with tempfile.TemporaryDirectory() as tmp:  # every metadata value type, no tensors
        make_gguf.make_metadata(pathlib.Path(tmp))
        (folder / "metadata.gguf").write_bytes((pathlib.Path(tmp) / "metadata.gguf").read_bytes())


# ---------------------------------------------------------------- Hugging Face


def tiny_tokenizer() -> dict:
    """A tokenizer.json in the legacy LlamaConverter form over make_gguf's tiny vocabulary."""
    tokens = make_gguf.tiny_vocab()[0]
    vocab = {piece: i for i, piece in enumerate(tokens)}
    merges = [(SPACE, "a"), (SPACE, "b"), ("a", "b"), (SPACE + "a", "b"), ("ab", "c"),
              (SPACE + "ab", "c")]
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [make_hf.added_token(0, "<unk>"), make_hf.added_token(1, "<s>"),
                         make_hf.added_token(2, "</s>")],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": SPACE},
            {"type": "Replace", "pattern": {"String": " "}, "content": SPACE}]},
        "pre_tokenizer": None,
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>",
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                  "vocab": vocab, "merges": [f"{a} {b}" for a, b in merges]},
    }


def metaspace_form(doc: dict) -> dict:
    """The newer non-legacy form: Metaspace pre-tokenizer and [a, b] merges."""
    doc = json.loads(json.dumps(doc))
    doc["normalizer"] = None
    doc["pre_tokenizer"] = {"type": "Metaspace", "replacement": SPACE,
                            "prepend_scheme": "first", "split": False}
    doc["model"]["merges"] = [m.split(" ") for m in doc["model"]["merges"]]
    return doc


def byte_level_tokenizer() -> str:
    """A small byte-level BPE (a Split pattern, then ByteLevel) as the tokenizers package writes
    it, so that fuzzing reaches the byte-level reader and the PCRE2 pre-tokenizer."""
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(r"\p{N}{1,3}| ?\p{L}+|\s+(?!\S)|\s+|[^\s\p{L}\p{N}]+"),
                             behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=["<|begin_of_text|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(["hello world 123 héllo wörld"] * 10, trainer=trainer)
    return tok.to_str()


def tiny_config(vocab: int, **override) -> dict:
    return make_hf.config_json(vocab, hidden_size=HIDDEN, num_hidden_layers=1,
                               num_attention_heads=N_HEADS, num_key_value_heads=N_KV_HEADS,
                               intermediate_size=FFN, max_position_embeddings=32,
                               torch_dtype="float16", **override)


def tiny_weights(vocab: int) -> dict:
    """The checkpoint tensors of tiny_config, float16."""
    rng = np.random.default_rng(RNG_SEED + 1)
    kv, head_dim = N_KV_HEADS * HIDDEN // N_HEADS, HIDDEN // N_HEADS
    assert head_dim * N_HEADS == HIDDEN
    shapes = {"model.embed_tokens.weight": (vocab, HIDDEN), "lm_head.weight": (vocab, HIDDEN),
              "model.norm.weight": (HIDDEN,)}
    p = "model.layers.0."
    shapes.update({p + "input_layernorm.weight": (HIDDEN,),
                   p + "self_attn.q_proj.weight": (HIDDEN, HIDDEN),
                   p + "self_attn.k_proj.weight": (kv, HIDDEN),
                   p + "self_attn.v_proj.weight": (kv, HIDDEN),
                   p + "self_attn.o_proj.weight": (HIDDEN, HIDDEN),
                   p + "post_attention_layernorm.weight": (HIDDEN,),
                   p + "mlp.gate_proj.weight": (FFN, HIDDEN),
                   p + "mlp.up_proj.weight": (FFN, HIDDEN),
                   p + "mlp.down_proj.weight": (HIDDEN, FFN)})
    return {name: (rng.standard_normal(shape) * 0.1 + (len(shape) == 1)).astype(np.float16)
            for name, shape in shapes.items()}


def pack(files: dict) -> bytes:
    """Several files in one input (tests/fuzz/hf_folder_pack.h)."""
    out = b""
    for name, content in files.items():
        data = content if isinstance(content, bytes) else content.encode()
        out += b"@@file " + name.encode() + b"\n" + data + b"\n"
    return out[:-1]


def hf_seeds(out: pathlib.Path) -> None:
    tok = tiny_tokenizer()
    vocab = len(tok["model"]["vocab"])
    weights = tiny_weights(vocab)
    config = tiny_config(vocab)
    tok_text = json.dumps(tok, ensure_ascii=False)
    single = safetensors.numpy.save(weights, metadata={"format": "pt"})
    half = len(weights) // 2
    names = sorted(weights)
    shards = {f"model-0000{i + 1}-of-00002.safetensors":
              {n: weights[n] for n in (names[:half] if i == 0 else names[half:])}
              for i in range(2)}
    index = {"metadata": {"total_size": sum(w.nbytes for w in weights.values())},
             "weight_map": {n: shard for shard, part in shards.items() for n in part}}
    untied = {k: v for k, v in weights.items() if k != "lm_head.weight"}

    write_seeds(out / "hf_folder", {
        "single.pack": pack({"config.json": json.dumps(config), "tokenizer.json": tok_text,
                             "model.safetensors": single}),
        "sharded.pack": pack({"config.json": json.dumps(config),
                              "tokenizer.json": json.dumps(metaspace_form(tok)),
                              "tokenizer_config.json": json.dumps(
                                  {"bos_token": "<s>", "eos_token": {"content": "</s>"},
                                   "add_bos_token": True}),
                              "model.safetensors.index.json": json.dumps(index),
                              **{name: safetensors.numpy.save(part)
                                 for name, part in shards.items()}}),
        "tied.pack": pack({"config.json": json.dumps(tiny_config(vocab, tie_word_embeddings=True)),
                           "tokenizer.json": tok_text,
                           "model.safetensors": safetensors.numpy.save(untied)}),
    })
    mixed = {"a": np.arange(6, dtype=np.float32).reshape(2, 3),
             "b": np.ones((4,), dtype=np.float16), "empty": np.zeros((0, 3), dtype=np.float32)}
    write_seeds(out / "safetensors", {
        "tiny_f16.safetensors": single,
        "mixed.safetensors": safetensors.numpy.save(mixed, metadata={"k": "v"}),
        "empty.safetensors": safetensors.numpy.save({}),
    })
    write_seeds(out / "hf_config", {
        "tiny.json": json.dumps(config, indent=1),
        "tied.json": json.dumps(tiny_config(vocab, tie_word_embeddings=True)),
        "model_type_only.json": json.dumps(
            {k: v for k, v in config.items() if k != "architectures"}),
    })
    write_seeds(out / "tokenizer_json", {"legacy.json": tok_text,
                                         "metaspace.json": json.dumps(metaspace_form(tok)),
                                         "byte_level.json": byte_level_tokenizer()})


# ---------------------------------------------------------------- actions, scripts, traces

ACTIONS = [
    {"action": "replace_pair", "original_pos1": 4, "original_pos2": 5, "new_token_ids": [7, 9]},
    {"action": "delete", "pos": 2, "layers": [0, 2]},
    {"action": "insert", "pos": 8, "token_ids": [5, 6]},
    {"action": "add", "token_id": 42},
]

SCRIPT = """# every command once
load synthetic:tiny
backend cpu
prompt The cache remembers # not a comment
step 3
inject {"action":"replace_pair","original_pos1":4,"original_pos2":5,"new_token_ids":[321]}
apply [{"action":"delete","pos":2,"layers":[0,3]},{"action":"add","token_id":42}]
replace-text 3 4 new text
insert-text 2 before
rebuild
drift
policy pair-merge
budget 2 6 4 9
gate model.gate.gguf
ab streaming-llm 2 6 4
ab off
rope reindex
guard on
layer 1
select 4
view maps
set maps map drift
click actions apply
expect invariant rows_aligned pass
expect rows 0 12
expect tick 4
shot window
shot maps-only maps
wait-idle
desync 0 3
"""


def trace_seed() -> str:
    header = {"kvw_trace": 1, "model": "synthetic:tiny", "backend": "cpu", "capacity": 64,
              "rope_policy": "final_index", "layout": "contiguous", "proposer": "manual",
              "guard": False,
              "sampling": {"temperature": 0.0, "top_k": 0, "top_p": 1.0, "seed": 7},
              "brightness": {"decay": 0.9, "boost": 25.5, "initial": 255.0, "max": 255.0}}
    events = [
        {"event": "start", "prompt": "hello", "state_hash": "0123456789abcdef"},
        {"event": "inject", "actions": ACTIONS[:2], "rejected": False},
        {"event": "tick", "token": 17, "state_hash": "0123456789abcdef"},
        {"event": "apply_now", "actions": [ACTIONS[2]], "state_hash": "0123456789abcdef"},
        {"event": "drift", "first_diverging_layer": -1},
        {"event": "set_rope_policy", "name": "reindex"},
        {"event": "set_guard", "on": True},
    ]
    return "\n".join(json.dumps(e) for e in [header] + events) + "\n"


def fork_trace_seed() -> str:
    """A run as kvw run writes it: start, an inject, three ticks (the second refused), so that
    the cut at ticks 0-3 reads every kind of event fork looks at."""
    lines = trace_seed().splitlines()
    ok = {"rejected": False, "rejections": [], "aborted": False, "failed_action": -1,
          "failed_primitive": -1, "abort_reason": "", "rebuilt": False, "actions_applied": 1}
    refused = dict(ok, rejected=True, rejections=["pos 99 is past the end"], actions_applied=0)
    events = [
        {"event": "start", "prompt": "hello", "tick": 0, "state_hash": "0123456789abcdef"},
        {"event": "inject", "tick": 0, "actions": ACTIONS[:1]},
        {"event": "tick", "tick": 1, "token": 17, "actions": [], "result": ok,
         "invariants_pass": True, "state_hash": "0123456789abcdef"},
        {"event": "tick", "tick": 1, "token": 18, "actions": [], "result": refused,
         "invariants_pass": True, "state_hash": "0123456789abcdef"},
        {"event": "tick", "tick": 2, "token": 19, "actions": [], "result": ok,
         "invariants_pass": True, "state_hash": "0123456789abcdef"},
    ]
    return "\n".join([lines[0]] + [json.dumps(e) for e in events]) + "\n"


def text_seeds(out: pathlib.Path) -> None:
    write_seeds(out / "action_json", {
        "array.json": json.dumps(ACTIONS),
        "object.json": json.dumps(ACTIONS[0]),
        "ndjson.json": "\n".join(json.dumps(a) for a in ACTIONS),
        "empty.json": " \n",
    })
    write_seeds(out / "kvs_script", {"all_commands.kvs": SCRIPT})
    write_seeds(out / "trace", {"session.ndjson": trace_seed()})
    write_seeds(out / "fork_trace", {"run.ndjson": fork_trace_seed()})


# ---------------------------------------------------------------- SmartKV gate and lifespans


def gate_seeds(out: pathlib.Path) -> None:
    """make_gate's reference gate (2 layers, input 8, hidden 16, depth 3), F32 and F16."""
    folder = out / "gate_sidecar"
    folder.mkdir(parents=True, exist_ok=True)
    tensors = make_gate.make_weights(np.random.default_rng(RNG_SEED))
    make_gate.write_gate(folder / "ref.gate.gguf", tensors, {})
    half = {name: array.astype(np.float16) for name, array in tensors.items()}
    make_gate.write_gate(folder / "ref16.gate.gguf", half, {})


def gist_seeds(out: pathlib.Path) -> None:
    """make_gist's small GistNet (n_embd 8, K 3), F32 and F16."""
    folder = out / "gist_sidecar"
    folder.mkdir(parents=True, exist_ok=True)
    tensors = make_gist.make_weights(np.random.default_rng(RNG_SEED), 8, 3)
    make_gist.write_gist(folder / "small.gist.gguf", tensors, 8, 3, {})
    half = {name: array.astype(np.float16) for name, array in tensors.items()}
    make_gist.write_gist(folder / "small16.gist.gguf", half, 8, 3, {})


def lifespan_seeds(out: pathlib.Path) -> None:
    """Recorded lifespans as core/policy/gate/lifespan_records.h reads them: 2 layers of keys
    of 4 floats, 3 records in layer 0 and none in layer 1 (a layer without tensors)."""
    folder = out / "lifespans"
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(RNG_SEED)
    w = gguf.GGUFWriter(str(folder / "two_layers.gguf"), "kvw-lifespans")
    w.add_uint32("lifespans.layer_count", 2)
    w.add_uint32("lifespans.key_dim", 4)
    w.add_string("lifespans.key_kind", "pre-rope")
    w.add_float32("lifespans.threshold", 2.0)
    w.add_uint32("lifespans.horizon", 8)
    w.add_tensor("lifespans.0.keys", rng.normal(0, 1, (3, 4)).astype(np.float32))
    w.add_tensor("lifespans.0.ticks", np.array([0, 3, 8], dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def chat_template_seeds(out: pathlib.Path) -> None:
    """The chat templates make_chat_templates.py checks against jinja2, one file each."""
    write_seeds(out / "chat_template",
                {f"{name}.jinja": text for name, text in make_chat_templates.TEMPLATES.items()})


def generate(outdir: pathlib.Path) -> None:
    chat_template_seeds(outdir)
    gguf_seeds(outdir)
    hf_seeds(outdir)
    text_seeds(outdir)
    gate_seeds(outdir)
    gist_seeds(outdir)
    lifespan_seeds(outdir)


if __name__ == "__main__":
    import sys
    generate(pathlib.Path(sys.argv[1]))
