"""What a throughput suite offers the driver: :class:`Op`, the :class:`ThroughputSuite` protocol, and
the checks of an operation's output that every suite shares."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np


class ComparisonUnavailable(RuntimeError):
    """The other library is installed but cannot measure the same device (e.g. no CUDA build)."""


@dataclass(frozen=True)
class Op:
    """One way to run a metric's operation once, as a suite offers it to the driver."""

    method: str
    run: Callable[..., Any]
    work: float
    sync: Callable[[Any], Any]
    check: Callable[[Any], str | None]
    """Given one output, the reason it is wrong (bad values, or memory shared with the source)."""
    setup: Callable[[], Sequence[Any]] | None = None
    batchable: bool = True


class ThroughputSuite(Protocol):
    """What a library offers the driver. :class:`~.jax_suite.JaxSuite` and
    ``aurora_course.torch_suite.TorchSuite`` implement it."""

    library: str
    platform: str
    device_kind: str
    batched: bool
    """True on accelerators: time several back-to-back calls per sync to hide launch latency."""
    notes: tuple[str, ...]
    """Remarks the results should carry (for example how many threads the library uses)."""

    def transfer_ops(self, direction: str, nbytes: int) -> list[Op]: ...

    def copy_op(self, nbytes: int) -> Op: ...

    def matmul_op(self, n: int, dtype: str) -> Op | None: ...


def pointer_of(x: Any) -> int | None:
    if isinstance(x, np.ndarray):
        return int(x.__array_interface__["data"][0])
    try:
        return int(x.unsafe_buffer_pointer())
    except Exception:  # sharded or deleted arrays have no single pointer
        return None


def same_values(got: Any, expected: np.ndarray) -> str | None:
    got = np.asarray(got)
    if got.shape != expected.shape or not np.array_equal(got, expected):
        return "wrong values"
    return None


def matmul_error(got: np.ndarray, a: np.ndarray, b: np.ndarray, dtype: str) -> str | None:
    """Compare the first rows of a product with a float64 reference."""
    rows = min(8, a.shape[0])
    reference = a[:rows].astype(np.float64) @ b.astype(np.float64)
    scale = float(np.max(np.abs(reference))) or 1.0
    error = float(np.max(np.abs(got[:rows].astype(np.float64) - reference))) / scale
    tolerance = 3e-2 if dtype == "bfloat16" else 1e-3
    return None if error <= tolerance else f"relative error {error:.2g} > {tolerance:g}"


def host_data(nbytes: int) -> np.ndarray:
    return np.arange(nbytes // 4, dtype=np.float32)
