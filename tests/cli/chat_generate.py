"""`kvw generate --chat` and `kvw info` on models that carry a chat template, end to end.

tests/data/make_chat_templates.py writes a tiny model (GGUF with tokenizer.chat_template, HF
folder with tokenizer_config.json chat_template and add_bos_token true) and, for one system +
user turn, jinja2's rendering and the ids `tokenizers` gives it. Here:
* `kvw generate --chat --system S --prompt P --json` prefills exactly those ids from both
  files (the template writes the BOS; no second one is added);
* `kvw info --json` says the template is there and renderable, and that a model without one
  has none;
* `--chat-template-kwargs '{"enable_thinking": false}'` (or @FILE) reaches the template: the
  ids of jinja2's rendering with that variable; a value that is not a JSON object is refused;
* `--chat` on a model without a template fails with a message saying so, before generating;
  `--system` without `--chat` is a usage error.

usage: chat_generate.py KVW TESTDATA
"""
import json
import pathlib
import subprocess
import sys
import unittest

KVW = ""
DATA = pathlib.Path()


def kvw(*args):
    return subprocess.run([KVW, *args], capture_output=True, text=True)


class ChatGenerate(unittest.TestCase):
    def setUp(self):
        self.expected = json.loads((DATA / "model" / "expected.json").read_text())

    def test_prompt_ids_are_the_rendered_turn(self):
        for model in ("model/model.gguf", "model/hf"):
            run = kvw("generate", "--model", str(DATA / model), "--chat",
                      "--system", self.expected["system"], "--prompt", self.expected["prompt"],
                      "-n", "2", "--chat-date", "2024-07-26", "--json")
            self.assertEqual(run.returncode, 0, run.stderr)
            out = json.loads(run.stdout)
            self.assertEqual(out["prompt_ids"], self.expected["ids"], model)
            self.assertTrue(out["text"].startswith(self.expected["text"]), out["text"])

    def test_template_kwargs_reach_the_template(self):
        kwargs = json.dumps(self.expected["kwargs"])
        kwargs_file = DATA / "model" / "kwargs.json"
        kwargs_file.write_text(kwargs)
        for value in (kwargs, "@" + str(kwargs_file)):
            run = kvw("generate", "--model", str(DATA / "model/model.gguf"), "--chat",
                      "--system", self.expected["system"], "--prompt", self.expected["prompt"],
                      "-n", "1", "--chat-template-kwargs", value, "--json")
            self.assertEqual(run.returncode, 0, run.stderr)
            out = json.loads(run.stdout)
            self.assertEqual(out["prompt_ids"], self.expected["kwargs_ids"])
            self.assertNotEqual(out["prompt_ids"], self.expected["ids"])
        for bad, says in (("[1, 2]", "JSON object"), ("{\"a\": ", "--chat-template-kwargs")):
            run = kvw("generate", "--model", str(DATA / "model/model.gguf"), "--chat",
                      "--prompt", "x", "--chat-template-kwargs", bad)
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertIn(says, run.stderr)

    def test_info_reports_the_template(self):
        run = kvw("info", str(DATA / "model" / "model.gguf"), "--json")
        self.assertEqual(run.returncode, 0, run.stderr)
        chat = json.loads(run.stdout)["chat_template"]
        self.assertEqual(chat, {"present": True, "usable": True,
                                "bytes": len(self.expected["template"].encode())})
        run = kvw("info", "synthetic:tiny", "--json")
        self.assertEqual(json.loads(run.stdout)["chat_template"],
                         {"present": False, "usable": False})
        text = kvw("info", str(DATA / "model" / "model.gguf")).stdout
        self.assertIn("chat template " + str(len(self.expected["template"].encode())) + " bytes",
                      text)

    def test_a_model_without_a_template_is_refused(self):
        run = kvw("generate", "--model", "synthetic:tiny", "--chat", "--prompt", "hi", "-n", "1")
        self.assertEqual(run.returncode, 1)
        self.assertIn("no chat template", run.stderr)
        self.assertEqual(run.stdout, "")

    def test_chat_options_need_chat(self):
        for option in (["--system", "S"], ["--chat-date", "2024-01-01"],
                       ["--chat-template-kwargs", "{}"]):
            run = kvw("generate", "--model", "synthetic:tiny", *option)
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertIn("only read with --chat", run.stderr)
        run = kvw("generate", "--model", "synthetic:tiny", "--chat", "--chat-date", "2024-13-01")
        self.assertEqual(run.returncode, 2)
        self.assertIn("YYYY-MM-DD", run.stderr)


if __name__ == "__main__":
    KVW, DATA = sys.argv[1], pathlib.Path(sys.argv[2])
    unittest.main(argv=sys.argv[:1])
