"""A roofline: how fast a few operations run against the machine's bandwidth and compute roofs.

An operation that does F floating-point operations and moves B bytes has arithmetic intensity
I = F / B. No device can run it faster than min(compute roof, bandwidth roof x I) FLOP/s: below
the *ridge point* (compute / bandwidth) the memory system limits it (memory-bound), above it the
arithmetic units do (compute-bound). The roofs here are *measured* by :func:`~aurora_helpers.measure_machine`; the
published peaks, where known, are drawn too.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._checks import positive_int
from .._display import html_table, text_table
from .._figures import new_figure
from .throughput.driver import measure_machine
from .throughput.results import MachineThroughput
from .timing import benchmark

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@dataclass(frozen=True)
class RooflineOp:
    """An operation to place on the roofline, with its FLOPs and bytes counted by hand."""

    name: str
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    flops: float
    bytes: float

    @property
    def intensity(self) -> float:
        return self.flops / self.bytes


@dataclass(frozen=True)
class RooflinePoint:
    """One measured operation: its intensity and the FLOP/s it achieved."""

    name: str
    flops: float
    bytes: float
    seconds: float

    @property
    def intensity(self) -> float:
        """FLOPs per byte moved to or from device memory."""
        return self.flops / self.bytes

    @property
    def flops_per_s(self) -> float:
        return self.flops / self.seconds


@dataclass(frozen=True)
class Roofline:
    """Measured points under measured roofs (bytes/s and FLOP/s)."""

    points: tuple[RooflinePoint, ...]
    bandwidth: float
    """Measured memory roof, bytes/s (best on-device copy)."""
    compute: float
    """Measured compute roof, FLOP/s (best matmul of :attr:`dtype`)."""
    dtype: str
    device_kind: str
    peak_bandwidth: float | None = None
    peak_compute: float | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def ridge(self) -> float:
        """The intensity (FLOP/byte) where the two roofs meet."""
        return self.compute / self.bandwidth

    def roof(self, intensity: float) -> float:
        """The highest FLOP/s the measured roofs allow at ``intensity``."""
        return min(self.compute, self.bandwidth * intensity)

    def point(self, name: str) -> RooflinePoint:
        for p in self.points:
            if p.name == name:
                return p
        raise KeyError(f"no point {name!r}; there are {[p.name for p in self.points]}")

    def bound(self, name_or_intensity: str | float) -> str:
        """``"memory"`` below the ridge point, ``"compute"`` at or above it."""
        intensity = (
            self.point(name_or_intensity).intensity
            if isinstance(name_or_intensity, str)
            else float(name_or_intensity)
        )
        return "memory" if intensity < self.ridge else "compute"

    def efficiency(self, name: str) -> float:
        """Achieved FLOP/s as a fraction of the roof at the point's intensity."""
        p = self.point(name)
        return p.flops_per_s / self.roof(p.intensity)

    def rows(self) -> list[tuple[str, ...]]:
        return [
            (
                p.name,
                f"{p.intensity:.3g}",
                f"{p.flops_per_s / 1e9:.3g}",
                f"{self.roof(p.intensity) / 1e9:.3g}",
                f"{self.efficiency(p.name):.0%}",
                self.bound(p.name),
            )
            for p in self.points
        ]

    _HEADERS = ("operation", "FLOP/byte", "GFLOP/s", "roof GFLOP/s", "of roof", "bound")

    def _title(self) -> str:
        return (
            f"Roofline on {self.device_kind} ({self.dtype}): memory roof "
            f"{self.bandwidth / 1e9:.3g} GB/s, compute roof {self.compute / 1e9:.3g} GFLOP/s, "
            f"ridge {self.ridge:.3g} FLOP/byte"
        )

    def __str__(self) -> str:
        notes = "".join(f"\nnote: {n}" for n in self.notes)
        return self._title() + "\n" + text_table(self._HEADERS, self.rows()) + notes

    __repr__ = __str__

    def _repr_html_(self) -> str:
        notes = "".join(f"<p>note: {html.escape(n)}</p>" for n in self.notes)
        return html_table(self._HEADERS, self.rows(), caption=self._title()) + notes

    def draw(self) -> Figure:
        """Log-log roofline, measured roofs (solid), published peaks (dashed) and points, as a
        closed Figure (a notebook shows it when a cell ends with it)."""
        import numpy as np

        fig = new_figure(6.5, 4, layout="constrained")
        ax = fig.add_subplot()
        intensities = [p.intensity for p in self.points] + [self.ridge]
        lo, hi = min(intensities) / 4, max(intensities) * 4
        xs = np.geomspace(lo, hi, 200)
        ax.plot(
            xs,
            [self.roof(x) / 1e9 for x in xs],
            color="black",
            label=f"measured roof (ridge {self.ridge:.3g})",
        )
        if self.peak_bandwidth and self.peak_compute:
            ax.plot(
                xs,
                [min(self.peak_compute, self.peak_bandwidth * x) / 1e9 for x in xs],
                color="grey",
                linestyle="--",
                label="published peak",
            )
        for p in self.points:
            ax.scatter(p.intensity, p.flops_per_s / 1e9, zorder=3)
            ax.annotate(
                p.name,
                (p.intensity, p.flops_per_s / 1e9),
                textcoords="offset points",
                xytext=(4, -10),
                fontsize="x-small",
            )
        ax.axvline(self.ridge, color="black", alpha=0.2, linestyle=":")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("arithmetic intensity (FLOP per byte)")
        ax.set_ylabel("GFLOP/s")
        ax.set_title(f"Roofline, {self.device_kind}, {self.dtype}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small", loc="lower right")
        return fig


def elementwise_size() -> int:
    """Elements of each vector of the elementwise operations: a power of two whose float32 bytes
    are at least twice the CPU's last-level cache, so that every operand comes from memory and
    the operations are measured against memory's bandwidth, not a cache's."""
    from .throughput.caches import last_level_bytes, read_caches

    target = 2 * last_level_bytes(read_caches()) // 4
    return 1 << (target - 1).bit_length()


def roofline_ops(
    n: int | None = None, matmul_sizes: Sequence[int] = (32, 128, 512)
) -> list[RooflineOp]:
    """float32 operations spanning low to high intensity, with FLOPs and bytes counted by hand.

    Bytes count each input read once and each output written once (4 bytes per float32). ``n``:
    the elementwise operations' vector length, by default :func:`elementwise_size` (past the
    last-level cache).
    """
    import jax
    import jax.numpy as jnp
    import numpy as np

    n = elementwise_size() if n is None else n
    positive_int("n", n)
    rng = np.random.default_rng(0)  # NumPy makes the data: no compilation per shape
    x = jnp.asarray(rng.random(n, dtype=np.float32) - 0.5)
    y = jnp.asarray(rng.random(n, dtype=np.float32) - 0.5)

    def poly(v: jax.Array) -> jax.Array:
        # Horner's rule, degree 32: one multiply and one add per degree, per element.
        acc = jnp.full_like(v, 0.5)
        for k in range(32):
            acc = acc * v + (1.0 / (k + 2))
        return acc

    ops = [
        RooflineOp("x + y", jax.jit(lambda a, b: a + b), (x, y), n, 12 * n),
        RooflineOp("sum(x)", jax.jit(jnp.sum), (x,), n, 4 * n),
        RooflineOp("poly32(x)", jax.jit(poly), (x,), 64 * n, 8 * n),
    ]
    for m in matmul_sizes:
        a = jnp.asarray(rng.standard_normal((m, m), dtype=np.float32))
        b = jnp.asarray(rng.standard_normal((m, m), dtype=np.float32))
        matmul = jax.jit(lambda p, q: jnp.matmul(p, q, precision=jax.lax.Precision.HIGHEST))
        ops.append(RooflineOp(f"matmul {m}", matmul, (a, b), 2 * m**3, 12 * m**2))
    return ops


def measure_roofline(
    bench: MachineThroughput | None = None,
    ops: Sequence[RooflineOp] | None = None,
    *,
    dtype: str = "float32",
    budget_s: float = 0.05,
) -> Roofline:
    """Time each operation (best of its repeats, like measure_machine) and place it under the roofs
    measured by ``bench``.

    ``bench`` defaults to a quick :func:`measure_machine` of the copy and matmul metrics. ``ops``
    defaults to :func:`roofline_ops`.
    """
    if bench is None:
        bench = measure_machine(quick=True, metrics=("copy", "matmul"), dtypes=(dtype,))
    bandwidth, compute = bench.bandwidth_roof, bench.compute_roof(dtype)
    if bandwidth is None or compute is None:
        raise ValueError(
            f"the bench has no copy or no {dtype} matmul measurement; run measure_machine with "
            f"metrics including 'copy' and 'matmul' and dtypes including {dtype!r}"
        )
    ops = list(roofline_ops() if ops is None else ops)
    if not ops:
        raise ValueError("no operations to place on the roofline")
    points = tuple(
        RooflinePoint(
            op.name,
            op.flops,
            op.bytes,
            benchmark(op.fn, *op.args, name=op.name, budget_s=budget_s, min_repeats=3).min,
        )
        for op in ops
    )
    notes = []
    # A roof bounds what the machine can do, so anything seen running faster raises it: a noisy
    # measurement, or data small enough to stay in a cache, can beat measure_machine's figure.
    fastest = max(points, key=lambda p: p.flops_per_s)
    if fastest.flops_per_s > compute:
        notes.append(
            f"compute roof raised from measure_machine's {compute / 1e9:.3g} to {fastest.flops_per_s / 1e9:.3g} "
            f"GFLOP/s, seen for {fastest.name}"
        )
        compute = fastest.flops_per_s
    widest = max(points, key=lambda p: p.bytes / p.seconds)
    if widest.bytes / widest.seconds > bandwidth:
        notes.append(
            f"memory roof raised from measure_machine's {bandwidth / 1e9:.3g} to "
            f"{widest.bytes / widest.seconds / 1e9:.3g} GB/s, seen for {widest.name}"
        )
        bandwidth = widest.bytes / widest.seconds
    peak_bw = bench.peak_value("copy")
    peak_flops = bench.peak_value("matmul", dtype)
    return Roofline(
        points=points,
        bandwidth=bandwidth,
        compute=compute,
        dtype=dtype,
        device_kind=bench.device_kind,
        peak_bandwidth=peak_bw * 1e9 if peak_bw else None,
        peak_compute=peak_flops * 1e12 if peak_flops else None,
        notes=tuple(notes),
    )
