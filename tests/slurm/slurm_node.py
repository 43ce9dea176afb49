"""A real one-node Slurm for the tests: munged, slurmctld and slurmd from Debian's munge and
slurm-wlm packages (scripts/install-deps.sh --tests installs them), configured from
tests/slurm/slurm.conf.in with every file in one temporary folder, run in the foreground as
children of this process and stopped at the end. No systemd and no cgroups are needed, so it
runs the same on a CI machine, in a container and here.

    with SlurmNode(state_dir) as node:     # waits until sinfo shows the node idle
        subprocess.run(["sbatch", ...], env=node.env)

A daemon that does not come up within the timeout raises SlurmStartError with the daemons'
logs in its message, so a CI failure says why (a port in use, a munge key refused...).
"""
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import time

HERE = pathlib.Path(__file__).resolve().parent
NODE = "kvwnode"


class SlurmStartError(RuntimeError):
    pass


def _alive(pid: int) -> bool:
    # A killed process its parent has not reaped yet is a zombie: dead for the test.
    try:
        state = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def free_port() -> int:
    # The kernel's choice, released again: two test runs on one machine do not collide.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class SlurmNode:
    def __init__(self, state: pathlib.Path, cpus: int = 2, timeout: float = 60.0):
        self.state = pathlib.Path(state).resolve()
        self.cpus, self.timeout = cpus, timeout
        self.procs = []
        self.env = dict(os.environ, SLURM_CONF=str(self.state / "slurm.conf"))

    def _write_config(self):
        if self.state.exists():
            shutil.rmtree(self.state)
        for sub in ("ctld", "slurmd"):
            (self.state / sub).mkdir(parents=True)
        # munged refuses a key that others may read, and a socket folder others may write.
        self.state.chmod(0o755)
        key = self.state / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o600)
        words = {"HOST": socket.gethostname().split(".")[0], "NODE": NODE,
                 "USER": subprocess.run(["id", "-un"], capture_output=True, text=True,
                                        check=True).stdout.strip(),
                 "STATE": str(self.state), "CPUS": str(self.cpus),
                 "CTLD_PORT": str(free_port()), "SLURMD_PORT": str(free_port())}
        conf = (HERE / "slurm.conf.in").read_text()
        for name, value in words.items():
            conf = conf.replace(f"@{name}@", value)
        (self.state / "slurm.conf").write_text(conf)
        prolog = self.state / "task_prolog.sh"
        # A held task's prolog leaves its pid behind, so the test can see Slurm's kill land.
        prolog.write_text("#!/bin/sh\n"
                          f'hold="{self.state}/hold-$SLURM_ARRAY_TASK_ID"\n'
                          'if [ -e "$hold" ]; then echo $$ > "$hold.pid"; fi\n'
                          'while [ -e "$hold" ]; do sleep 0.2; done\n')
        prolog.chmod(0o755)

    def hold(self, task: int):
        """Array tasks numbered `task` wait in their prolog, RUNNING, until release()."""
        (self.state / f"hold-{task}").touch()

    def release(self, task: int):
        (self.state / f"hold-{task}").unlink(missing_ok=True)

    def holding_pid(self, task: int):
        """The pid of the prolog holding array task `task`, once it holds it (else None).

        Slurm shows a task RUNNING from its allocation, before its prolog has started: a cancel
        meant to land while the task runs waits for this first."""
        pid_file = self.state / f"hold-{task}.pid"
        # (empty for the moment between the shell's creating the file and writing it)
        pid = pid_file.read_text().strip() if pid_file.exists() else ""
        return int(pid) if pid and _alive(int(pid)) else None

    def wait_until_killed(self, pid: int, timeout: float = 60.0):
        """Waits until slurmd has killed the holding prolog `pid` (holding_pid).

        scancel returns once slurmctld has taken the cancel; slurmd kills the task later. A test
        that lifted the hold at once let a fast task run to its end first on a loaded machine
        (the shard was done, not cancelled), so it waits for the kill to land, then releases."""
        deadline = time.monotonic() + timeout
        while _alive(pid):
            if time.monotonic() > deadline:
                raise AssertionError(f"the holding prolog {pid} was not killed within {timeout} s"
                                     f"\n{self.logs()}")
            time.sleep(0.1)

    def _start(self, argv, log_name):
        log = open(self.state / log_name, "w")
        self.procs.append(subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                           env=self.env, start_new_session=True))

    def logs(self) -> str:
        out = []
        for name in ("munged.log", "munged.out", "slurmctld.log", "slurmctld.out", "slurmd.log",
                     "slurmd.out"):
            path = self.state / name
            if path.exists():
                out.append(f"----- {path} (last 40 lines) -----")
                out.extend(path.read_text(errors="replace").splitlines()[-40:])
        return "\n".join(out)

    def node_state(self) -> str:
        run = subprocess.run(["sinfo", "-h", "-N", "-o", "%T"], capture_output=True, text=True,
                             env=self.env, timeout=15)
        return run.stdout.strip() if run.returncode == 0 else "sinfo: " + run.stderr.strip()

    def __enter__(self):
        self._write_config()
        s = self.state
        self._start(["munged", "--foreground", "--force", f"--socket={s}/munge.socket",
                     f"--key-file={s}/munge.key", f"--pid-file={s}/munged.pid",
                     f"--seed-file={s}/munged.seed", f"--log-file={s}/munged.log"],
                    "munged.out")
        deadline = time.monotonic() + self.timeout
        while not (s / "munge.socket").exists():
            self._check_alive("munged", deadline)
            time.sleep(0.1)
        self._start(["slurmctld", "-D", "-i", "-f", str(s / "slurm.conf")], "slurmctld.out")
        self._start(["slurmd", "-D", "-N", NODE, "-f", str(s / "slurm.conf")], "slurmd.out")
        state = ""
        while True:
            self._check_alive("slurmctld and slurmd", deadline)
            state = self.node_state()
            if state == "idle":
                return self
            time.sleep(0.5)

    def _check_alive(self, what, deadline):
        dead = [p.args[0] for p in self.procs if p.poll() is not None]
        late = time.monotonic() > deadline
        if dead or late:
            reason = f"{', '.join(dead)} exited" if dead else \
                f"{what} not ready after {self.timeout:.0f} s"
            state = self._last_state()
            self.stop()
            raise SlurmStartError(f"single-node Slurm did not start: {reason} "
                                  f"(node state: {state})\n{self.logs()}")

    def _last_state(self):
        try:
            return self.node_state()
        except Exception as e:  # the daemons are stopped already: say what sinfo said
            return str(e)

    def _drain(self, timeout=20.0):
        """Cancels what is left and waits for the queue to empty, so that no job step is
        still reporting to slurmd when it stops."""
        subprocess.run(["scancel", "--partition=kvw"], env=self.env, capture_output=True,
                       timeout=15)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            run = subprocess.run(["squeue", "-h"], env=self.env, capture_output=True, text=True,
                                 timeout=15)
            if run.returncode != 0 or not run.stdout.strip():
                return
            time.sleep(0.3)

    def _own_step_daemons(self):
        """The slurmstepd processes of this cluster (they run detached from slurmd): those
        whose environment names this cluster's slurm.conf."""
        mark = f"SLURM_CONF={self.env['SLURM_CONF']}".encode()
        pids = []
        for proc in pathlib.Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            try:
                if (proc / "comm").read_text().strip() == "slurmstepd" and \
                        mark in (proc / "environ").read_bytes().split(b"\0"):
                    pids.append(int(proc.name))
            except OSError:
                continue
        return pids

    def stop(self):
        if self.procs and all(p.poll() is None for p in self.procs):
            try:
                self._drain()
            except subprocess.TimeoutExpired:
                pass
        # slurmd first (it ends the job steps it runs), then the controller, then munge.
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        self.procs = []
        for pid in self._own_step_daemons():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def __exit__(self, *exc):
        self.stop()
        return False
