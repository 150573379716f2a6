"""What a throughput measurement found: one :class:`Measurement` per metric and size, collected in a
:class:`MachineThroughput` (tables for notebooks and terminals, a picture, the figures to quote),
and :class:`ThroughputComparison` for two libraries side by side.

The metrics (each swept over sizes):

- ``h2d``: host memory to device memory (GB/s);
- ``d2h``: device memory to host memory (GB/s);
- ``copy``: on the device, ``y = x + 1`` reads and writes every byte once (GB/s of both);
- ``matmul``: ``a @ b`` on n x n matrices, float32 at full precision and bfloat16 (TFLOP/s).

A bandwidth figure depends on where the bytes live: an array that fits in a CPU cache is read
at the cache's speed. Each bandwidth measurement therefore records the smallest memory level its
bytes fit in (``L2``, ``L3``, ``memory``, or ``device memory`` on an accelerator), and the figure
quoted for a bandwidth comes from the largest size beyond the last cache level when there is one.
"""

from __future__ import annotations

import html
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from ..._display import format_bytes, html_table, text_table
from ..._figures import new_figure
from ..peaks import Peak
from ..timing import format_seconds

if TYPE_CHECKING:
    from matplotlib.figure import Figure

METRICS: tuple[str, ...] = ("h2d", "d2h", "copy", "matmul")
MATMUL_DTYPES: tuple[str, ...] = ("float32", "bfloat16")
_LABELS = {
    "h2d": "host -> device",
    "d2h": "device -> host",
    "copy": "on-device copy (y = x + 1)",
    "matmul": "matmul",
}


@dataclass(frozen=True)
class Measurement:
    """One metric at one size: the median time per operation and what that operation did."""

    metric: str
    size: int
    """Bytes of the array moved (h2d, d2h, copy) or the matrix side n (matmul)."""
    dtype: str
    seconds: float
    """Best (shortest) time of one operation over the repeats."""
    work: float
    """Bytes moved (a copy reads and writes: twice the array) or floating-point operations."""
    method: str
    level: str = ""
    """Where the bytes of a bandwidth measurement fit: the smallest CPU cache level that holds them
    (``"L2"``, ``"L3"``), ``"memory"`` beyond the last cache, ``"device memory"`` on an accelerator;
    ``""`` for matmul."""

    @property
    def unit(self) -> str:
        return "TFLOP/s" if self.metric == "matmul" else "GB/s"

    @property
    def value(self) -> float:
        """Throughput in :attr:`unit` (decimal: GB = 1e9 bytes, TFLOP = 1e12 operations)."""
        return self.work / self.seconds / (1e12 if self.metric == "matmul" else 1e9)

    @property
    def size_label(self) -> str:
        return f"n={self.size}" if self.metric == "matmul" else format_bytes(self.size)

    @property
    def where(self) -> str:
        """The size and, for bandwidths, the memory level: ``"128.0 MiB (memory)"``."""
        return f"{self.size_label} ({self.level})" if self.level else self.size_label


@dataclass(frozen=True)
class MachineThroughput:
    """What :func:`measure_machine` found. Shows as tables in notebooks and as text in a terminal."""

    library: str
    platform: str
    device_kind: str
    measurements: tuple[Measurement, ...]
    peak: Peak | None
    notes: tuple[str, ...] = field(default_factory=tuple)

    def sweep(self, metric: str, dtype: str | None = None) -> list[Measurement]:
        """The measurements of one metric (and dtype), smallest size first."""
        _check_metric(metric)
        rows = [
            m
            for m in self.measurements
            if m.metric == metric and (dtype is None or m.dtype == dtype)
        ]
        return sorted(rows, key=lambda m: m.size)

    def best(self, metric: str, dtype: str | None = None) -> Measurement | None:
        """The measurement with the highest throughput, or None if the metric did not run."""
        rows = self.sweep(metric, dtype)
        return max(rows, key=lambda m: m.value) if rows else None

    def headline(self, metric: str, dtype: str | None = None) -> Measurement | None:
        """The figure to quote: bandwidths at the largest size, matmul at its best.

        Small transfers and copies can run from a cache and beat the memory's bandwidth. The
        sizes of :func:`~aurora_helpers.measure_machine` go well past the last cache level, so the
        largest size measures memory (its :attr:`Measurement.level` says so).
        """
        if metric == "matmul":
            return self.best(metric, dtype)
        rows = self.sweep(metric, dtype)
        return rows[-1] if rows else None

    def peak_value(self, metric: str, dtype: str | None = None) -> float | None:
        """The published peak for a metric, in the metric's unit; None when unknown."""
        _check_metric(metric)
        if self.peak is None:
            return None
        if metric in ("h2d", "d2h"):
            return self.peak.host_link_gbps
        if metric == "copy":
            return self.peak.memory_gbps
        return self.peak.bfloat16_tflops if dtype == "bfloat16" else self.peak.float32_tflops

    def fraction_of_peak(self, metric: str, dtype: str | None = None) -> float | None:
        best, peak = self.headline(metric, dtype), self.peak_value(metric, dtype)
        if best is None or not peak:
            return None
        return best.value / peak

    def measured(self) -> list[tuple[str, str]]:
        """(metric, dtype) pairs that were measured, in metric order."""
        seen = dict.fromkeys((m.metric, m.dtype) for m in self.measurements)
        return sorted(seen, key=lambda k: (METRICS.index(k[0]), k[1] != "float32", k[1]))

    @property
    def bandwidth_roof(self) -> float | None:
        """On-device bandwidth in bytes/s at the largest size (a roofline's memory roof).

        From memory when the sweep went past the caches (see :attr:`Measurement.level`)."""
        best = self.headline("copy")
        return best.value * 1e9 if best else None

    def compute_roof(self, dtype: str = "float32") -> float | None:
        """Best matmul throughput in FLOP/s for ``dtype`` (the compute roof), if measured."""
        best = self.best("matmul", dtype)
        return best.value * 1e12 if best else None

    def summary_rows(self) -> list[tuple[str, ...]]:
        rows: list[tuple[str, ...]] = []
        for metric, dtype in self.measured():
            best = self.headline(metric, dtype)
            assert best is not None
            peak = self.peak_value(metric, dtype)
            fraction = self.fraction_of_peak(metric, dtype)
            rows.append(
                (
                    _metric_label(metric, dtype),
                    f"{best.value:.3g} {best.unit}",
                    best.where,
                    f"{peak:g} {best.unit}" if peak else "unknown",
                    f"{fraction:.0%}" if fraction is not None else "-",
                    best.method,
                )
            )
        return rows

    def detail_rows(self) -> list[tuple[str, ...]]:
        return [
            (
                _metric_label(m.metric, m.dtype),
                m.where,
                format_seconds(m.seconds),
                f"{m.value:.3g} {m.unit}",
                m.method,
            )
            for metric, dtype in self.measured()
            for m in self.sweep(metric, dtype)
        ]

    _SUMMARY = ("metric", "measured", "at (memory level)", "published peak", "of peak", "method")
    _DETAIL = ("metric", "size (memory level)", "time per op", "throughput", "method")

    def _title(self) -> str:
        peak = (
            f"peaks: {self.peak.source}"
            if self.peak
            else "no published peak for this device: measured values only"
        )
        return f"{self.library} on {self.device_kind} ({self.platform}); {peak}"

    def __str__(self) -> str:
        parts = [self._title(), text_table(self._SUMMARY, self.summary_rows())]
        parts += [f"note: {n}" for n in self.notes]
        return "\n".join(parts)

    __repr__ = __str__

    def details(self) -> str:
        """Every size of every sweep, as a text table."""
        return text_table(self._DETAIL, self.detail_rows())

    def _repr_html_(self) -> str:
        notes = "".join(f"<p>note: {html.escape(n)}</p>" for n in self.notes)
        return html_table(self._SUMMARY, self.summary_rows(), caption=self._title()) + notes

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["summary"] = [
            {
                "metric": metric,
                "dtype": dtype,
                "value": self.headline(metric, dtype).value,  # type: ignore[union-attr]
                "size": self.headline(metric, dtype).size,  # type: ignore[union-attr]
                "unit": self.headline(metric, dtype).unit,  # type: ignore[union-attr]
                "peak": self.peak_value(metric, dtype),
                "fraction_of_peak": self.fraction_of_peak(metric, dtype),
            }
            for metric, dtype in self.measured()
        ]
        return data

    def draw(self) -> Figure:
        """Bandwidth against transfer size for h2d, d2h and copy (log-log), as a closed Figure.

        Each point is labelled with where its bytes fit (a cache level or memory)."""
        from matplotlib.ticker import FuncFormatter, NullFormatter

        fig = new_figure(6.5, 3.8, layout="constrained")
        ax = fig.add_subplot()
        for metric in ("h2d", "d2h", "copy"):
            rows = self.sweep(metric)
            if rows:
                ax.plot(
                    [m.size for m in rows],
                    [m.value for m in rows],
                    marker="o",
                    label=_LABELS[metric],
                )
        sizes = sorted({m.size for p in ("h2d", "d2h", "copy") for m in self.sweep(p)})
        levels = {m.size: m.level for p in ("h2d", "d2h", "copy") for m in self.sweep(p)}
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(
            sizes,
            labels=[
                f"{format_bytes(s)}\n{levels[s]}" if levels[s] else format_bytes(s) for s in sizes
            ],
        )
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(
            FuncFormatter(lambda v, _: f"{v:g}" if f"{v:.0e}"[0] in "25" else "")
        )
        ax.set_xlabel("bytes per transfer (and the memory level they fit in)")
        ax.set_ylabel("GB/s")
        ax.set_title(f"Bandwidth on {self.device_kind}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small")
        return fig


def _check_metric(metric: str) -> None:
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; the metrics are {', '.join(METRICS)}")


def _metric_label(metric: str, dtype: str) -> str:
    return f"matmul {dtype}" if metric == "matmul" else _LABELS[metric]


@dataclass(frozen=True)
class ThroughputComparison:
    """Two :class:`MachineThroughput` results, metric by metric (each one's :meth:`~MachineThroughput.headline`)."""

    first: MachineThroughput
    second: MachineThroughput

    def measured(self) -> list[tuple[str, str]]:
        second = set(self.second.measured())
        return [k for k in self.first.measured() if k in second]

    def ratio(self, metric: str, dtype: str | None = None) -> float | None:
        """First library's best divided by the second's; None when either did not measure it."""
        a, b = self.first.headline(metric, dtype), self.second.headline(metric, dtype)
        if a is None or b is None or b.value == 0:
            return None
        return a.value / b.value

    @property
    def lowest_ratio(self) -> float | None:
        ratios = [r for k in self.measured() if (r := self.ratio(*k)) is not None]
        return min(ratios) if ratios else None

    def rows(self) -> list[tuple[str, ...]]:
        rows: list[tuple[str, ...]] = []
        for metric, dtype in self.first.measured():
            a, b = self.first.headline(metric, dtype), self.second.headline(metric, dtype)
            ratio = self.ratio(metric, dtype)
            rows.append(
                (
                    _metric_label(metric, dtype),
                    f"{a.value:.3g} {a.unit}" if a else "-",
                    f"{b.value:.3g} {b.unit}" if b else "not measured",
                    f"{ratio:.0%}" if ratio is not None else "-",
                )
            )
        return rows

    def _headers(self) -> tuple[str, ...]:
        a, b = self.first.library.split()[0], self.second.library.split()[0]
        return ("metric", self.first.library, self.second.library, f"{a} / {b}")

    def __str__(self) -> str:
        title = (
            f"Side by side on {self.first.device_kind}: {self.first.library} vs "
            f"{self.second.library} (bandwidth at the largest size, matmul at its best)"
        )
        return title + "\n" + text_table(self._headers(), self.rows())

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return html_table(self._headers(), self.rows(), caption="Side by side")


def compare_throughputs(
    first: MachineThroughput, second: MachineThroughput
) -> ThroughputComparison:
    """Put two measurements of the same machine side by side."""
    if not isinstance(first, MachineThroughput) or not isinstance(second, MachineThroughput):
        raise TypeError(
            "compare_throughputs takes two MachineThroughput results (from measure_machine/run_suite)"
        )
    return ThroughputComparison(first, second)
