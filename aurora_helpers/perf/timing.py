"""Honest timing of JAX code: compile time apart, every output waited for, repeats and spread.

JAX dispatches work asynchronously: a jitted call returns as soon as the work is queued, long
before the device has finished. A timer that does not wait measures the queueing, not the work.
:func:`benchmark` waits on every output leaf, keeps the first call (trace + compile + run) apart
from the steady state, repeats until a time budget is spent, and reports median, minimum and
spread. :func:`timing_mistakes` measures the usual wrong ways next to the right one.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import jax
import numpy as np

from .._checks import positive_float, positive_int
from .._display import html_table, text_table
from .._figures import new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

Sync = Callable[[Any], Any]


def format_seconds(seconds: float | None) -> str:
    """``0.00123`` -> ``'1.23 ms'``; picks s, ms, µs or ns so that three digits show."""
    if seconds is None:
        return "-"
    if seconds != seconds:  # NaN
        return "nan"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if abs(seconds) >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


@dataclass(frozen=True)
class BenchResult:
    """Steady-state times of one function, plus its first call. Shows as a table in notebooks."""

    name: str
    times: tuple[float, ...]
    """Seconds per call, each measured from the call to the moment every output was ready."""
    first_call: float | None = None
    """Seconds of the first call: tracing + compiling + running (None when not measured)."""
    budget_s: float = 0.0

    @property
    def count(self) -> int:
        return len(self.times)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def min(self) -> float:
        return min(self.times)

    @property
    def max(self) -> float:
        return max(self.times)

    @property
    def mean(self) -> float:
        return statistics.fmean(self.times)

    @property
    def spread(self) -> float:
        """Interquartile range (75th minus 25th percentile) in seconds: robust to outliers."""
        if self.count < 2:
            return 0.0
        q1, _, q3 = statistics.quantiles(self.times, n=4, method="inclusive")
        return q3 - q1

    @property
    def relative_spread(self) -> float:
        """:attr:`spread` divided by :attr:`median`: 0.05 means the middle half is within 5%."""
        return self.spread / self.median if self.median > 0 else 0.0

    @property
    def compile_estimate(self) -> float | None:
        """First call minus a steady-state call: roughly what tracing and compiling cost."""
        if self.first_call is None:
            return None
        return max(self.first_call - self.median, 0.0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "count": self.count,
            "median_s": self.median,
            "min_s": self.min,
            "spread_s": self.spread,
            "first_call_s": self.first_call,
        }

    def _rows(self) -> list[tuple[str, str]]:
        rows = [
            ("median", format_seconds(self.median)),
            ("min", format_seconds(self.min)),
            ("spread (IQR)", f"{format_seconds(self.spread)} ({self.relative_spread:.0%})"),
            ("calls timed", str(self.count)),
        ]
        if self.first_call is not None:
            rows.append(("first call (trace+compile+run)", format_seconds(self.first_call)))
        return rows

    def __str__(self) -> str:
        first = (
            f"; first call {format_seconds(self.first_call)}" if self.first_call is not None else ""
        )
        return (
            f"{self.name}: median {format_seconds(self.median)} (min {format_seconds(self.min)}, "
            f"IQR {format_seconds(self.spread)}, n={self.count}){first}"
        )

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return html_table(("", ""), self._rows(), caption=f"benchmark: {self.name}")


def _block(out: Any) -> Any:
    return jax.block_until_ready(out)


def _name_of(fn: Callable[..., Any]) -> str:
    return getattr(fn, "__name__", None) or type(fn).__name__


def _check_not_deleted(args: Sequence[Any]) -> None:
    for leaf in jax.tree_util.tree_leaves(args):
        if isinstance(leaf, jax.Array) and leaf.is_deleted():
            raise ValueError(
                "an input was deleted by the first call (it was donated, e.g. with donate_argnums), "
                "so it cannot be passed again. Give benchmark a `setup` function that makes fresh "
                "inputs for every call, or time a version without donation."
            )


def benchmark(
    fn: Callable[..., Any],
    *args: Any,
    name: str | None = None,
    budget_s: float = 0.2,
    min_repeats: int = 5,
    max_repeats: int = 100_000,
    warmup: int = 1,
    setup: Callable[[], Sequence[Any]] | None = None,
    sync: Sync = _block,
) -> BenchResult:
    """Time ``fn(*args)`` honestly and return a :class:`BenchResult`.

    The first call is timed on its own (it traces and compiles a jitted function), then ``warmup``
    untimed calls run, then calls are timed one by one until ``budget_s`` seconds have passed and at
    least ``min_repeats`` calls were made (at most ``max_repeats``). Each timed call ends when
    ``sync(output)`` returns; the default waits for every array leaf of the output pytree
    (``jax.block_until_ready``). The garbage collector is paused while timing.

    Args:
        fn: the function to time; pass keyword arguments with ``functools.partial``.
        setup: optional; called before every call, outside the timed region, returning the
            arguments (use it when ``fn`` donates or consumes its inputs).
        sync: what "finished" means; replace it only to time another library (e.g. PyTorch).

    Raises:
        ValueError: bad budget or repeat counts, or inputs deleted by donation.
    """
    if not callable(fn):
        raise TypeError(f"benchmark needs a function to call, got {type(fn).__name__}")
    positive_float("budget_s", budget_s)
    if min_repeats < 1 or max_repeats < min_repeats:
        raise ValueError(
            f"need 1 <= min_repeats <= max_repeats, got min_repeats={min_repeats}, "
            f"max_repeats={max_repeats}"
        )
    if warmup < 0:
        raise ValueError(f"warmup must be >= 0, got {warmup}")
    if setup is not None and args:
        raise ValueError("give either positional arguments or a setup function, not both")

    perf = time.perf_counter

    def next_args() -> Sequence[Any]:
        return tuple(setup()) if setup is not None else args

    call_args = next_args()
    t0 = perf()
    sync(fn(*call_args))
    first = perf() - t0
    if setup is None:
        _check_not_deleted(args)
    for _ in range(warmup):
        sync(fn(*next_args()))

    times: list[float] = []
    append = times.append
    count = 0
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = perf()
        if setup is None:
            # The hot loop: nothing but the call, the wait and two clock reads per sample.
            while True:
                t0 = perf()
                sync(fn(*args))
                t1 = perf()
                append(t1 - t0)
                count += 1
                if count >= max_repeats or (count >= min_repeats and t1 - start >= budget_s):
                    break
        else:
            spent = 0.0
            while True:
                call_args = next_args()
                t0 = perf()
                sync(fn(*call_args))
                t1 = perf()
                append(t1 - t0)
                spent += t1 - t0
                count += 1
                if count >= max_repeats or (
                    count >= min_repeats and (spent >= budget_s or t1 - start >= 4 * budget_s)
                ):
                    break
    finally:
        if gc_was_enabled:
            gc.enable()
    return BenchResult(
        name=name or _name_of(fn), times=tuple(times), first_call=first, budget_s=budget_s
    )


# --- the classic mistakes -------------------------------------------------------------------------


@dataclass(frozen=True)
class Mistake:
    """One wrong way to time, the figures it gives, and what it really measured."""

    key: str
    times: tuple[float, ...]
    """Seconds the wrong method reports, one per try."""
    measures: str

    @property
    def wrong(self) -> float:
        """The median of :attr:`times`: what the wrong method typically reports."""
        return statistics.median(self.times)


@dataclass(frozen=True)
class MistakesReport:
    """The wrong figures next to the right one. ``report["no block"]`` is a wrong figure."""

    name: str
    right: BenchResult
    mistakes: tuple[Mistake, ...] = field(default_factory=tuple)

    def mistake(self, key: str) -> Mistake:
        for m in self.mistakes:
            if m.key == key:
                return m
        raise KeyError(f"no mistake {key!r}; there are {[m.key for m in self.mistakes]}")

    def __getitem__(self, key: str) -> float:
        return self.mistake(key).wrong

    def factor(self, key: str, stat: str = "median") -> float:
        """Wrong figure divided by the right one: <1 flatters, >1 exaggerates.

        ``stat="median"`` compares typical figures (the table shows these); ``stat="min"``
        compares the fastest try of each, which a busy machine disturbs least: use it to check
        that a gap is real.
        """
        if stat == "median":
            return self[key] / self.right.median
        if stat == "min":
            return min(self.mistake(key).times) / self.right.min
        raise ValueError(f"stat must be 'median' or 'min', got {stat!r}")

    def _rows(self) -> list[tuple[str, str, str, str]]:
        rows = [
            (m.key, format_seconds(m.wrong), f"{self.factor(m.key):.3g}x", m.measures)
            for m in self.mistakes
        ]
        rows.append(
            (
                "right: benchmark()",
                format_seconds(self.right.median),
                "1x",
                f"steady state, every output waited for, median of {self.right.count} calls",
            )
        )
        return rows

    _HEADERS = ("how it was timed", "reported", "vs right", "what it really measured")

    def __str__(self) -> str:
        return f"Timing {self.name}\n" + text_table(self._HEADERS, self._rows())

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return html_table(
            self._HEADERS, self._rows(), caption=f"Timing {self.name}: wrong vs right"
        )


def timing_mistakes(
    fn: Callable[..., Any],
    *args: Any,
    name: str | None = None,
    budget_s: float = 0.2,
    compiles: int = 3,
) -> MistakesReport:
    """Time ``fn(*args)`` three wrong ways and the right way, side by side.

    - ``"no block"``: ``t0; fn(*args); t1`` without waiting, which measures only the dispatch;
    - ``"compile included"``: one call of a freshly jitted copy of ``fn``, which measures tracing
      and compiling too (median of ``compiles`` fresh copies);
    - ``"host conversion"``: ``np.array(fn(*args))``, which adds copying the result into a new
      NumPy array on the host (and, on an accelerator, the device-to-host transfer).

    The right figure is the median of steady-state calls, each waited for, as in :func:`benchmark`;
    the same calls give the "no block" figure, and "host conversion" calls take turns with them
    for ``budget_s`` seconds.
    """
    positive_int("compiles", compiles)
    label = name or _name_of(fn)
    perf = time.perf_counter

    compiled: list[float] = []
    for _ in range(compiles):
        fresh = jax.jit(lambda *a: fn(*a))  # a new function object: nothing cached for it
        t0 = perf()
        _block(fresh(*args))
        compiled.append(perf() - t0)
    _block(fn(*args))  # warm-up of the function itself

    # Rounds of three calls, so that all figures see the machine in the same state: a call timed
    # to when it returns (what a timer that does not wait reports) and to when its output is
    # ready (the right figure); a call timed around `np.array(f(x))`; and an untimed call, which
    # absorbs the slower next dispatch that converting a result to NumPy can cause.
    right: list[float] = []
    dispatch: list[float] = []
    converted: list[float] = []
    start = perf()
    while len(right) < 5 or (perf() - start < budget_s and len(right) < 10_000):
        t0 = perf()
        out = fn(*args)
        t1 = perf()
        _block(out)
        t2 = perf()
        dispatch.append(t1 - t0)
        right.append(t2 - t0)
        del out
        t0 = perf()
        np.array(fn(*args))
        converted.append(perf() - t0)
        _block(fn(*args))

    return MistakesReport(
        name=label,
        right=BenchResult(label, tuple(right), first_call=compiled[0], budget_s=budget_s),
        mistakes=(
            Mistake("no block", tuple(dispatch), "only the dispatch: queueing the work"),
            Mistake(
                "compile included",
                tuple(compiled),
                "tracing + compiling + one run (a first call)",
            ),
            Mistake(
                "host conversion",
                tuple(converted),
                "the work + copying the result into a new NumPy array",
            ),
        ),
    )


# --- dispatch vs execution ------------------------------------------------------------------------


@dataclass(frozen=True)
class Timeline:
    """When each step was dispatched by the host and when its result became ready.

    Times are seconds since the first dispatch. A step's execution start is inferred as the later
    of "previous step ready" and "this step dispatched" (steps depend on each other, so they run
    one after another).
    """

    dispatch_start: tuple[float, ...]
    dispatch_end: tuple[float, ...]
    ready: tuple[float, ...]

    @property
    def steps(self) -> int:
        return len(self.ready)

    @property
    def host_done(self) -> float:
        """When the host had dispatched every step and was free to do something else."""
        return self.dispatch_end[-1]

    @property
    def device_done(self) -> float:
        """When the last result was ready."""
        return self.ready[-1]

    @property
    def execution_start(self) -> tuple[float, ...]:
        starts = []
        previous = 0.0
        for end, ready in zip(self.dispatch_end, self.ready, strict=True):
            start = min(max(previous, end), ready)
            starts.append(start)
            previous = ready
        return tuple(starts)

    def __str__(self) -> str:
        return (
            f"{self.steps} steps: host dispatched all in {format_seconds(self.host_done)}, "
            f"device finished after {format_seconds(self.device_done)}"
        )

    __repr__ = __str__

    def draw(self, title: str | None = None) -> Figure:
        """Two lanes, host dispatches (short bars, then waiting) and device execution, as a closed
        Figure (a notebook shows it when a cell ends with it)."""
        fig = new_figure(8, 2.4, layout="constrained")
        ax = fig.add_subplot()
        scale, unit = (1e3, "ms") if self.device_done < 2 else (1.0, "s")
        host = [
            (s * scale, (e - s) * scale)
            for s, e in zip(self.dispatch_start, self.dispatch_end, strict=True)
        ]
        device = [
            (s * scale, (r - s) * scale)
            for s, r in zip(self.execution_start, self.ready, strict=True)
        ]
        import matplotlib

        colours = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
        ax.broken_barh(host, (1.1, 0.8), facecolors=colours[0], label="host: dispatch a step")
        wait = (self.host_done * scale, (self.device_done - self.host_done) * scale)
        ax.broken_barh([wait], (1.35, 0.3), facecolors="lightgrey", label="host: waiting")
        ax.broken_barh(
            device,
            (0.1, 0.8),
            facecolors=[colours[1 + i % 2] for i in range(len(device))],
            edgecolor="white",
            label="device: execute",
        )
        ax.set_yticks([0.5, 1.5], labels=["device", "host"])
        ax.set_xlabel(f"time since first dispatch ({unit})")
        ax.set_xlim(0, self.device_done * scale * 1.02)
        ax.set_title(title or "Async dispatch: the host runs ahead of the device")
        ax.legend(loc="upper right", fontsize="small", framealpha=0.9)
        return fig


def dispatch_timeline(step: Callable[[Any], Any], state: Any, steps: int = 8) -> Timeline:
    """Run ``state = step(state)`` ``steps`` times without waiting, and record when each result is ready.

    ``step`` is warmed up (compiled) first. The host dispatches every step back to back; then it
    waits for the results in order and notes the moment each one is ready.
    """
    positive_int("steps", steps)
    _block(step(state))  # compile outside the timeline
    perf = time.perf_counter
    starts: list[float] = []
    ends: list[float] = []
    outs: list[Any] = []
    base = perf()
    for _ in range(steps):
        starts.append(perf() - base)
        state = step(state)
        ends.append(perf() - base)
        outs.append(state)
    ready: list[float] = []
    for out in outs:
        _block(out)
        ready.append(perf() - base)
    return Timeline(tuple(starts), tuple(ends), tuple(ready))
