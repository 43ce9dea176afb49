"""kvw run writes its trace as it goes (issue 26 item 1).

A run killed with SIGKILL leaves every tick it finished on disk, one whole JSON line each; a trace
cut in the middle of its last line (what a kill during a write or a full disk leaves) replays up
to that line with "trace ends at tick N (incomplete last line L)" and exit 0; SIGTERM stops the
run after its current tick with exit 143 and a whole trace that replays identical; a run that
fails before its first tick leaves an older trace of that name untouched.

Usage: trace_survives_kill.py KVW WORKDIR
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

KVW, WORK = sys.argv[1], sys.argv[2]
# streaming-llm keeps the cache from filling, so the run outlasts the test and must be stopped.
RUN = [KVW, "run", "--model", "synthetic:tiny", "--prompt", "The cache", "--quiet",
       "--policy", "streaming-llm", "--ticks", "1000000"]


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def whole_lines(path):
    with open(path, "rb") as f:
        text = f.read().decode()
    return text.split("\n")[:-1], text


def run_until(trace, lines, sig):
    """Starts a run, waits until its trace has `lines` lines, sends `sig`; returns rc, stderr."""
    proc = subprocess.Popen(RUN + ["--trace", trace], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline:
        if proc.poll() is not None:
            fail("the run ended before it was stopped: rc %d\n%s" % (proc.returncode,
                                                                     proc.stderr.read()))
        if os.path.exists(trace) and len(whole_lines(trace)[0]) >= lines:
            break
        time.sleep(0.01)
    else:
        proc.kill()
        fail("the trace never reached %d lines while the run went on" % lines)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err


def replay(trace):
    return subprocess.run([KVW, "replay", trace, "--quiet"], capture_output=True, text=True)


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)

# SIGKILL: nothing runs after it, so what is on disk is what each tick wrote.
killed = os.path.join(WORK, "killed.ndjson")
rc, _ = run_until(killed, 40, signal.SIGKILL)
if rc != -signal.SIGKILL:
    fail("expected the run to die of SIGKILL, rc %d" % rc)
lines, text = whole_lines(killed)
events = [json.loads(line) for line in lines]  # every whole line is an event
if "kvw_trace" not in events[0] or events[1]["event"] != "start":
    fail("the killed run's trace does not start with its header and start event")
ticks = [e["tick"] for e in events if e.get("event") == "tick"]
if len(ticks) < 38 or ticks != list(range(1, len(ticks) + 1)):
    fail("expected ticks 1..N (N >= 38) in the killed run's trace, got %s" % ticks[:5])

# Cut the file inside its last line, as a kill during the write would.
last_whole_tick = ticks[-2]
cut = text[: text.rstrip("\n").rfind("\n") + 1] + lines[-1][: len(lines[-1]) // 2]
with open(killed, "w") as f:
    f.write(cut)
result = replay(killed)
note = "trace ends at tick %d (incomplete last line %d)" % (last_whole_tick, len(lines))
if result.returncode != 0 or note not in result.stdout or "identical" not in result.stdout:
    fail("replay of the cut trace: rc %d, expected '%s' and identical\n%s\n%s"
         % (result.returncode, note, result.stdout, result.stderr))

# SIGTERM: the run stops cleanly after its tick, says so, and exits 128 + 15.
stopped = os.path.join(WORK, "stopped.ndjson")
rc, err = run_until(stopped, 20, signal.SIGTERM)
if rc != 143 or "SIGTERM: stopped after" not in err:
    fail("SIGTERM: rc %d, stderr:\n%s" % (rc, err))
if not whole_lines(stopped)[1].endswith("\n"):
    fail("SIGTERM left a cut last line")
result = replay(stopped)
if result.returncode != 0 or "identical" not in result.stdout or "trace ends" in result.stdout:
    fail("replay after SIGTERM: rc %d\n%s\n%s" % (result.returncode, result.stdout, result.stderr))

# A run that fails before its first tick keeps the older trace of that name.
before = open(stopped, "rb").read()
result = subprocess.run([KVW, "run", "--model", os.path.join(WORK, "no-such.gguf"), "--quiet",
                         "--trace", stopped], capture_output=True, text=True)
if result.returncode == 0 or open(stopped, "rb").read() != before:
    fail("a failed run changed the older trace (rc %d)" % result.returncode)
if sorted(os.listdir(WORK)) != ["killed.ndjson", "stopped.ndjson"]:
    fail("temporary files left behind: %s" % sorted(os.listdir(WORK)))
print("ok: %d ticks survived SIGKILL; SIGTERM exit 143; cut trace replayed to tick %d"
      % (len(ticks), last_whole_tick))
