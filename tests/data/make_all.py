#!/usr/bin/env python3
"""Runs every tests/data/make_*.py generator; each writes its files under OUTDIR/<name>/.

The generators use independent writers (the gguf, safetensors and sentencepiece packages), so
the C++ readers are checked against code that is not ours.
"""
import pathlib
import runpy
import sys


def main() -> int:
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    here = pathlib.Path(__file__).parent
    sys.path.insert(0, str(here))  # the generators share helpers such as llama_spm.py
    for script in sorted(here.glob("make_*.py")):
        if script.name == "make_all.py":
            continue
        target = out / script.stem.removeprefix("make_")
        target.mkdir(parents=True, exist_ok=True)
        print(f"[make_test_data] {script.name} -> {target}", flush=True)
        module = runpy.run_path(str(script))
        module["generate"](target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
