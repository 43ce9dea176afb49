"""What a user piping `kvw` into other tools relies on, checked for every command.

* `kvw COMMAND --help` exits 0 and prints that command's usage on stdout, nothing on stderr.
* The usage lists exactly the options the command accepts: the synopsis and the option lines
  name the same options, every one of them is accepted, and an option it does not list is
  refused (as is `bench decode --type`, which the old usage documented by mistake).
* README.md shows every command's synopsis as `--help` prints it.
* `--json` puts one JSON object on stdout and nothing else; log lines go to stderr, and
  `--quiet` silences the info lines.

usage: cli_contract.py KVW README
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

KVW = ""
README = ""
MODEL = "synthetic:tiny"  # any model will do; this one needs no file


def kvw(*args, text_input=None):
    return subprocess.run([KVW, *args], capture_output=True, text=True, input=text_input)


def commands():
    """The command names `kvw --help` lists ("generate", "bench decode", ...)."""
    out = kvw("--help").stdout
    return [m.group(1) for m in re.finditer(r"^  (\S+(?: \S+)?)  +\S", out, re.MULTILINE)]


def usage(command):
    return kvw(*command.split(), "--help")


def listed_options(text):
    """{option word: takes a value} from the option lines of a usage text."""
    options = {}
    for m in re.finditer(r"^  (--?[a-z][a-z-]*)( \S+)?  ", text, re.MULTILINE):
        options[m.group(1)] = m.group(2) is not None
    return options


def synopsis(text):
    """The usage's first lines up to the summary, joined, spaces normalised."""
    lines = text.split("\n")
    syn = [lines[0]]
    for line in lines[1:]:
        if not line.startswith(" "):
            break
        syn.append(line)
    return " ".join(" ".join(syn).split())


class CliContract(unittest.TestCase):
    def test_every_command_is_listed(self):
        names = commands()
        for expected in ("generate", "tokenize", "info", "perplexity", "run", "bench decode"):
            self.assertIn(expected, names)

    def test_help_of_every_command_exits_0(self):
        for command in commands():
            with self.subTest(command=command):
                done = usage(command)
                self.assertEqual(done.returncode, 0, done.stderr)
                self.assertTrue(done.stdout.startswith("usage: kvw " + command), done.stdout)
                self.assertEqual(done.stderr, "")

    def test_usage_lists_exactly_the_accepted_options(self):
        for command in commands():
            text = usage(command).stdout
            options = listed_options(text)
            own = listed_options(text.split("common options:")[0])
            with self.subTest(command=command):
                self.assertIn("--help", options)
                # The synopsis names exactly the command's own options.
                in_synopsis = set(re.findall(r"(?:^|[ \[])(--?[a-z][a-z-]*)", synopsis(text)))
                self.assertEqual(in_synopsis, set(own), text)
                for option, takes_value in options.items():
                    args = [option, "x"] if takes_value else [option]
                    done = kvw(*command.split(), *args, "--help")
                    self.assertEqual(done.returncode, 0, f"{option}: {done.stderr}")
                done = kvw(*command.split(), "--no-such-option", "--help")
                self.assertEqual(done.returncode, 2)
                self.assertIn("unknown option --no-such-option", done.stderr)

    def test_bench_decode_takes_types_not_type(self):
        self.assertIn("--types", listed_options(usage("bench decode").stdout))
        done = kvw("bench", "decode", "--type", "f32")
        self.assertEqual(done.returncode, 2)
        self.assertIn("unknown option --type", done.stderr)

    def test_readme_shows_every_synopsis(self):
        readme = " ".join(open(README, encoding="utf-8").read().split())
        for command in commands():
            with self.subTest(command=command):
                line = synopsis(usage(command).stdout).replace("usage: ", "", 1)
                self.assertTrue(line in readme, f"README.md lacks: {line}")

    def assert_one_json_object(self, done):
        self.assertEqual(done.returncode, 0, done.stderr)
        # json.loads refuses anything before or after the one value.
        value = json.loads(done.stdout)
        self.assertIsInstance(value, dict)
        return value

    def test_tokenize_json(self):
        out = self.assert_one_json_object(kvw("tokenize", "--model", MODEL, "the cache", "--json"))
        self.assertEqual(len(out["ids"]), out["count"])
        self.assertEqual(len(out["pieces"]), out["count"])

    def test_generate_json_with_logits(self):
        out = self.assert_one_json_object(kvw("generate", "--model", MODEL, "--prompt",
                                              "the cache", "-n", "5", "--ignore-eos",
                                              "--logits", "3", "--json"))
        self.assertEqual(len(out["generated_ids"]), 5)
        self.assertEqual(len(out["steps"]), 5)
        for token, step in zip(out["generated_ids"], out["steps"]):
            top = [t["logit"] for t in step["top"]]
            self.assertEqual(len(top), 3)
            self.assertEqual(top, sorted(top, reverse=True))
            # Greedy (the default) takes the largest logit.
            self.assertEqual(step["top"][0]["id"], token)

    def test_generate_logits_text_lines(self):
        done = kvw("generate", "--model", MODEL, "--prompt", "the cache", "-n", "4",
                   "--ignore-eos", "--logits", "2")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(len(re.findall(r"^step \d+: ", done.stdout, re.MULTILINE)), 4)

    def test_info_json(self):
        out = self.assert_one_json_object(kvw("info", MODEL, "--json"))
        self.assertEqual(out["config"]["layers"], 4)
        self.assertGreater(len(out["tensors"]), 4 * 9)

    def test_perplexity_json(self):
        text = " ".join(f"line {i} of a text that the cache remembers" for i in range(20))
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "text.txt")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            out = self.assert_one_json_object(kvw("perplexity", "--model", MODEL, "--file",
                                                  path, "--ctx", "32", "--json"))
        self.assertEqual(out["scored_tokens"], out["chunks"] * (32 - 1 - 16))
        self.assertGreater(out["perplexity"], 1.0)

    def test_logs_go_to_stderr_and_quiet_silences_them(self):
        args = ["generate", "--model", MODEL, "--prompt", "the cache", "-n", "2"]
        loud = kvw(*args)
        self.assertNotIn("[info]", loud.stdout)
        self.assertIn("[info]", loud.stderr)
        quiet = kvw(*args, "--quiet")
        self.assertEqual(quiet.stdout, loud.stdout)
        self.assertNotIn("[info]", quiet.stderr)
        self.assertEqual(kvw(*args, "--log-level", "chatty").returncode, 2)

    def test_a_missing_required_option_is_a_usage_error(self):
        done = kvw("perplexity", "--model", MODEL)
        self.assertEqual(done.returncode, 2)
        self.assertIn("missing option --file", done.stderr)


if __name__ == "__main__":
    KVW, README = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1], verbosity=2)
