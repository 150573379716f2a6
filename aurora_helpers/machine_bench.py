"""Probes of the machine: transfer and on-device bandwidth, matmul throughput, against peaks.

Four probes, each swept over sizes:

- ``h2d``: host memory to device memory (GB/s);
- ``d2h``: device memory to host memory (GB/s);
- ``copy``: on the device, ``y = x + 1`` reads and writes every byte once (GB/s of both);
- ``matmul``: ``a @ b`` on n x n matrices, float32 at full precision and bfloat16 (TFLOP/s).

For the transfers several methods are tried (for example from a NumPy array and from a JAX array
in ``pinned_host`` memory) and the fastest *correct* one is used: the result must hold the right
values and must not share memory with the source (on a CPU, ``np.asarray`` of a JAX array is a
zero-copy view, which is no transfer at all). The same probes run on another library (PyTorch)
through a :class:`ProbeSuite`, so ``aurora bench --compare torch`` can print them side by side.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

import numpy as np

from ._display import format_bytes, html_table, text_table
from .peaks import Peak, peak_for
from .timing import benchmark, format_seconds

PROBES: tuple[str, ...] = ("h2d", "d2h", "copy", "matmul")
MATMUL_DTYPES: tuple[str, ...] = ("float32", "bfloat16")
_LABELS = {
    "h2d": "host -> device",
    "d2h": "device -> host",
    "copy": "on-device copy (y = x + 1)",
    "matmul": "matmul",
}


class ComparisonUnavailable(RuntimeError):
    """The other library is installed but cannot measure the same device (e.g. no CUDA build)."""


@dataclass(frozen=True)
class Measurement:
    """One probe at one size: the median time per operation and what that operation did."""

    probe: str
    size: int
    """Bytes of the array moved (h2d, d2h, copy) or the matrix side n (matmul)."""
    dtype: str
    seconds: float
    """Best (shortest) time of one operation over the repeats."""
    work: float
    """Bytes moved (a copy reads and writes: twice the array) or floating-point operations."""
    method: str

    @property
    def unit(self) -> str:
        return "TFLOP/s" if self.probe == "matmul" else "GB/s"

    @property
    def value(self) -> float:
        """Throughput in :attr:`unit` (decimal: GB = 1e9 bytes, TFLOP = 1e12 operations)."""
        return self.work / self.seconds / (1e12 if self.probe == "matmul" else 1e9)

    @property
    def size_label(self) -> str:
        return f"n={self.size}" if self.probe == "matmul" else format_bytes(self.size)


@dataclass(frozen=True)
class Op:
    """One way to run a probe once, as a suite offers it to the driver."""

    method: str
    run: Callable[..., Any]
    work: float
    sync: Callable[[Any], Any]
    check: Callable[[Any], str | None]
    """Given one output, the reason it is wrong (bad values, or memory shared with the source)."""
    setup: Callable[[], Sequence[Any]] | None = None
    batchable: bool = True


class ProbeSuite(Protocol):
    """What a library offers the probes. :class:`JaxSuite` and :class:`TorchSuite` implement it."""

    library: str
    platform: str
    device_kind: str
    batched: bool
    """True on accelerators: time several back-to-back calls per sync to hide launch latency."""

    def transfer_ops(self, direction: str, nbytes: int) -> list[Op]: ...

    def copy_op(self, nbytes: int) -> Op: ...

    def matmul_op(self, n: int, dtype: str) -> Op | None: ...


@dataclass(frozen=True)
class MachineBench:
    """What :func:`measure_machine` found. Shows as tables in notebooks and as text in a terminal."""

    library: str
    platform: str
    device_kind: str
    measurements: tuple[Measurement, ...]
    peak: Peak | None
    notes: tuple[str, ...] = field(default_factory=tuple)

    def sweep(self, probe: str, dtype: str | None = None) -> list[Measurement]:
        """The measurements of one probe (and dtype), smallest size first."""
        _check_probe(probe)
        rows = [
            m for m in self.measurements if m.probe == probe and (dtype is None or m.dtype == dtype)
        ]
        return sorted(rows, key=lambda m: m.size)

    def best(self, probe: str, dtype: str | None = None) -> Measurement | None:
        """The measurement with the highest throughput, or None if the probe did not run."""
        rows = self.sweep(probe, dtype)
        return max(rows, key=lambda m: m.value) if rows else None

    def headline(self, probe: str, dtype: str | None = None) -> Measurement | None:
        """The figure to quote: bandwidths at the largest size, matmul at its best.

        Small transfers and copies can run from a cache and beat the memory's bandwidth; the
        largest size is the closest to what device memory (or the host link) sustains.
        """
        if probe == "matmul":
            return self.best(probe, dtype)
        rows = self.sweep(probe, dtype)
        return rows[-1] if rows else None

    def peak_value(self, probe: str, dtype: str | None = None) -> float | None:
        """The published peak for a probe, in the probe's unit; None when unknown."""
        _check_probe(probe)
        if self.peak is None:
            return None
        if probe in ("h2d", "d2h"):
            return self.peak.host_link_gbps
        if probe == "copy":
            return self.peak.memory_gbps
        return self.peak.bfloat16_tflops if dtype == "bfloat16" else self.peak.float32_tflops

    def fraction_of_peak(self, probe: str, dtype: str | None = None) -> float | None:
        best, peak = self.headline(probe, dtype), self.peak_value(probe, dtype)
        if best is None or not peak:
            return None
        return best.value / peak

    def measured(self) -> list[tuple[str, str]]:
        """(probe, dtype) pairs that were measured, in probe order."""
        seen = dict.fromkeys((m.probe, m.dtype) for m in self.measurements)
        return sorted(seen, key=lambda k: (PROBES.index(k[0]), k[1] != "float32", k[1]))

    @property
    def bandwidth_roof(self) -> float | None:
        """On-device bandwidth in bytes/s at the largest size (a roofline's memory roof)."""
        best = self.headline("copy")
        return best.value * 1e9 if best else None

    def compute_roof(self, dtype: str = "float32") -> float | None:
        """Best matmul throughput in FLOP/s for ``dtype`` (the compute roof), if measured."""
        best = self.best("matmul", dtype)
        return best.value * 1e12 if best else None

    def summary_rows(self) -> list[tuple[str, ...]]:
        rows = []
        for probe, dtype in self.measured():
            best = self.headline(probe, dtype)
            assert best is not None
            peak = self.peak_value(probe, dtype)
            fraction = self.fraction_of_peak(probe, dtype)
            rows.append(
                (
                    _probe_label(probe, dtype),
                    f"{best.value:.3g} {best.unit}",
                    best.size_label,
                    f"{peak:g} {best.unit}" if peak else "unknown",
                    f"{fraction:.0%}" if fraction is not None else "-",
                    best.method,
                )
            )
        return rows

    def detail_rows(self) -> list[tuple[str, ...]]:
        return [
            (
                _probe_label(m.probe, m.dtype),
                m.size_label,
                format_seconds(m.seconds),
                f"{m.value:.3g} {m.unit}",
                m.method,
            )
            for probe, dtype in self.measured()
            for m in self.sweep(probe, dtype)
        ]

    _SUMMARY = ("probe", "measured", "at", "published peak", "of peak", "method")
    _DETAIL = ("probe", "size", "time per op", "throughput", "method")

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
                "probe": probe,
                "dtype": dtype,
                "value": self.headline(probe, dtype).value,  # type: ignore[union-attr]
                "size": self.headline(probe, dtype).size,  # type: ignore[union-attr]
                "unit": self.headline(probe, dtype).unit,  # type: ignore[union-attr]
                "peak": self.peak_value(probe, dtype),
                "fraction_of_peak": self.fraction_of_peak(probe, dtype),
            }
            for probe, dtype in self.measured()
        ]
        return data

    def plot(self, ax: Any = None) -> Any:
        """Bandwidth against transfer size for h2d, d2h and copy (log-log). Returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 3.5))
        for probe in ("h2d", "d2h", "copy"):
            rows = self.sweep(probe)
            if rows:
                ax.plot(
                    [m.size for m in rows],
                    [m.value for m in rows],
                    marker="o",
                    label=_LABELS[probe],
                )
        from matplotlib.ticker import FuncFormatter, NullFormatter

        sizes = sorted({m.size for p in ("h2d", "d2h", "copy") for m in self.sweep(p)})
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(sizes, labels=[format_bytes(s) for s in sizes])
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(
            FuncFormatter(lambda v, _: f"{v:g}" if f"{v:.0e}"[0] in "25" else "")
        )
        ax.set_xlabel("bytes per transfer")
        ax.set_ylabel("GB/s")
        ax.set_title(f"Bandwidth on {self.device_kind}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small")
        return ax


def _check_probe(probe: str) -> None:
    if probe not in PROBES:
        raise ValueError(f"unknown probe {probe!r}; the probes are {', '.join(PROBES)}")


def _probe_label(probe: str, dtype: str) -> str:
    return f"matmul {dtype}" if probe == "matmul" else _LABELS[probe]


# --- the driver -----------------------------------------------------------------------------------


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

    A method the runtime does not support here (it raises) is reported, not fatal: the probes
    then use the other methods.
    """
    try:
        args = tuple(op.setup()) if op.setup is not None else ()
        out = op.run(*args)
        op.sync(out)
        return op.check(out)
    except Exception as err:  # e.g. a memory kind this backend cannot copy into
        return f"failed: {type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"


def run_probes(
    suite: ProbeSuite,
    *,
    sizes: Sequence[int],
    matmul_sizes: Sequence[int],
    dtypes: Sequence[str] = MATMUL_DTYPES,
    probes: Iterable[str] = PROBES,
    budget_s: float = 0.1,
    timer: Callable[[Op, float, bool], float] | None = None,
) -> MachineBench:
    """Run the probes of ``suite`` and collect a :class:`MachineBench`.

    For each transfer direction the suite's candidate methods are checked and timed at the largest
    size; the fastest correct one is swept over all sizes. A method whose output is wrong or shares
    memory with its source is left out, with a note saying why. ``timer(op, budget_s, batched)``
    returns seconds per run; the default times with :func:`~aurora_helpers.benchmark` (tests
    inject a fake one).
    """
    time_op = _time_op if timer is None else timer
    probes = tuple(probes)
    for p in probes:
        _check_probe(p)
    for d in dtypes:
        if d not in MATMUL_DTYPES:
            raise ValueError(f"unknown matmul dtype {d!r}; use {', '.join(MATMUL_DTYPES)}")
    sizes = sorted({int(s) for s in sizes})
    if any(s < 1024 for s in sizes) or (not sizes and set(probes) - {"matmul"}):
        raise ValueError(f"transfer sizes must be at least 1024 bytes, got {sizes}")
    measurements: list[Measurement] = []
    notes: list[str] = []

    def measure(probe: str, size: int, dtype: str, op: Op) -> Measurement | None:
        problem = _validate(op)
        if problem:
            notes.append(
                f"{_probe_label(probe, dtype)} by {op.method} at {format_bytes(size) if probe != 'matmul' else f'n={size}'}: {problem}"
            )
            return None
        seconds = time_op(op, budget_s, suite.batched)
        return Measurement(probe, size, dtype, seconds, op.work, op.method)

    for direction in ("h2d", "d2h"):
        if direction not in probes:
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

    if "copy" in probes:
        for size in sizes:
            m = measure("copy", size, "float32", suite.copy_op(size))
            if m is not None:
                measurements.append(m)

    if "matmul" in probes:
        for dtype in dtypes:
            for n in sorted(set(matmul_sizes)):
                op = suite.matmul_op(int(n), dtype)
                if op is None:
                    notes.append(f"matmul {dtype}: not supported by {suite.library} here")
                    break
                m = measure("matmul", int(n), dtype, op)
                if m is not None:
                    measurements.append(m)

    return MachineBench(
        library=suite.library,
        platform=suite.platform,
        device_kind=suite.device_kind,
        measurements=tuple(measurements),
        peak=peak_for(suite.device_kind) if suite.platform != "cpu" else None,
        notes=tuple(dict.fromkeys([*getattr(suite, "notes", ()), *notes])),
    )


def default_sizes(platform: str, quick: bool = False) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(transfer sizes in bytes, matmul sizes) suited to a platform; ``quick`` for notebooks."""
    if platform == "cpu":
        if quick:
            return (2**16, 2**19, 2**22), (128, 512)
        return (2**18, 2**20, 2**22, 2**24), (256, 512, 1024)
    if quick:
        return (2**20, 2**22, 2**24, 2**26), (1024, 2048, 4096)
    return (2**20, 2**22, 2**24, 2**26, 2**28, 2**30), (1024, 2048, 4096, 8192)


def measure_machine(
    *,
    quick: bool = False,
    sizes: Sequence[int] | None = None,
    matmul_sizes: Sequence[int] | None = None,
    dtypes: Sequence[str] = MATMUL_DTYPES,
    probes: Iterable[str] = PROBES,
    budget_s: float | None = None,
    device: Any = None,
) -> MachineBench:
    """Measure this machine with JAX: transfers, on-device bandwidth and matmul throughput.

    Runs on ``device`` (default: the first device of the default backend). Sizes default to
    :func:`default_sizes` for the platform; ``quick`` picks small ones and a short budget (a few
    seconds on a laptop CPU). ``budget_s`` is the time spent timing each point.
    """
    suite = JaxSuite(device)
    default_transfer, default_matmul = default_sizes(suite.platform, quick)
    return run_probes(
        suite,
        sizes=default_transfer if sizes is None else sizes,
        matmul_sizes=default_matmul if matmul_sizes is None else matmul_sizes,
        dtypes=dtypes,
        probes=probes,
        budget_s=budget_s if budget_s is not None else (0.02 if quick else 0.15),
    )


# --- JAX ------------------------------------------------------------------------------------------


def _pointer_of(x: Any) -> int | None:
    if isinstance(x, np.ndarray):
        return int(x.__array_interface__["data"][0])
    try:
        return int(x.unsafe_buffer_pointer())
    except Exception:  # sharded or deleted arrays have no single pointer
        return None


def _same_values(got: Any, expected: np.ndarray) -> str | None:
    got = np.asarray(got)
    if got.shape != expected.shape or not np.array_equal(got, expected):
        return "wrong values"
    return None


def _matmul_error(got: np.ndarray, a: np.ndarray, b: np.ndarray, dtype: str) -> str | None:
    """Compare the first rows of a product with a float64 reference."""
    rows = min(8, a.shape[0])
    reference = a[:rows].astype(np.float64) @ b.astype(np.float64)
    scale = float(np.max(np.abs(reference))) or 1.0
    error = float(np.max(np.abs(got[:rows].astype(np.float64) - reference))) / scale
    tolerance = 3e-2 if dtype == "bfloat16" else 1e-3
    return None if error <= tolerance else f"relative error {error:.2g} > {tolerance:g}"


def _host_data(nbytes: int) -> np.ndarray:
    return np.arange(nbytes // 4, dtype=np.float32)


class JaxSuite:
    """The probes with JAX, on one device."""

    def __init__(self, device: Any = None) -> None:
        import jax
        from jax.sharding import SingleDeviceSharding

        self._jax = jax
        self.device = device if device is not None else jax.devices()[0]
        self.platform = self.device.platform
        self.device_kind = self.device.device_kind
        self.library = f"jax {jax.__version__}"
        self.batched = self.platform != "cpu"
        try:
            kinds = {m.kind for m in self.device.addressable_memories()}
        except Exception:  # runtimes without memory spaces
            kinds = set()
        self._on_device = SingleDeviceSharding(self.device)
        self._pinned = (
            SingleDeviceSharding(self.device, memory_kind="pinned_host")
            if "pinned_host" in kinds
            else None
        )
        self._copy = jax.jit(lambda x: x + 1)
        self._matmul = {
            "float32": jax.jit(
                lambda a, b: jax.numpy.matmul(a, b, precision=jax.lax.Precision.HIGHEST)
            ),
            "bfloat16": jax.jit(lambda a, b: jax.numpy.matmul(a, b)),
        }

    def _sync(self, out: Any) -> Any:
        return self._jax.block_until_ready(out)

    def transfer_ops(self, direction: str, nbytes: int) -> list[Op]:
        jax = self._jax
        host = _host_data(nbytes)
        work = float(host.nbytes)

        def not_shared(
            source_pointer: int | None, expected: np.ndarray
        ) -> Callable[[Any], str | None]:
            def check(out: Any) -> str | None:
                if source_pointer is not None and _pointer_of(out) == source_pointer:
                    return "zero-copy view of the source (no transfer happened)"
                return _same_values(out, expected)

            return check

        ops: list[Op] = []
        if direction == "h2d":
            ops.append(
                Op(
                    "device_put(NumPy array)",
                    lambda: jax.device_put(host, self._on_device),
                    work,
                    self._sync,
                    not_shared(_pointer_of(host), host),
                )
            )
            if self._pinned is not None:
                pinned = jax.device_put(host, self._pinned)
                ops.append(
                    Op(
                        "device_put(array in pinned_host memory)",
                        lambda: jax.device_put(pinned, self._on_device),
                        work,
                        self._sync,
                        not_shared(_pointer_of(pinned), host),
                    )
                )
        elif direction == "d2h":
            source = jax.device_put(host, self._on_device)
            if self._pinned is not None:
                ops.append(
                    Op(
                        "device_put(x, pinned_host memory)",
                        lambda: jax.device_put(source, self._pinned),
                        work,
                        self._sync,
                        not_shared(_pointer_of(source), host),
                    )
                )
            fresh: list[Any] = []

            def setup() -> tuple[Any]:
                # A new device array each time: NumPy conversion is cached on the array.
                x = jax.device_put(host, self._on_device).block_until_ready()
                fresh[:] = [x]
                return (x,)

            def check_numpy(out: Any) -> str | None:
                if fresh and _pointer_of(out) == _pointer_of(fresh[0]):
                    return "zero-copy view of the device buffer (no transfer: this device shares host memory)"
                return _same_values(out, host)

            ops.append(
                Op(
                    "np.asarray(x)",
                    np.asarray,
                    work,
                    lambda out: out,
                    check_numpy,
                    setup=setup,
                    batchable=False,
                )
            )
        else:
            raise ValueError(f"direction must be 'h2d' or 'd2h', got {direction!r}")
        return ops

    def copy_op(self, nbytes: int) -> Op:
        host = _host_data(nbytes)
        x = self._jax.device_put(host, self._on_device)
        expected = host + np.float32(1)
        return Op(
            "jit(x + 1)",
            lambda: self._copy(x),
            2.0 * host.nbytes,
            self._sync,
            lambda out: _same_values(out, expected),
        )

    def matmul_op(self, n: int, dtype: str) -> Op | None:
        jnp = self._jax.numpy
        rng = np.random.default_rng(n)
        a_host = rng.standard_normal((n, n), dtype=np.float32)
        b_host = rng.standard_normal((n, n), dtype=np.float32)
        a = self._jax.device_put(jnp.asarray(a_host, dtype=dtype), self._on_device)
        b = self._jax.device_put(jnp.asarray(b_host, dtype=dtype), self._on_device)
        # The reference uses the inputs as the device holds them (rounded to bfloat16 if so).
        a_used, b_used = np.asarray(a.astype(jnp.float32)), np.asarray(b.astype(jnp.float32))
        fn = self._matmul[dtype]
        method = "jnp.matmul, precision=HIGHEST" if dtype == "float32" else "jnp.matmul"
        return Op(
            method,
            lambda: fn(a, b),
            2.0 * n**3,
            self._sync,
            lambda out: _matmul_error(
                np.asarray(out[:8].astype(jnp.float32)), a_used, b_used, dtype
            ),
        )


# --- PyTorch --------------------------------------------------------------------------------------


class TorchSuite:
    """The same probes with PyTorch, on the kind of device JAX uses (``cpu`` or ``gpu``)."""

    def __init__(self, platform: str) -> None:
        import torch

        self._torch = torch
        self.library = f"torch {torch.__version__}"
        self.platform = platform
        if platform == "gpu":
            if not torch.cuda.is_available():
                raise ComparisonUnavailable(
                    "PyTorch is installed without CUDA (or sees no GPU), so it cannot measure the "
                    "GPU JAX uses. Install a CUDA build of PyTorch."
                )
            self.device = torch.device("cuda")
            self.device_kind = torch.cuda.get_device_name(0)
            self.batched = True
        elif platform == "cpu":
            self.device = torch.device("cpu")
            self.device_kind = "cpu"
            self.batched = False
            self.notes = (
                f"PyTorch uses {torch.get_num_threads()} CPU threads (torch.get_num_threads()); "
                "on a machine busy with other work, multi-threaded CPU figures vary a lot",
            )
        else:
            raise ComparisonUnavailable(f"PyTorch cannot run on JAX's {platform!r} devices")

    def _sync(self, out: Any) -> Any:
        if self.device.type == "cuda":
            self._torch.cuda.synchronize()
        return out

    def _check(self, expected: np.ndarray, source: Any = None) -> Callable[[Any], str | None]:
        def check(out: Any) -> str | None:
            if source is not None and out.data_ptr() == source.data_ptr():
                return "shares memory with the source (no transfer happened)"
            return _same_values(out.cpu().numpy(), expected)

        return check

    def transfer_ops(self, direction: str, nbytes: int) -> list[Op]:
        torch = self._torch
        host = _host_data(nbytes)
        work = float(host.nbytes)
        cpu_tensor = torch.from_numpy(host)
        if self.device.type == "cpu":
            # Host and "device" are the same memory: the transfer is a copy into another buffer, as
            # JAX's CPU device_put does. Into a buffer allocated once: a fresh large allocation
            # costs page faults that would swamp the copy.
            target = torch.empty_like(cpu_tensor)
            return [
                Op(
                    "copy_ into a preallocated tensor",
                    lambda: target.copy_(cpu_tensor),
                    work,
                    self._sync,
                    self._check(host, cpu_tensor),
                )
            ]
        ops: list[Op] = []
        if direction == "h2d":
            pinned = cpu_tensor.pin_memory()
            ops.append(
                Op(
                    "pinned tensor .to(cuda, non_blocking=True)",
                    lambda: pinned.to(self.device, non_blocking=True),
                    work,
                    self._sync,
                    self._check(host),
                )
            )
            ops.append(
                Op(
                    "pageable tensor .to(cuda)",
                    lambda: cpu_tensor.to(self.device),
                    work,
                    self._sync,
                    self._check(host),
                )
            )
        elif direction == "d2h":
            source = cpu_tensor.to(self.device)
            target = torch.empty_like(cpu_tensor).pin_memory()
            ops.append(
                Op(
                    "copy_ into pinned tensor (non_blocking)",
                    lambda: target.copy_(source, non_blocking=True),
                    work,
                    self._sync,
                    self._check(host),
                )
            )
            ops.append(Op(".cpu()", source.cpu, work, self._sync, self._check(host)))
        else:
            raise ValueError(f"direction must be 'h2d' or 'd2h', got {direction!r}")
        return ops

    def copy_op(self, nbytes: int) -> Op:
        host = _host_data(nbytes)
        x = self._torch.from_numpy(host).to(self.device)
        y = self._torch.empty_like(x)  # written in place: no allocation inside the timed call
        return Op(
            "torch.add(x, 1, out=y)",
            lambda: self._torch.add(x, 1, out=y),
            2.0 * host.nbytes,
            self._sync,
            self._check(host + np.float32(1)),
        )

    def matmul_op(self, n: int, dtype: str) -> Op | None:
        torch = self._torch
        rng = np.random.default_rng(n)
        a_host = rng.standard_normal((n, n), dtype=np.float32)
        b_host = rng.standard_normal((n, n), dtype=np.float32)
        torch_dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16}[dtype]
        a = torch.from_numpy(a_host).to(self.device, torch_dtype)
        b = torch.from_numpy(b_host).to(self.device, torch_dtype)
        a_used, b_used = a.float().cpu().numpy(), b.float().cpu().numpy()
        if dtype == "float32":
            # Full float32, as JAX's precision=HIGHEST: no TF32 shortcut. (These are PyTorch's
            # defaults; set them anyway in case the environment changed them.)
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.set_float32_matmul_precision("highest")
        return Op(
            "torch.matmul" + (" (TF32 off)" if dtype == "float32" else ""),
            lambda: torch.matmul(a, b),
            2.0 * n**3,
            self._sync,
            lambda out: _matmul_error(out[:8].float().cpu().numpy(), a_used, b_used, dtype),
        )


#: Libraries ``aurora bench --compare`` knows, with the pip package that provides each.
COMPARE_LIBRARIES: dict[str, str] = {"torch": "torch"}


def load_suite(library: str, platform: str) -> ProbeSuite:
    """The probe suite of another library for ``platform``.

    Raises:
        ValueError: the library is not one the course knows.
        ModuleNotFoundError: it is not installed.
        ComparisonUnavailable: it cannot measure that platform.
    """
    if library not in COMPARE_LIBRARIES:
        raise ValueError(
            f"cannot compare with {library!r}; known libraries: {', '.join(COMPARE_LIBRARIES)}"
        )
    try:
        return TorchSuite(platform)
    except ImportError as err:
        raise ModuleNotFoundError(
            f"{library} is not installed in this Python ({err}). Install it with "
            f"`pip install {COMPARE_LIBRARIES[library]}` to compare."
        ) from err


# --- side by side ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class BenchComparison:
    """Two :class:`MachineBench` results, probe by probe (each one's :meth:`~MachineBench.headline`)."""

    first: MachineBench
    second: MachineBench

    def measured(self) -> list[tuple[str, str]]:
        second = set(self.second.measured())
        return [k for k in self.first.measured() if k in second]

    def ratio(self, probe: str, dtype: str | None = None) -> float | None:
        """First library's best divided by the second's; None when either did not measure it."""
        a, b = self.first.headline(probe, dtype), self.second.headline(probe, dtype)
        if a is None or b is None or b.value == 0:
            return None
        return a.value / b.value

    @property
    def lowest_ratio(self) -> float | None:
        ratios = [r for k in self.measured() if (r := self.ratio(*k)) is not None]
        return min(ratios) if ratios else None

    def rows(self) -> list[tuple[str, ...]]:
        rows = []
        for probe, dtype in self.first.measured():
            a, b = self.first.headline(probe, dtype), self.second.headline(probe, dtype)
            ratio = self.ratio(probe, dtype)
            rows.append(
                (
                    _probe_label(probe, dtype),
                    f"{a.value:.3g} {a.unit}" if a else "-",
                    f"{b.value:.3g} {b.unit}" if b else "not measured",
                    f"{ratio:.0%}" if ratio is not None else "-",
                )
            )
        return rows

    def _headers(self) -> tuple[str, ...]:
        a, b = self.first.library.split()[0], self.second.library.split()[0]
        return ("probe", self.first.library, self.second.library, f"{a} / {b}")

    def __str__(self) -> str:
        title = (
            f"Side by side on {self.first.device_kind}: {self.first.library} vs "
            f"{self.second.library} (bandwidth at the largest size, matmul at its best)"
        )
        return title + "\n" + text_table(self._headers(), self.rows())

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return html_table(self._headers(), self.rows(), caption="Side by side")


def compare_benches(first: MachineBench, second: MachineBench) -> BenchComparison:
    """Put two benches of the same machine side by side."""
    if not isinstance(first, MachineBench) or not isinstance(second, MachineBench):
        raise TypeError(
            "compare() takes two MachineBench results (from measure_machine/run_probes)"
        )
    return BenchComparison(first, second)
