"""Peak memory of a process tree, sampled from ``/proc``: what ``aurora run`` reports per notebook.

A notebook's memory is that of its kernel and of everything the kernel starts (notebook 08's
cluster workers, a compiler in A1): the sum of their resident set sizes (RSS), sampled every
``interval_s`` by a background thread, and the largest sum seen is the peak. Shared pages (the
JAX library mapped by several processes) count once per process, as a machine's memory limit
per user (a cgroup) charges them at least once: the figure is an upper bound of what one user
needs. Spikes shorter than the interval can be missed. Linux only: elsewhere the peak is ``None``.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from types import TracebackType

_PROC = Path("/proc")
_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _children(pid: int) -> list[int]:
    """Direct children of ``pid``, from ``/proc/PID/task/*/children`` (empty when it is gone)."""
    found: list[int] = []
    try:
        tasks = list((_PROC / str(pid) / "task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            found.extend(int(c) for c in (task / "children").read_text().split())
        except (OSError, ValueError):
            continue
    return found


def _rss_bytes(pid: int) -> int:
    """Resident memory of one process in bytes (0 when it has ended)."""
    try:
        return int((_PROC / str(pid) / "statm").read_text().split()[1]) * _PAGE_BYTES
    except (OSError, IndexError, ValueError):
        return 0


def tree_rss(root: int, *, include_root: bool = True) -> tuple[int, int]:
    """``(bytes, processes)``: the summed RSS of ``root``'s descendants (and ``root``), now."""
    total, count, seen = 0, 0, set()
    stack = [root] if include_root else _children(root)
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        rss = _rss_bytes(pid)
        if rss:
            total += rss
            count += 1
        stack.extend(_children(pid))
    return total, count


def supported() -> bool:
    """Whether this machine exposes what the sampler reads (Linux ``/proc`` with children lists)."""
    me = _PROC / str(os.getpid())
    return (me / "statm").exists() and (me / "task" / str(os.getpid()) / "children").exists()


class PeakMemory:
    """Context manager: the peak summed RSS of a process tree while the block runs.

    >>> with PeakMemory(os.getpid(), include_root=False) as peak:  # doctest: +SKIP
    ...     subprocess.run([...])
    >>> peak.peak_bytes, peak.peak_processes

    Args:
        root: the process whose tree is measured (default: this process).
        include_root: count ``root`` itself; ``aurora run`` leaves itself out and measures only
            the kernels it starts.
        interval_s: seconds between samples.
    """

    def __init__(
        self, root: int | None = None, *, include_root: bool = True, interval_s: float = 0.1
    ) -> None:
        if interval_s <= 0:
            raise ValueError(f"interval_s must be positive, got {interval_s}")
        self.root = os.getpid() if root is None else root
        self.include_root = include_root
        self.interval_s = interval_s
        self.peak_bytes: int | None = None
        self.peak_processes = 0
        self.samples = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def sample(self) -> None:
        """Take one sample now and keep it if it is the largest so far."""
        total, count = tree_rss(self.root, include_root=self.include_root)
        self.samples += 1
        if self.peak_bytes is None or total > self.peak_bytes:
            self.peak_bytes = total
        self.peak_processes = max(self.peak_processes, count)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.sample()

    def __enter__(self) -> PeakMemory:
        if supported():
            self.sample()
            self._thread = threading.Thread(
                target=self._loop, name="aurora-peak-memory", daemon=True
            )
            self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None

    @property
    def peak_mib(self) -> float | None:
        """The peak in MiB, or ``None`` where it could not be measured."""
        return None if self.peak_bytes is None else self.peak_bytes / 2**20
