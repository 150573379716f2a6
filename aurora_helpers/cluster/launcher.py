"""A real JAX cluster on this machine: N processes joined by ``jax.distributed``, for teaching.

Multi-host JAX runs one Python process per host; every process runs the same program, and
``jax.distributed.initialize`` joins them into one job whose collectives cross process
boundaries. :class:`LocalCluster` builds exactly that on one machine: each worker is a fresh
Python process with its own simulated CPU devices, joined through a coordinator on
``127.0.0.1`` (a free port, never another interface) with Gloo CPU collectives. A program (a
function, source text or a script file) runs on every process at once; each rank's result,
stdout and stderr come back labelled by rank.

Faults end the run instead of hanging it: a rank that raises or dies stops all the others and
raises :class:`ClusterProcessError` with that rank's traceback (on a ``recoverable`` cluster a
rank other than 0 may die and the others go on: JAX's ``live_devices`` recovery); a run that exceeds its timeout
is killed and raises :class:`ClusterTimeout`; interrupting the kernel stops every worker. Each
worker runs in its own process group, which is killed and reaped, so no process outlives a
failure or the cluster. Nothing here builds a shell command: workers start from argument lists.
"""

from __future__ import annotations

import base64
import json
import os
import pickle
import subprocess
import sys
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .._checks import positive_float, positive_int
from .outcomes import (
    ClusterError,
    ClusterProcessError,
    ClusterRun,
    ClusterStartError,
    ClusterTimeout,
    rank_failure,
    timeout_failure,
)
from .processes import _free_port, _program_task, _worker_env, _Workers

__all__ = [
    "DEFAULT_START_TIMEOUT",
    "DEFAULT_TIMEOUT",
    "IMITATIONS",
    "ClusterError",
    "ClusterProcessError",
    "ClusterRun",
    "ClusterStartError",
    "ClusterTimeout",
    "LocalCluster",
    "run_cluster",
]

#: Seconds a run may take unless the caller says otherwise.
DEFAULT_TIMEOUT = 60.0
#: Seconds the processes may take to start and join the cluster (importing JAX dominates).
DEFAULT_START_TIMEOUT = 90.0
#: Launchers whose environment :class:`LocalCluster` can imitate (see ``imitate``).
IMITATIONS = ("slurm",)
_PORT_ATTEMPTS = 3
# What rank 0 reports (as an exception, or in its log before it crashes) when its port is taken.
_PORT_BUSY = (
    "Failed to start RPC server",
    "Failed to add port to server",
    "Address already in use",
)
_WORKER = Path(__file__).with_name("_worker.py")

#: What JAX's distributed client prints when it ends its task because another task died.
_DIED_OF_ANOTHER = ("another task died", "detected fatal errors")


class LocalCluster:
    """``processes`` JAX processes on this machine, each with ``devices_per_process`` CPU devices.

    The processes start on the first :meth:`run` (or :meth:`start`) and stay up between runs, so
    a notebook pays JAX's start-up once; each run executes its program in a fresh namespace.
    After a failed or timed-out run the processes are gone and the next run starts new ones.
    Use it as a context manager, or call :meth:`close`; leftovers are killed when the object is
    garbage-collected or Python exits.

    Args:
        processes: how many processes (the cluster's "hosts"); ranks are ``0 .. processes-1``.
        devices_per_process: simulated CPU devices in each process.
        timeout: default seconds a run may take before every process is killed.
        start_timeout: seconds the processes may take to start and join.
        imitate: ``None`` (default): each process joins the cluster before your program runs,
            through ``jax.distributed.initialize`` with the coordinator address, process count
            and id given explicitly. ``"slurm"``: each process gets the environment variables
            ``srun`` would set (``SLURM_NTASKS``, ``SLURM_PROCID``, ...) and nothing else; the
            program must call ``jax.distributed.initialize()`` itself, and JAX's cluster
            auto-detection finds the cluster, exactly as in a SLURM job.
        env: extra environment variables for the workers.
        recoverable: let the survivors go on when a rank other than 0 dies (rank 0 hosts the
            coordinator), as JAX's experimental recovery needs: each process sets
            ``jax_enable_recoverability`` and a one-second heartbeat before it joins, a run in
            which ranks died returns a :class:`ClusterRun` whose ``died`` maps them to their exit
            codes (their results are None), and :meth:`close` shuts the survivors down with rank
            0 last. A rank that raises still stops every rank. Not with ``imitate``.
        heartbeat_timeout: whole seconds without heartbeats after which JAX's coordinator
            declares a process dead (``heartbeat_timeout_seconds``; JAX's default 100). ``None``:
            20 s (1 s on a recoverable cluster). Not with ``imitate``, whose programs join by
            themselves.
    """

    def __init__(
        self,
        processes: int = 2,
        devices_per_process: int = 2,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        start_timeout: float = DEFAULT_START_TIMEOUT,
        imitate: str | None = None,
        env: Mapping[str, str] | None = None,
        recoverable: bool = False,
        heartbeat_timeout: int | None = None,
    ) -> None:
        if os.name != "posix":
            raise ClusterStartError(
                "LocalCluster needs a POSIX system (Linux, macOS); on Windows use WSL or Colab"
            )
        self.processes = positive_int("processes", processes)
        self.devices_per_process = positive_int("devices_per_process", devices_per_process)
        self.timeout = positive_float("timeout", timeout)
        self.start_timeout = positive_float("start_timeout", start_timeout)
        if imitate is not None and imitate not in IMITATIONS:
            raise ValueError(f"imitate must be None or one of {IMITATIONS}, got {imitate!r}")
        self.imitate = imitate
        if recoverable and imitate is not None:
            raise ValueError(
                "recoverable=True sets up JAX's recovery before joining the cluster; with "
                "imitate the program joins by itself: use one or the other"
            )
        self.recoverable = bool(recoverable)
        if heartbeat_timeout is not None:
            if isinstance(heartbeat_timeout, bool) or not isinstance(heartbeat_timeout, int):
                raise TypeError(
                    f"heartbeat_timeout must be a whole number of seconds, got "
                    f"{heartbeat_timeout!r}"
                )
            if heartbeat_timeout < 1:
                raise ValueError(f"heartbeat_timeout must be at least 1, got {heartbeat_timeout}")
            if imitate is not None:
                raise ValueError(
                    "with imitate the program joins by itself and chooses its own "
                    "heartbeat_timeout_seconds: leave heartbeat_timeout out"
                )
        self.heartbeat_timeout = heartbeat_timeout
        env = dict(env or {})
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
            raise TypeError("env must map strings to strings")
        self.env = env
        self.port: int | None = None
        self.starts = 0
        self._workers: _Workers | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._tasks = 0
        self._runs_since_start = 0
        self._died: dict[int, int | None] = {}

    # -- lifecycle -------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """True while the processes are up (between a start and a close or a failure)."""
        return self._workers is not None and self._workers.alive

    @property
    def pids(self) -> tuple[int, ...]:
        """Process ids of the running workers, by rank (empty when not running)."""
        workers = self._workers
        return tuple(p.pid for p in workers.procs) if workers is not None and workers.alive else ()

    @property
    def exit_codes(self) -> tuple[int | None, ...]:
        """How the processes of the last start ended, by rank (empty while they run).

        0: the process left through ``jax.distributed.shutdown()`` (a clean :meth:`close`);
        negative: it was killed by that signal (``-9``: stopped after a failure or timeout).
        """
        if self._workers is None or self.running:
            return ()
        return tuple(p.returncode for p in self._workers.procs)

    def start(self) -> LocalCluster:
        """Start the processes and wait until all have joined; retries if the port was taken."""
        if self.running:
            return self
        last: ClusterStartError | None = None
        for _ in range(_PORT_ATTEMPTS):
            try:
                self._start_once(_free_port())
                self.starts += 1
                self._runs_since_start = 0
                self._died = {}
                return self
            except ClusterStartError as err:
                if not err.port_taken:
                    raise
                last = err  # someone took the port between our check and rank 0's bind
        assert last is not None
        raise last

    def _start_once(self, port: int) -> None:
        import tempfile

        from ..contract import strict_mode

        run_dir = Path(tempfile.mkdtemp(prefix="aurora-cluster-"))
        workers = _Workers(run_dir)
        self._workers = workers
        self._finalizer = weakref.finalize(self, workers.kill)
        self.port = port
        spec = {
            "processes": self.processes,
            "devices_per_process": self.devices_per_process,
            "port": port,
            "imitate": self.imitate,
            "init_timeout": max(1, int(self.start_timeout)),
            "sys_path": [os.path.abspath(p or os.curdir) for p in sys.path],
            "strict": strict_mode(),  # deprecations in programs are errors, as in notebooks
            "recoverable": self.recoverable,
            "heartbeat_timeout": self.heartbeat_timeout,
        }
        (run_dir / "spec.json").write_text(json.dumps(spec))
        try:
            for rank in range(self.processes):
                out = workers.log(rank, "out").open("wb")
                err = workers.log(rank, "err").open("wb")
                workers.files.append((out, err))
                workers.procs.append(
                    subprocess.Popen(
                        [sys.executable, "-u", str(_WORKER), str(run_dir), str(rank)],
                        stdin=subprocess.PIPE,
                        stdout=out,
                        stderr=err,
                        env=_worker_env(rank, self.processes, port, self.imitate, self.env),
                        start_new_session=True,  # own process group: killed as one, no SIGINT
                    )
                )
            start = [(0, 0)] * self.processes
            self._collect("ready", self.start_timeout, start, phase="start")
        except BaseException:
            workers.kill()
            raise

    def close(self) -> None:
        """Shut the cluster down (``jax.distributed.shutdown`` in every process), then reap it."""
        workers = self._workers
        if workers is None or not workers.alive:
            return
        deadline = time.monotonic() + 10.0
        # A recoverable coordinator does not wait for the others at shutdown, and a rank whose
        # coordinator has gone aborts: there the others leave first and rank 0 last.
        waves = [workers.procs[1:], workers.procs[:1]] if self.recoverable else [workers.procs]
        try:
            for wave in waves:
                for proc in wave:
                    try:
                        assert proc.stdin is not None
                        proc.stdin.write(b"exit\n")
                        proc.stdin.close()
                    except (OSError, ValueError):
                        pass
                for proc in wave:
                    proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
        finally:
            workers.kill()

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = f"running on 127.0.0.1:{self.port}" if self.running else "not running"
        return (
            f"LocalCluster({self.processes} process(es) x {self.devices_per_process} CPU "
            f"device(s), {state})"
        )

    # -- running programs ------------------------------------------------------------------

    def run(
        self,
        program: Callable[..., Any] | str | os.PathLike[str],
        args: Sequence[Any] = (),
        kwargs: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        rank_args: Sequence[Sequence[Any]] | None = None,
    ) -> ClusterRun:
        """Run ``program`` on every process at once; return each rank's result and output.

        ``program`` is a function (called with ``args``/``kwargs``; its return value is the
        result), source text, or a path to a script (their result is whatever they leave in a
        variable named ``result``). A function defined in a notebook is sent as source, so it
        must import what it uses inside its body. JAX arrays in results come back as NumPy.

        ``rank_args`` (function programs only): one tuple per rank; rank ``r`` calls
        ``program(*args, *rank_args[r], **kwargs)``. Each tuple travels only to its own rank
        (through that process's command pipe, never a shared file), so a rank cannot read what
        the others were given, as on real hosts.

        Raises:
            ClusterProcessError: a rank raised or died; it names the rank and holds its
                traceback. The other ranks were stopped.
            ClusterTimeout: the run took longer than ``timeout`` (default: the cluster's).
        """
        limit = self.timeout if timeout is None else positive_float("timeout", timeout)
        task = _program_task(program, args, kwargs or {})
        payload = _pickled(task)
        own: list[str] = [""] * self.processes
        if rank_args is not None:
            if task["kind"] not in ("function-source", "function-ref"):
                raise TypeError(
                    "rank_args are for function programs; source text and scripts take none"
                )
            if len(rank_args) != self.processes:
                raise ValueError(
                    f"rank_args has {len(rank_args)} entries; this cluster has {self.processes} "
                    "ranks: give one tuple per rank"
                )
            own = [base64.b64encode(_pickled(tuple(a))).decode("ascii") for a in rank_args]
        for attempt in range(_PORT_ATTEMPTS):
            fresh = not self.running or self._runs_since_start == 0
            try:
                return self._run_once(payload, own, limit)
            except ClusterProcessError as err:
                # With an imitated launcher the program itself starts the coordinator, so a
                # port taken by someone else shows up here, on the first run: start again.
                if not (self.imitate and fresh and err.port_taken) or attempt + 1 == _PORT_ATTEMPTS:
                    raise
        raise AssertionError("unreachable")

    def _run_once(self, payload: bytes, own: Sequence[str], limit: float) -> ClusterRun:
        if self.running and self._died:
            raise ClusterError(
                f"rank(s) {sorted(self._died)} of this cluster died; close it and start a new one"
            )
        self.start()
        workers = self._workers
        assert workers is not None
        self._runs_since_start += 1
        self._tasks += 1
        task_id = str(self._tasks)
        (workers.run_dir / f"task-{task_id}.pkl").write_bytes(payload)
        since = workers.sizes()
        began = time.monotonic()
        try:
            for proc, mine in zip(workers.procs, own, strict=True):
                assert proc.stdin is not None
                proc.stdin.write(f"{task_id} {mine}".rstrip().encode() + b"\n")
                proc.stdin.flush()
        except OSError:
            pass  # a worker has died; _collect reports which one
        except BaseException:
            workers.kill()
            raise
        values = self._collect(f"result-{task_id}", limit, since, phase="run")
        stdout, stderr = workers.read(since)
        return ClusterRun(
            results=tuple(values),
            stdout=tuple(stdout),
            stderr=tuple(stderr),
            processes=self.processes,
            devices_per_process=self.devices_per_process,
            seconds=time.monotonic() - began,
            died=dict(self._died),
        )

    def _collect(
        self, prefix: str, limit: float, since: Sequence[tuple[int, int]], *, phase: str
    ) -> list[Any]:
        """Wait for every rank's report; on any failure, timeout or interrupt kill them all."""
        workers = self._workers
        assert workers is not None
        n = self.processes
        reports: list[dict[str, Any] | None] = [None] * n
        deadline = time.monotonic() + limit
        pause = 0.005
        try:
            while True:
                for rank in range(n):
                    if reports[rank] is not None:
                        continue
                    path = workers.run_dir / f"{prefix}-{rank}.pkl"
                    # Check for an exit first, then for the report: a rank that reported just
                    # before it exited is judged by its report.
                    exited = workers.procs[rank].poll() is not None
                    if path.exists():
                        report = pickle.loads(path.read_bytes())
                        reports[rank] = report
                        if not report["ok"]:
                            self._fail_rank(rank, report, since, phase)
                    elif exited and self.recoverable and phase == "run" and rank != 0:
                        self._died[rank] = workers.procs[rank].returncode
                        reports[rank] = {"ok": True, "value": None}
                    elif exited:
                        self._fail_rank(self._first_to_die(rank, since), None, since, phase)
                if all(r is not None for r in reports):
                    return [r.get("value") for r in reports if r is not None]
                if time.monotonic() > deadline:
                    self._fail_timeout(limit, reports, since, phase)
                time.sleep(pause)
                pause = min(pause * 1.5, 0.05)
        except BaseException:
            workers.kill()  # failures, timeouts and KeyboardInterrupt alike leave nothing behind
            raise

    def _first_to_die(self, rank: int, since: Sequence[tuple[int, int]]) -> int:
        """The rank whose death ended the run, given that ``rank`` was the first seen exited.

        JAX's distributed service ends every other task the moment one is gone, and a rank that
        is tearing down (rank 0 hosts the coordinator) can take the others with it before its own
        exit is visible. So wait a moment for the others, then blame the lowest rank that did not
        die of another's death.
        """
        workers = self._workers
        assert workers is not None
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline and any(p.poll() is None for p in workers.procs):
            time.sleep(0.02)
        _, stderr = workers.read(since)
        dead = [r for r, proc in enumerate(workers.procs) if proc.poll() is not None]
        causes = [r for r in dead if not any(m in stderr[r] for m in _DIED_OF_ANOTHER)]
        return min(causes) if causes else rank

    def _stop_and_read(
        self, since: Sequence[tuple[int, int]]
    ) -> tuple[_Workers, list[str], list[str]]:
        """Stop every worker, then read what each printed since ``since``: (workers, out, err)."""
        workers = self._workers
        assert workers is not None
        workers.stop()
        stdout, stderr = workers.read(since)
        return workers, stdout, stderr

    def _fail_rank(
        self,
        rank: int,
        report: dict[str, Any] | None,
        since: Sequence[tuple[int, int]],
        phase: str,
    ) -> None:
        """Stop every process, then raise the error of ``rank`` with its traceback and output."""
        workers, stdout, stderr = self._stop_and_read(since)
        raise rank_failure(
            rank,
            self.processes,
            report,
            workers.procs[rank].returncode,
            stdout,
            stderr,
            starting=phase == "start",
            port_busy=_PORT_BUSY,
        )

    def _fail_timeout(
        self,
        limit: float,
        reports: Sequence[dict[str, Any] | None],
        since: Sequence[tuple[int, int]],
        phase: str,
    ) -> None:
        """Stop every process, then say which ranks were still busy and what they printed."""
        _, stdout, stderr = self._stop_and_read(since)
        finished = [r for r, rep in enumerate(reports) if rep is not None]
        waiting = [r for r, rep in enumerate(reports) if rep is None]
        raise timeout_failure(
            limit, self.processes, finished, waiting, stdout, stderr, starting=phase == "start"
        )


def _pickled(value: Any) -> bytes:
    try:
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as err:
        raise TypeError(
            f"the arguments cannot be sent to the workers ({type(err).__name__}: {err}); "
            "pass NumPy arrays, numbers, strings or containers of them"
        ) from None


def run_cluster(
    program: Callable[..., Any] | str | os.PathLike[str],
    args: Sequence[Any] = (),
    kwargs: Mapping[str, Any] | None = None,
    *,
    processes: int = 2,
    devices_per_process: int = 2,
    timeout: float = DEFAULT_TIMEOUT,
    imitate: str | None = None,
    env: Mapping[str, str] | None = None,
    rank_args: Sequence[Sequence[Any]] | None = None,
    recoverable: bool = False,
    heartbeat_timeout: int | None = None,
) -> ClusterRun:
    """Start a :class:`LocalCluster`, run ``program`` once on every process, shut it down.

    The one-shot form of :meth:`LocalCluster.run` (same program forms, results and errors). After
    it returns or raises, none of its processes is left.
    """
    cluster = LocalCluster(
        processes,
        devices_per_process,
        timeout=timeout,
        imitate=imitate,
        env=env,
        recoverable=recoverable,
        heartbeat_timeout=heartbeat_timeout,
    )
    with cluster:
        return cluster.run(program, args, kwargs, rank_args=rank_args)
