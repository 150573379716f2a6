"""The driver: checks and times the operations a :class:`~.ops.ThroughputSuite` offers, sweeps them
over sizes, and collects a :class:`~.results.MachineThroughput`.

For the transfers several methods are tried (for example from a NumPy array and from a JAX array
in ``pinned_host`` memory) and the fastest *correct* one is used: the result must hold the right
values and must not share memory with the source (on a CPU, ``np.asarray`` of a JAX array is a
zero-copy view, which is no transfer at all). Another library's suite (PyTorch's, in the course's
tools: ``aurora bench --compare torch``) runs through :func:`measure_with` the same way.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import jax

from ..._display import format_bytes
from ..peaks import peak_for
from ..timing import benchmark
from .caches import CacheLevel, level_of, memory_size, read_caches
from .jax_suite import JaxSuite
from .ops import Op, ThroughputSuite
from .results import (
    _LABELS,
    MATMUL_DTYPES,
    METRICS,
    MachineThroughput,
    Measurement,
    _check_metric,
    _metric_label,
)


def _time_op(op: Op, budget_s: float, batched: bool) -> float:
    """Best seconds per run of ``op`` (as STREAM reports its best run: other programs on the
    machine can only slow a run down). On accelerators, several runs share one sync."""
    if op.setup is not None:
        result = benchmark(op.run, setup=op.setup, sync=op.sync, budget_s=budget_s, min_repeats=3)
        return result.min
    if not batched or not op.batchable:
        return benchmark(op.run, sync=op.sync, budget_s=budget_s, min_repeats=3).min
    single = benchmark(op.run, sync=op.sync, budget_s=budget_s / 4, min_repeats=3)
    if single.min >= 1e-3:  # long enough that one sync per run costs little
        more = benchmark(op.run, sync=op.sync, budget_s=3 * budget_s / 4, min_repeats=3)
        return min(single.min, more.min)
    batch = max(1, min(64, math.ceil(1e-3 / max(single.min, 1e-7))))

    def run_batch() -> list[Any]:
        return [op.run() for _ in range(batch)]

    result = benchmark(run_batch, sync=op.sync, budget_s=3 * budget_s / 4, min_repeats=3)
    return min(single.min, result.min / batch)


def _validate(op: Op) -> str | None:
    """Run ``op`` once and say what is wrong with it (None when it is right).

    A method the runtime does not support here (it raises) is reported, not fatal: the metrics
    then use the other methods.
    """
    try:
        args = tuple(op.setup()) if op.setup is not None else ()
        out = op.run(*args)
        op.sync(out)
        return op.check(out)
    except Exception as err:  # e.g. a memory kind this backend cannot copy into
        return f"failed: {type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"


def run_suite(
    suite: ThroughputSuite,
    *,
    sizes: Sequence[int],
    matmul_sizes: Sequence[int],
    dtypes: Sequence[str] = MATMUL_DTYPES,
    metrics: Iterable[str] = METRICS,
    budget_s: float = 0.1,
    timer: Callable[[Op, float, bool], float] | None = None,
    caches: tuple[CacheLevel, ...] | None = None,
) -> MachineThroughput:
    """Run the metrics of ``suite`` and collect a :class:`MachineThroughput`.

    For each transfer direction the suite's candidate methods are checked and timed at the largest
    size; the fastest correct one is swept over all sizes. A method whose output is wrong or shares
    memory with its source is left out, with a note saying why. ``timer(op, budget_s, batched)``
    returns seconds per run; the default times with :func:`~aurora_helpers.benchmark` (tests
    inject a fake one). ``caches`` (default: this machine's, on a CPU) label each bandwidth
    measurement with the memory level its bytes fit in.
    """
    time_op = _time_op if timer is None else timer
    if caches is None:
        caches = read_caches() if suite.platform == "cpu" else ()
    metrics = tuple(metrics)
    for p in metrics:
        _check_metric(p)
    for d in dtypes:
        if d not in MATMUL_DTYPES:
            raise ValueError(f"unknown matmul dtype {d!r}; use {', '.join(MATMUL_DTYPES)}")
    sizes = sorted({int(s) for s in sizes})
    if any(s < 1024 for s in sizes) or (not sizes and set(metrics) - {"matmul"}):
        raise ValueError(f"transfer sizes must be at least 1024 bytes, got {sizes}")
    measurements: list[Measurement] = []
    notes: list[str] = []

    def measure(metric: str, size: int, dtype: str, op: Op) -> Measurement | None:
        problem = _validate(op)
        if problem:
            notes.append(
                f"{_metric_label(metric, dtype)} by {op.method} at {format_bytes(size) if metric != 'matmul' else f'n={size}'}: {problem}"
            )
            return None
        seconds = time_op(op, budget_s, suite.batched)
        level = _level(metric, size, suite.platform, caches)
        return Measurement(metric, size, dtype, seconds, op.work, op.method, level)

    for direction in ("h2d", "d2h"):
        if direction not in metrics:
            continue
        largest = sizes[-1]
        timed: list[tuple[Measurement, int]] = []
        for index, op in enumerate(suite.transfer_ops(direction, largest)):
            m = measure(direction, largest, "bytes", op)
            if m is not None:
                timed.append((m, index))
        if not timed:
            notes.append(f"{_LABELS[direction]}: no method gave a correct transfer")
            continue
        chosen, index = max(timed, key=lambda t: t[0].value)
        others = [f"{m.method}: {m.value:.3g} GB/s" for m, _ in timed if m is not chosen]
        if others:
            notes.append(
                f"{_LABELS[direction]}: chose {chosen.method} ({chosen.value:.3g} GB/s at "
                f"{format_bytes(largest)}) over {'; '.join(others)}"
            )
        measurements.append(chosen)
        # The other sizes use the chosen method; where it is not correct at some size (a CPU may
        # alias aligned buffers instead of copying), the next correct method stands in.
        order = [index] + [i for _, i in sorted(timed, key=lambda t: -t[0].value) if i != index]
        for size in sizes[:-1]:
            ops = suite.transfer_ops(direction, size)
            for i in order:
                m = measure(direction, size, "bytes", ops[i])
                if m is not None:
                    measurements.append(m)
                    break

    if "copy" in metrics:
        for size in sizes:
            m = measure("copy", size, "float32", suite.copy_op(size))
            if m is not None:
                measurements.append(m)

    if "matmul" in metrics:
        for dtype in dtypes:
            for n in sorted(set(matmul_sizes)):
                matmul = suite.matmul_op(int(n), dtype)
                if matmul is None:
                    notes.append(f"matmul {dtype}: not supported by {suite.library} here")
                    break
                m = measure("matmul", int(n), dtype, matmul)
                if m is not None:
                    measurements.append(m)

    return MachineThroughput(
        library=suite.library,
        platform=suite.platform,
        device_kind=suite.device_kind,
        measurements=tuple(measurements),
        peak=peak_for(suite.device_kind) if suite.platform != "cpu" else None,
        notes=tuple(dict.fromkeys([*suite.notes, *notes])),
    )


def _level(metric: str, size: int, platform: str, caches: tuple[CacheLevel, ...]) -> str:
    """Where the bytes of one measurement live: a transfer or a copy touches a source and a
    destination of ``size`` bytes each."""
    if metric == "matmul":
        return ""
    if platform != "cpu":
        return "device memory" if metric == "copy" else "host link"
    return level_of(2 * size, caches)


def default_sizes(
    platform: str, quick: bool = False, caches: tuple[CacheLevel, ...] | None = None
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(transfer sizes in bytes, matmul sizes) suited to a platform; ``quick`` for notebooks.

    On a CPU the largest transfer size is several times the last cache level (read from the
    operating system unless ``caches`` is given), so that the quoted bandwidth is memory's.
    """
    if platform == "cpu":
        past = memory_size(read_caches() if caches is None else caches)
        if quick:
            # One size per level (L2, L3, memory). A transfer or copy touches twice its size, so
            # half the full sweep's largest size still spans several times the last level.
            return tuple(sorted({2**16, 2**22, past // 2})), (128, 512)
        return tuple(sorted({2**18, 2**20, 2**22, 2**24, past // 2, past})), (256, 512, 1024)
    if quick:
        return (2**20, 2**22, 2**24, 2**26), (1024, 2048, 4096)
    return (2**20, 2**22, 2**24, 2**26, 2**28, 2**30), (1024, 2048, 4096, 8192)


def default_budget(quick: bool = False) -> float:
    """Seconds spent timing each point: short for ``quick``."""
    return 0.02 if quick else 0.15


def measure_with(
    suite: ThroughputSuite,
    *,
    quick: bool = False,
    sizes: Sequence[int] | None = None,
    matmul_sizes: Sequence[int] | None = None,
    dtypes: Sequence[str] = MATMUL_DTYPES,
    metrics: Iterable[str] = METRICS,
    budget_s: float | None = None,
) -> MachineThroughput:
    """Run ``suite`` with the default sizes and budget of its platform (unless given)."""
    default_transfer, default_matmul = default_sizes(suite.platform, quick)
    return run_suite(
        suite,
        sizes=default_transfer if sizes is None else sizes,
        matmul_sizes=default_matmul if matmul_sizes is None else matmul_sizes,
        dtypes=dtypes,
        metrics=metrics,
        budget_s=budget_s if budget_s is not None else default_budget(quick),
    )


def measure_machine(
    *,
    quick: bool = False,
    sizes: Sequence[int] | None = None,
    matmul_sizes: Sequence[int] | None = None,
    dtypes: Sequence[str] = MATMUL_DTYPES,
    metrics: Iterable[str] = METRICS,
    budget_s: float | None = None,
    device: jax.Device | None = None,
) -> MachineThroughput:
    """Measure this machine with JAX: transfers, on-device bandwidth and matmul throughput.

    Runs on ``device`` (default: the first device of the default backend). Sizes default to
    :func:`default_sizes` for the platform (on a CPU, up to well past the last cache level);
    ``quick`` picks fewer sizes and a short budget (a few seconds on a laptop CPU). ``budget_s`` is the time spent timing each point.
    """
    return measure_with(
        JaxSuite(device),
        quick=quick,
        sizes=sizes,
        matmul_sizes=matmul_sizes,
        dtypes=dtypes,
        metrics=metrics,
        budget_s=budget_s,
    )
