"""The worker processes of a local cluster: their environment, how a program travels to them, and
how they are stopped for sure (each in its own process group, killed and reaped)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from .outcomes import GLOO_CHATTER


def _free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing was listening on a moment ago."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _worker_env(
    rank: int, processes: int, port: int, imitate: str | None, extra: Mapping[str, str]
) -> dict[str, str]:
    """The parent's environment, made safe for a loopback cluster of CPU processes."""
    # gRPC would send 127.0.0.1 through an HTTP proxy; the cluster never leaves this machine.
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    # The device count comes from the launcher, not from a flag meant for the parent.
    flags = [
        f
        for f in env.get("XLA_FLAGS", "").split()
        if not f.startswith("--xla_force_host_platform_device_count")
    ]
    env["XLA_FLAGS"] = " ".join(flags)
    env["JAX_PLATFORMS"] = "cpu"
    env["PYTHONUNBUFFERED"] = "1"
    # An enclosing real job (or a JAX_COORDINATOR_* setting) must not leak into the local one.
    leaks = ("SLURM_", "OMPI_", "PMI_", "JAX_COORDINATOR_", "JAX_LOCAL_DEVICE_IDS")
    for key in [k for k in env if k.startswith(leaks)]:
        del env[key]
    if imitate == "slurm":
        # What `srun --ntasks=N` gives each task on one node; JAX's SLURM detection reads these.
        env.update(
            SLURM_JOB_ID="1",
            SLURM_STEP_NODELIST="127.0.0.1",
            SLURM_STEP_NUM_NODES="1",
            SLURM_NTASKS=str(processes),
            SLURM_PROCID=str(rank),
            SLURM_LOCALID=str(rank),
            JAX_COORDINATOR_PORT=str(port),
            JAX_COORDINATOR_BIND_ADDRESS=f"127.0.0.1:{port}",
        )
    env.update(extra)
    return env


class _Workers:
    """The processes of one start of a cluster, and how to get rid of them for sure."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.procs: list[subprocess.Popen[bytes]] = []
        self.files: list[tuple[BinaryIO, BinaryIO]] = []
        self.alive = True

    def log(self, rank: int, stream: str) -> Path:
        return self.run_dir / f"rank{rank}.{stream}"

    def sizes(self) -> list[tuple[int, int]]:
        return [
            (self.log(r, "out").stat().st_size, self.log(r, "err").stat().st_size)
            for r in range(len(self.procs))
        ]

    def read(self, since: Sequence[tuple[int, int]]) -> tuple[list[str], list[str]]:
        outs: list[str] = []
        errs: list[str] = []
        for rank, (out_at, err_at) in enumerate(since):
            for path, at, into in (
                (self.log(rank, "out"), out_at, outs),
                (self.log(rank, "err"), err_at, errs),
            ):
                try:
                    with path.open("rb") as f:
                        f.seek(at)
                        into.append(f.read().decode("utf-8", "replace"))
                except OSError:
                    into.append("")
        # Gloo prints a line to stdout whenever its ranks connect; that is runtime chatter, not
        # the program's output, so it is moved to stderr, where it stays visible.
        for rank, text in enumerate(outs):
            lines = text.splitlines(keepends=True)
            chatter = [line for line in lines if GLOO_CHATTER.match(line)]
            if chatter:
                outs[rank] = "".join(line for line in lines if not GLOO_CHATTER.match(line))
                errs[rank] = "".join(chatter) + errs[rank]
        return outs, errs

    def stop(self) -> None:
        """Kill every worker's process group and reap the workers; keep their logs."""
        if not self.alive:
            return
        self.alive = False
        # Rank 0 last: it hosts the coordinator, and a rank that sees the coordinator vanish
        # ends itself (exit code 1), which would blur the exit codes of a stopped cluster.
        for proc in reversed(self.procs):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)  # the worker and anything it started
        for proc in self.procs:
            proc.wait()
            if proc.stdin is not None:
                with contextlib.suppress(OSError):
                    proc.stdin.close()
        for out, err in self.files:
            out.close()
            err.close()

    def kill(self) -> None:
        """Stop the workers and remove the run directory (idempotent; also the finalizer)."""
        self.stop()
        import shutil

        shutil.rmtree(self.run_dir, ignore_errors=True)


def _program_task(program: Any, args: Sequence[Any], kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Describe ``program`` so a fresh process can run it."""
    if isinstance(program, str):
        if args or kwargs:
            raise TypeError("args and kwargs are for function programs; source text takes none")
        return {"kind": "source", "source": program, "filename": "<cluster program>"}
    if isinstance(program, os.PathLike):
        path = Path(program).resolve()
        if not path.is_file():
            raise FileNotFoundError(f"no program file at {path}")
        if args or kwargs:
            raise TypeError("args and kwargs are for function programs; a script takes none")
        return {"kind": "path", "path": str(path)}
    import inspect

    if not inspect.isfunction(program):
        raise TypeError(
            f"a cluster program is a function, source text (str) or a script path, got "
            f"{type(program).__name__}"
        )
    base = {"args": tuple(args), "kwargs": dict(kwargs)}
    if program.__name__ == "<lambda>" or program.__code__.co_freevars:
        raise TypeError(
            f"{program.__qualname__} cannot be sent to other processes: lambdas and closures "
            "need the state of this one. Define it with `def` at the top level and pass the "
            "values it needs as args."
        )
    module = program.__module__
    if module not in (None, "__main__") and "<locals>" not in program.__qualname__:
        import importlib.util

        if importlib.util.find_spec(module) is not None:
            return {
                "kind": "function-ref",
                "module": module,
                "qualname": program.__qualname__,
                **base,
            }
    try:
        source = inspect.getsource(program)
    except (OSError, TypeError) as err:
        raise TypeError(
            f"the source of {program.__name__} is not available to send to the workers ({err})"
        ) from None
    import textwrap

    return {
        "kind": "function-source",
        "source": textwrap.dedent(source),
        "name": program.__name__,
        "filename": f"<cluster program {program.__name__}>",
        **base,
    }
