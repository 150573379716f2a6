"""What a run on a local cluster gives back: each rank's results and output (:class:`ClusterRun`),
or an error that says which rank failed and how (:class:`ClusterError` and its kinds)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
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
    process died without one), ``remote_traceback`` (the rank's traceback as text), ``exit_code``.
    """

    def __init__(
        self,
        message: str,
        *,
        rank: int,
        exception_type: str | None,
        remote_traceback: str,
        exit_code: int | None,
        stdout: Sequence[str] = (),
        stderr: Sequence[str] = (),
    ) -> None:
        super().__init__(message, stdout, stderr)
        self.rank = rank
        self.exception_type = exception_type
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
        for rank, value in enumerate(self.results):
            if value is not None:
                text = repr(value)
                lines.append(f"[rank {rank} result] {text[:300]}{'...' if len(text) > 300 else ''}")
        return "\n".join(lines)

    __repr__ = __str__
