"""What a run on a local cluster gives back: each rank's results and output (:class:`ClusterRun`),
or an error that says which rank failed and how (:class:`ClusterError` and its kinds)."""

from __future__ import annotations

import re
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: The line Gloo prints whenever its ranks connect: runtime chatter, kept out of the program's output.
GLOO_CHATTER = re.compile(r"\[Gloo\] Rank \d+ is connected to \d+ peer ranks")


class ClusterError(RuntimeError):
    """A cluster run failed. ``stdout``/``stderr`` hold what each rank printed before it did."""

    #: True when rank 0 could not bind the coordinator's port (someone else took it).
    port_taken: bool = False

    def __init__(
        self, message: str, stdout: Sequence[str] = (), stderr: Sequence[str] = ()
    ) -> None:
        super().__init__(message)
        self.stdout = tuple(stdout)
        self.stderr = tuple(stderr)


class ClusterStartError(ClusterError):
    """The processes could not start or join the cluster."""


class ClusterProcessError(ClusterError):
    """One rank raised an exception or died; the other ranks were stopped.

    Attributes: ``rank``, ``exception_type`` (its name, e.g. ``"ValueError"``, or None when the
    process died without one), ``exception_message`` (the remote ``str(err)``, whole; None when
    the process died without an exception), ``remote_traceback`` (the rank's traceback as text),
    ``exit_code``.
    """

    def __init__(
        self,
        message: str,
        *,
        rank: int,
        exception_type: str | None,
        remote_traceback: str,
        exit_code: int | None,
        exception_message: str | None = None,
        stdout: Sequence[str] = (),
        stderr: Sequence[str] = (),
    ) -> None:
        super().__init__(message, stdout, stderr)
        self.rank = rank
        self.exception_type = exception_type
        self.exception_message = exception_message
        self.remote_traceback = remote_traceback
        self.exit_code = exit_code


class _RemoteNotImplemented(ClusterProcessError, NotImplementedError):
    """A rank raised NotImplementedError: a stubbed exercise, so ``ah.check`` says "not solved"."""


class ClusterTimeout(ClusterError, TimeoutError):
    """A run took longer than its timeout; every process was stopped.

    Attributes: ``timeout`` (seconds), ``finished`` and ``waiting`` (the ranks that had and had
    not finished).
    """

    def __init__(
        self,
        message: str,
        *,
        timeout: float,
        finished: Sequence[int],
        waiting: Sequence[int],
        stdout: Sequence[str] = (),
        stderr: Sequence[str] = (),
    ) -> None:
        super().__init__(message, stdout, stderr)
        self.timeout = timeout
        self.finished = tuple(finished)
        self.waiting = tuple(waiting)


def labelled(stream: Sequence[str], tag: str = "") -> list[str]:
    lines = []
    for rank, text in enumerate(stream):
        lines += [f"[rank {rank}{tag}] {line}" for line in text.splitlines()]
    return lines


@dataclass(frozen=True)
class ClusterRun:
    """What one program run on a :class:`LocalCluster` returned, per rank (index = rank)."""

    results: tuple[Any, ...]
    stdout: tuple[str, ...]
    stderr: tuple[str, ...]
    processes: int
    devices_per_process: int
    seconds: float
    died: Mapping[int, int | None] = field(default_factory=dict)
    """Ranks that died during this run (only on a ``recoverable`` cluster), with their exit
    codes (``-9``: SIGKILL); their ``results`` entry is None. Empty in every other run."""

    def output(self, rank: int) -> str:
        """What ``rank`` printed to stdout."""
        return self.stdout[rank]

    def __str__(self) -> str:
        head = (
            f"{self.processes} process(es) x {self.devices_per_process} CPU device(s), "
            f"ran in {self.seconds:.2f} s"
        )
        # Gloo's connection lines would drown the program's own output; they stay in .stderr.
        stderr = [
            "".join(x for x in e.splitlines(keepends=True) if not GLOO_CHATTER.match(x))
            for e in self.stderr
        ]
        lines = [head, *labelled(self.stdout), *labelled(stderr, " stderr")]
        lines += [
            f"[rank {rank}] died (exit {exit_text(code)})"
            for rank, code in sorted(self.died.items())
        ]
        for rank, value in enumerate(self.results):
            if value is not None:
                text = repr(value)
                lines.append(f"[rank {rank} result] {text[:300]}{'...' if len(text) > 300 else ''}")
        return "\n".join(lines)

    __repr__ = __str__


def exit_text(code: int | None) -> str:
    """``code -9 (SIGKILL)``: an exit code in words."""
    if code is None:
        return "code unknown"
    if code < 0:
        try:
            return f"code {code} ({signal.Signals(-code).name})"
        except ValueError:
            pass
    return f"code {code}"


def rank_failure(
    rank: int,
    processes: int,
    report: Mapping[str, Any] | None,
    code: int | None,
    stdout: Sequence[str],
    stderr: Sequence[str],
    *,
    starting: bool,
    port_busy: Sequence[str],
) -> ClusterError:
    """The error for a run that ``rank`` ended: it raised (``report`` holds the exception) or
    exited without a report (``code``). While ``starting``, a :class:`ClusterStartError`."""
    who = f"rank {rank} of {processes}"
    exception_message: str | None = None
    if report is None:
        tail = "\n".join(stderr[rank].strip().splitlines()[-15:])
        message = f"{who} exited with {exit_text(code)} without finishing."
        if tail:
            message += f" The end of its stderr:\n{tail}"
        exception_type, remote_tb = None, tail
    else:
        exception_type, remote_tb = report["type"], report["traceback"]
        exception_message = report["message"]
        message = f"{who} raised {exception_type}: {exception_message}"
        if remote_tb:
            message += f"\n\nTraceback from rank {rank}:\n{remote_tb.rstrip()}"
        if exception_type == "NameError":
            message += (
                "\n\nHint: a program runs in fresh processes; import what it uses inside "
                "it and pass data through args."
            )
    port_taken = rank == 0 and any(m in message or m in stderr[0] for m in port_busy)
    if starting:
        error = ClusterStartError(f"the cluster could not start: {message}", stdout, stderr)
        error.port_taken = port_taken
        return error
    message += f"\n\nThe other {processes - 1} rank(s) were stopped."
    kind = (
        _RemoteNotImplemented
        if report is not None and report.get("is_not_implemented")
        else ClusterProcessError
    )
    failure: ClusterProcessError = kind(
        message,
        rank=rank,
        exception_type=exception_type,
        exception_message=exception_message,
        remote_traceback=remote_tb,
        exit_code=code,
        stdout=stdout,
        stderr=stderr,
    )
    failure.port_taken = port_taken
    return failure


def timeout_failure(
    limit: float,
    processes: int,
    finished: Sequence[int],
    waiting: Sequence[int],
    stdout: Sequence[str],
    stderr: Sequence[str],
    *,
    starting: bool,
) -> ClusterError:
    """The error for a run (or a start) that took longer than ``limit`` seconds."""
    what = "start and join the cluster" if starting else "finish"
    done = ", ".join(map(str, finished)) or "none"
    message = (
        f"the processes did not {what} within {limit:g} s. Still busy: rank(s) "
        f"{', '.join(map(str, waiting))}; finished: {done}. All {processes} "
        "processes were stopped."
    )
    printed = labelled(stdout)
    if printed:
        message += "\nWhat they printed:\n" + "\n".join(printed[-20:])
    if starting:
        return ClusterStartError(message, stdout, stderr)
    return ClusterTimeout(
        message, timeout=limit, finished=finished, waiting=waiting, stdout=stdout, stderr=stderr
    )
