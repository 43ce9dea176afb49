"""kvw sweep over a grid, locally and on a real one-node Slurm (issue 31's tests).

The grid: 2 models x 2 texts x (the full cache + streaming-llm, h2o and random at 2 budgets)
= 28 cells in 7 shards of 4, on the small generated test models and 80-byte texts.

* --jobs 1, 2 and 3 write byte-identical sweep.csv and overlap.csv.
* A plan with an unknown policy is refused, naming the cell, before sbatch is called (an sbatch
  on PATH that only records being called) and before plan.json is written; with that stub,
  --slurm --backend cuda --throttle 3 --sbatch --partition=gpu writes a script with one GPU per
  task and submits the array and then the merge after it, passing the option to both.
* On Slurm (munged, slurmctld and slurmd started here: slurm_node.py), --slurm --throttle 2
  gives the bytes of --jobs 1, the merge running as the job after the array.
* A shard cancelled with scancel while its array task runs (held in the test cluster's task
  prolog so that the cancel lands while it runs, however fast the machine) is reported failed by
  --status with Slurm's CANCELLED line; --resume submits that shard alone and the final tables
  are again the bytes of --jobs 1.
Skipped (77), saying why, where Slurm is not installed or its daemons cannot start here.

usage: sweep_on_slurm.py KVW MODEL_A MODEL_B TEXT_A TEXT_B WORK
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from slurm_node import SlurmNode, SlurmStartError  # noqa: E402

KVW, MODEL_A, MODEL_B = sys.argv[1], sys.argv[2], sys.argv[3]
SOURCES = [pathlib.Path(sys.argv[4]), pathlib.Path(sys.argv[5])]
WORK = pathlib.Path(sys.argv[6]).resolve()
CANCELLED_SHARD = 3


def grid(work):
    texts = []
    for i, source in enumerate(SOURCES):
        text = work / f"text{i}.txt"
        text.write_bytes(source.read_bytes()[:80])
        texts += ["--file", str(text)]
    return ["--model", MODEL_A, "--model", MODEL_B, *texts, "--policy", "full",
            "--policy", "streaming-llm", "--policy", "h2o", "--policy", "random",
            "--budgets", "2,6", "--sink", "2", "--window", "4", "--ctx", "16",
            "--cells-per-shard", "4", "--quiet"]


def kvw(*args, env=None, check=True):
    run = subprocess.run([KVW, "sweep", *args], capture_output=True, text=True, env=env)
    if check:
        assert run.returncode == 0, f"kvw sweep {' '.join(args)}:\n{run.stdout}\n{run.stderr}"
    return run


def tables(folder):
    return (folder / "sweep.csv").read_bytes(), (folder / "overlap.csv").read_bytes()


def wait_for_merge(folder, node, timeout=240):
    deadline = time.monotonic() + timeout
    # The merge writes sweep.csv, then overlap.csv (each renamed into place whole): both.
    while not ((folder / "sweep.csv").exists() and (folder / "overlap.csv").exists()):
        if time.monotonic() > deadline:
            status = kvw("--status", str(folder), env=node.env, check=False).stdout
            raise AssertionError(f"no merge in {folder} after {timeout} s\n{status}\n"
                                 f"{node.logs()}")
        time.sleep(0.5)


def wait_until_held(folder, node, shard, timeout=120):
    """Waits until --status shows the shard running and its task's prolog holds it: the pid."""
    deadline = time.monotonic() + timeout
    while True:
        status = kvw("--status", str(folder), env=node.env).stdout
        if f"shard {shard} (cells {4 * shard}-{4 * shard + 3}): queued (RUNNING)" in status:
            pid = node.holding_pid(shard)
            if pid is not None:
                return pid
        assert time.monotonic() < deadline, f"shard {shard} never ran:\n{status}\n{node.logs()}"
        time.sleep(0.3)


def main():
    if WORK.exists():
        shutil.rmtree(WORK)
    WORK.mkdir(parents=True)
    args = grid(WORK)

    # Local runners: the same bytes whatever the number of processes.
    local = {}
    for jobs in (1, 2, 3):
        folder = WORK / f"jobs{jobs}"
        kvw("--plan", str(folder), *args, "--jobs", str(jobs))
        local[jobs] = tables(folder)
    reference = local[1]
    assert reference[0].count(b"\n") == 1 + 2 * 7, reference[0]
    assert local[2] == reference and local[3] == reference, "--jobs 1/2/3 differ"
    # The default backend, auto, is resolved when the plan is written: every shard, here or on
    # whatever node Slurm gives it, computes with the backend the plan names.
    backend = json.loads((WORK / "jobs1" / "plan.json").read_text())["backend"]
    assert backend in ("cpu", "cpu:fast"), backend

    # Refused before sbatch: an sbatch that only records that it was called.
    fake = WORK / "fake-bin"
    fake.mkdir()
    (fake / "sbatch").write_text(f"#!/bin/sh\ntouch {WORK}/sbatch-called\necho 1\n")
    (fake / "sbatch").chmod(0o755)
    env = dict(os.environ, PATH=f"{fake}:{os.environ['PATH']}")
    bad = kvw("--plan", str(WORK / "bad"), *args, "--policy", "h20", "--slurm", env=env,
              check=False)
    assert bad.returncode != 0, bad.stdout
    assert "cell 7 (model " in bad.stderr and "unknown policy 'h20'" in bad.stderr, bad.stderr
    assert not (WORK / "sbatch-called").exists(), "sbatch was called for a refused plan"
    assert not (WORK / "bad" / "plan.json").exists()

    # What --slurm asks of sbatch, recorded by a stub: the array with its throttle and the
    # pass-through option, one GPU per task on the cuda backend, the merge after the array.
    (fake / "sbatch").write_text(f'#!/bin/sh\necho "$*" >> {WORK}/sbatch-calls\necho 41\n')
    folder = WORK / "cuda-plan"
    run = kvw("--plan", str(folder), *args, "--backend", "cuda", "--slurm", "--throttle", "3",
              "--sbatch", "--partition=gpu", env=env)
    calls = (WORK / "sbatch-calls").read_text().splitlines()
    assert calls == [
        f"--parsable --array=0-6%3 --partition=gpu {folder}/sweep.sbatch",
        f"--parsable --dependency=afterok:41 --kill-on-invalid-dep=yes --partition=gpu "
        f"{folder}/merge.sbatch"], calls
    script = (folder / "sweep.sbatch").read_text()
    assert "#SBATCH --gpus-per-task=1\n" in script and "#SBATCH --array=0-6%3\n" in script, script
    assert f"sweep --run '{folder}' --shard \"$SLURM_ARRAY_TASK_ID\"" in script, script
    assert f"sweep --merge '{folder}'" in (folder / "merge.sbatch").read_text()

    if not all(shutil.which(p) for p in ("munged", "slurmctld", "slurmd", "sbatch")):
        print("SKIP: munged, slurmctld, slurmd and sbatch are not installed "
              "(scripts/install-deps.sh --tests installs Debian's munge and slurm-wlm)")
        sys.exit(77)
    # The daemons' state in a short temporary path: munge's socket path must fit a sockaddr_un
    # (108 bytes) wherever the build folder is.
    state = pathlib.Path(tempfile.mkdtemp(prefix="kvw-slurm-"))
    try:
        on_slurm(args, reference, state)
    except SlurmStartError as e:
        # Daemons that cannot start are the machine's limit (a container without the rights
        # munged or slurmd need), not the sweep's: everything above ran; say why this did not.
        print(f"SKIP: a one-node Slurm could not start on this machine:\n{e}")
        sys.exit(77)
    finally:
        shutil.rmtree(state, ignore_errors=True)
    print("ok")


def on_slurm(args, reference, state):
    with SlurmNode(state) as node:
        # The whole grid on Slurm: an array of 7 tasks, 2 at a time, then the merge job.
        folder = WORK / "slurm-run"
        run = kvw("--plan", str(folder), *args, "--slurm", "--throttle", "2", env=node.env)
        assert "--array=0-6%2" in run.stdout, run.stdout
        script = (folder / "sweep.sbatch").read_text()
        assert "#SBATCH --array=0-6%2" in script and "--gpus-per-task" not in script, script
        wait_for_merge(folder, node)
        assert tables(folder) == reference, "--slurm differs from --jobs 1"
        assert (folder / "logs" / "shard-00006.log").exists(), os.listdir(folder / "logs")

        # A shard cancelled while it runs: --status names it, --resume redoes it alone.
        folder = WORK / "slurm-cancel"
        node.hold(CANCELLED_SHARD)
        try:
            run = kvw("--plan", str(folder), *args, "--slurm", env=node.env)
            job = run.stdout.split("array job ")[1].split()[0]
            prolog = wait_until_held(folder, node, CANCELLED_SHARD)
            subprocess.run(["scancel", f"{job}_{CANCELLED_SHARD}"], env=node.env, check=True)
            node.wait_until_killed(prolog)
        finally:
            node.release(CANCELLED_SHARD)
        deadline = time.monotonic() + 120
        while True:
            status = kvw("--status", str(folder), env=node.env).stdout
            if "6 of 7 shards done, 0 queued or running, 1 failed" in status:
                break
            assert time.monotonic() < deadline, f"{status}\n{node.logs()}"
            time.sleep(0.5)
        line = [x for x in status.splitlines() if x.startswith(f"shard {CANCELLED_SHARD} ")][0]
        assert "failed" in line and "CANCELLED" in line, status
        assert not (folder / "sweep.csv").exists(), "the merge ran without a shard"
        run = kvw("--resume", str(folder), env=node.env)
        assert f"--array={CANCELLED_SHARD}" in run.stdout and "resuming 1 shard" in run.stdout, \
            run.stdout
        wait_for_merge(folder, node)
        assert tables(folder) == reference, "the resumed Slurm run differs from --jobs 1"
        status = kvw("--status", str(folder), env=node.env).stdout
        assert "7 of 7 shards done" in status, status


main()
