"""Read back what ``jax.profiler.trace`` wrote, so a notebook can assert from a trace and draw it.

``jax.profiler.trace(folder)`` writes, under ``folder/plugins/profile/<run>/``, a
``<host>.xplane.pb`` (the XSpace protocol buffer that TensorBoard's profile plugin and XProf read)
and a ``<host>.trace.json.gz`` (the same events in the Chrome trace-event JSON format); with
``create_perfetto_trace=True`` also ``perfetto_trace.json.gz``. :func:`read_trace` turns either
file into a flat list of :class:`TraceEvent`::

    events = ah.read_trace(folder)
    ops = [e for e in events if e.hlo_module == "jit_step" and e.device == 0]

Every event keeps the names it carries in the trace: the thread (the trace's *line*) and the
plane (the process: ``/host:CPU`` for everything the CPU backend runs, ``/device:GPU:0`` and so on
for an accelerator's own timeline). The events of a compiled program's operations carry the
statistics ``hlo_op`` (the instruction's name in ``compiled.as_text()``), ``hlo_module`` and
``device_ordinal``; on a GPU or TPU the device comes from the plane's name where the event lacks
that statistic. :func:`op_dependencies` reads, from the same compiled text, which instructions an
operation depends on and which depend on it, so that an order seen in a trace can be compared
with the order the program imposes. :func:`draw_trace` draws the operations, one row per device.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..compiled.hlo_schedule import parse_schedule

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_DEVICE_PLANE = re.compile(r"^/device:[A-Za-z_]+:(\d+)")


@dataclass(frozen=True)
class TraceEvent:
    """One event of a profiler trace: what ran, where, from when, for how long."""

    name: str
    """The event's name (for a compiled operation: the instruction's name, e.g. ``all-reduce.3``)."""
    start_s: float
    """Start, in seconds on the trace's own clock (one origin for all the events of a trace)."""
    duration_s: float
    """Duration in seconds."""
    thread: str = ""
    """The line (thread) it was recorded on, e.g. ``python`` or ``tf_XLAExecute/...``."""
    plane: str = ""
    """The plane (process) holding that line, e.g. ``/host:CPU`` or ``/device:GPU:0``."""
    device: int | None = None
    """The device it ran for (the ``device_ordinal`` statistic, else the plane's number)."""
    hlo_op: str | None = None
    """The compiled instruction it executed, when it is one (the ``hlo_op`` statistic)."""
    hlo_module: str | None = None
    """The compiled module of that instruction, e.g. ``jit_train_step``."""
    args: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    """Every statistic the event carries, as text."""

    @property
    def end_s(self) -> float:
        """When it ended (start plus duration)."""
        return self.start_s + self.duration_s

    def overlaps(self, other: TraceEvent) -> bool:
        """Whether the two intervals share some time (touching at one instant does not count)."""
        return self.start_s < other.end_s and other.start_s < self.end_s


def _make_event(
    name: str, start_s: float, duration_s: float, thread: str, plane: str, stats: Mapping[str, Any]
) -> TraceEvent:
    args = {str(k): str(v) for k, v in stats.items()}
    device: int | None = None
    if "device_ordinal" in args:
        try:
            device = int(args["device_ordinal"])
        except ValueError:
            device = None
    if device is None:
        match = _DEVICE_PLANE.match(plane)
        device = int(match.group(1)) if match else None
    return TraceEvent(
        name=name,
        start_s=start_s,
        duration_s=duration_s,
        thread=thread,
        plane=plane,
        device=device,
        hlo_op=args.get("hlo_op"),
        hlo_module=args.get("hlo_module"),
        args=args,
    )


def _read_json(path: Path) -> list[TraceEvent]:
    raw = path.read_bytes()
    data = json.loads(gzip.decompress(raw) if path.name.endswith(".gz") else raw)
    records = data["traceEvents"] if isinstance(data, dict) else data
    planes: dict[Any, str] = {}
    threads: dict[tuple[Any, Any], str] = {}
    for r in records:
        if isinstance(r, dict) and r.get("ph") == "M":
            if r.get("name") == "process_name":
                planes[r.get("pid")] = str(r.get("args", {}).get("name", ""))
            elif r.get("name") == "thread_name":
                threads[(r.get("pid"), r.get("tid"))] = str(r.get("args", {}).get("name", ""))
    events = []
    for r in records:
        if not isinstance(r, dict) or r.get("ph") != "X":
            continue
        pid, tid = r.get("pid"), r.get("tid")
        events.append(
            _make_event(
                str(r.get("name", "")),
                float(r.get("ts", 0.0)) / 1e6,  # the format's unit is the microsecond
                float(r.get("dur", 0.0)) / 1e6,
                threads.get((pid, tid), str(tid)),
                planes.get(pid, str(pid)),
                r.get("args") or {},
            )
        )
    return events


def _read_xplane(path: Path) -> list[TraceEvent]:
    import jax.profiler

    with warnings.catch_warnings():
        # Python 3.12+ warns once that the extension's stats type has no __module__; not ours.
        warnings.filterwarnings("ignore", message="builtin type", category=DeprecationWarning)
        data = jax.profiler.ProfileData.from_file(str(path))
        events = []
        for plane in data.planes:
            for line in plane.lines:
                for e in line.events:
                    events.append(
                        _make_event(
                            e.name,
                            e.start_ns / 1e9,
                            e.duration_ns / 1e9,
                            line.name,
                            plane.name,
                            dict(e.stats),
                        )
                    )
    return events


def _trace_file(folder: Path) -> Path:
    found = sorted(folder.rglob("*.xplane.pb")) or sorted(folder.rglob("*.trace.json.gz"))
    if not found:
        raise FileNotFoundError(
            f"no *.xplane.pb or *.trace.json.gz under {folder}: is it the folder given to "
            "jax.profiler.trace, and did the trace end (the with block closed, or stop_trace())?"
        )
    if len(found) > 1:
        raise ValueError(
            f"{folder} holds {len(found)} trace files ({', '.join(str(p) for p in found)}): "
            "pass the one to read (a folder is read only when it holds one trace)"
        )
    return found[0]


def read_trace(path: str | os.PathLike[str]) -> list[TraceEvent]:
    """The events of a profiler trace, in the order the file lists them.

    Args:
        path: the folder given to ``jax.profiler.trace`` (it must hold one trace), or one file
            in it: a ``.xplane.pb`` (read with ``jax.profiler.ProfileData``; where JAX lacks it,
            the ``.trace.json.gz`` beside the file is read instead) or a ``.json``/``.json.gz``
            in the Chrome trace-event format (``*.trace.json.gz``, ``perfetto_trace.json.gz``).

    Raises:
        FileNotFoundError: no trace there.
        ValueError: a folder holds several traces, or the file is of another kind.
    """
    where = Path(path)
    file = _trace_file(where) if where.is_dir() else where
    if not file.is_file():
        raise FileNotFoundError(f"no trace file at {file}")
    if file.name.endswith(".xplane.pb"):
        import jax.profiler

        if hasattr(jax.profiler, "ProfileData"):
            return _read_xplane(file)
        beside = file.with_name(file.name[: -len(".xplane.pb")] + ".trace.json.gz")
        if not beside.is_file():
            raise FileNotFoundError(
                f"this JAX has no jax.profiler.ProfileData to read {file.name}, and there is no "
                f"{beside.name} beside it"
            )
        file = beside
    if file.name.endswith((".json", ".json.gz")):
        return _read_json(file)
    raise ValueError(f"{file.name} is not a trace file read here (.xplane.pb, .json, .json.gz)")


@dataclass(frozen=True)
class OpDependencies:
    """Which instructions of a compiled program one instruction depends on, and which on it."""

    op: str
    """The instruction's name, as in the compiled text (without ``%``)."""
    upstream: frozenset[str]
    """Instructions whose results it needs, directly or through others."""
    downstream: frozenset[str]
    """Instructions that need its result, directly or through others."""
    unrelated: frozenset[str]
    """The other instructions of the entry computation: neither before nor after it by data,
    so free to run at the same time as it."""


def op_dependencies(hlo_text: str, op: str) -> OpDependencies:
    """What instruction ``op`` of a compiled program's entry computation depends on, and what
    depends on it, following operands (``compiled.as_text()``, as :func:`read_trace`'s ``hlo_op``
    names them).

    Raises:
        KeyError: ``op`` is not an instruction of the entry computation.
    """
    program = parse_schedule(hlo_text)
    name = op.lstrip("%")
    found = [ins for ins in program.instructions if ins.name == name]
    if not found:
        raise KeyError(f"{op!r} is not an instruction of the entry computation")
    upstream, downstream = program.upstream(found[0]), program.downstream(found[0])
    unrelated = {ins.name for ins in program.instructions} - upstream - downstream - {name}
    return OpDependencies(name, upstream, downstream, frozenset(unrelated))


def draw_trace(
    events: Iterable[TraceEvent],
    *,
    highlight: Iterable[str] = (),
    title: str | None = None,
) -> Figure:
    """The operations among ``events`` (those with an ``hlo_op`` and a device), one row per
    device, on the trace's clock from the first of them; the operations named in ``highlight``
    in a colour of their own. Returns a closed Figure (a notebook shows it when a cell ends
    with it).

    Raises:
        ValueError: none of the events is an operation on a device.
    """
    from .._figures import new_figure

    ops = [e for e in events if e.hlo_op is not None and e.device is not None]
    if not ops:
        raise ValueError("no event with an hlo_op and a device: nothing to draw")
    marked = set(highlight)
    devices = sorted({e.device for e in ops if e.device is not None})
    origin = min(e.start_s for e in ops)
    span = max(e.end_s for e in ops) - origin
    scale, unit = (1e6, "µs") if span < 1e-3 else (1e3, "ms") if span < 1 else (1.0, "s")
    fig = new_figure(8, 0.9 + 0.35 * len(devices), layout="constrained")
    ax = fig.add_subplot()
    import matplotlib

    colours = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    labelled: set[str] = set()

    def label(what: str) -> str | None:
        if what in labelled:
            return None
        labelled.add(what)
        return what

    for row, device in enumerate(devices):
        mine = [e for e in ops if e.device == device]
        other = [
            ((e.start_s - origin) * scale, e.duration_s * scale)
            for e in mine
            if e.hlo_op not in marked
        ]
        hot = [
            ((e.start_s - origin) * scale, e.duration_s * scale) for e in mine if e.hlo_op in marked
        ]
        ax.broken_barh(
            other,
            (row - 0.4, 0.8),
            facecolors=colours[0],
            edgecolor="white",
            linewidth=0.3,
            label=label("other operations"),
        )
        if hot:
            ax.broken_barh(
                hot, (row - 0.4, 0.8), facecolors=colours[1], label=label(", ".join(sorted(marked)))
            )
    ax.set_yticks(range(len(devices)), labels=[f"device {d}" for d in devices])
    ax.invert_yaxis()
    ax.set_xlabel(f"time on the trace's clock from the first operation ({unit})")
    ax.set_xlim(0, span * scale * 1.02)
    ax.set_title(title or "Operations of a traced program, per device")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small", frameon=False)
    return fig
