"""A cost model for collectives: the bytes they move, on which links, and a time estimate.

Every collective is priced on one group of ``n`` devices and an array of ``nbytes`` bytes (the
*full* array: gathered, or before it is reduced). Two byte counts answer two questions:

``sent``, what each device sends: the same on every topology, and the figure the course's
tables use (it is NCCL's "bus bytes" convention)::

    all-gather, reduce-scatter   (n - 1) / n * nbytes   (nbytes: the whole array)
    all-reduce                 2 (n - 1) / n * nbytes   (a reduce-scatter, then an all-gather)
    all-to-all                   (n - 1) / n * nbytes   (nbytes: one device's operand)
    collective-permute                         nbytes   (the block each device sends)

``link_bytes``, what the busiest link carries in one direction, which is what the bandwidth
term of the time depends on. It depends on the wiring (``topology``, see
:mod:`aurora_helpers.compiled.topologies`): on a ``"switch"`` (the default, and the course's model before
topologies) it equals ``sent``; on a ``"ring"``, ``"bidirectional-ring"`` (a torus axis) or
``"line"`` data is forwarded through devices in between, and an all-to-all's link load is no
longer its payload (the scaling book: AllToAll takes a quarter of an AllGather's time on a
bidirectional ring, half on a one-directional one). ``steps`` counts the sequential hops or
rounds, each paying the latency once. The time is the alpha-beta estimate
``steps * latency + link_bytes / bandwidth`` (or the book's ``max`` of the two), with
``bandwidth`` the bytes per second *one link carries in one direction* (see
:meth:`CollectiveCost.seconds`).

**Comparing with the compiled program.** :func:`compiled_traffic` reads the collectives XLA
compiled and prices each one from its own size and device group;
:func:`compare_traffic` puts that next to a prediction, collective kind by group size::

    predicted = ah.traffic([ah.collective_cost("all-reduce", grad_bytes, n)])
    assert ah.compare_traffic(predicted, ah.compiled_traffic(step, params, batch)).matches

What such an assert proves: the program holds the collectives the layout implies, of those
kinds, over groups of those sizes, moving arrays of those sizes (the comparison is of the
operands' bytes, read from the compiled text, per kind and group size). What it does not prove:
anything about *time* (nothing was run, and this CPU simulation has no links), nor that the byte
formulas are right, since both sides go through the same formulas. The formulas are checked
independently in the course's tests: hand-written rings of ``ppermute`` (point-to-point, so
their bytes per link are in the program, :meth:`aurora_helpers.CollectiveCounts.permute_link_bytes`)
carry exactly ``link_bytes``, and the scaling book's worked numbers come out of
:func:`collective_cost`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from .._display import html_table, text_table
from .collectives import COLLECTIVE_KINDS, CollectiveCounts, CollectiveOp, count_collectives
from .topologies import busiest_link_bytes, hops, normalise_topology

_UNSET = Fraction(-1)


@dataclass(frozen=True)
class CollectiveCost:
    """What one collective costs each device, and its busiest link."""

    kind: str
    """One of :data:`aurora_helpers.COLLECTIVE_KINDS`."""
    nbytes: int
    """The full array's bytes (see the module's table)."""
    devices: int
    """Devices taking part (one group)."""
    sent: Fraction
    """Bytes each device sends (and receives) by the module's table, whatever the topology;
    exact, a fraction when ``nbytes`` does not split evenly (a real ring pads the last block; the
    model does not)."""
    steps: int
    """Sequential steps (hops on a ring, torus axis or line; rounds on a switch), each paying
    the latency once."""
    topology: str = "switch"
    """The wiring priced: one of :data:`aurora_helpers.TOPOLOGIES`."""
    link_bytes: Fraction = _UNSET
    """Bytes the busiest link carries in one direction, added over the collective's phases: what
    the bandwidth term of :meth:`seconds` divides. Equals ``sent`` on a switch (and when left
    out)."""

    def __post_init__(self) -> None:
        if self.link_bytes == _UNSET:
            object.__setattr__(self, "link_bytes", self.sent)

    @property
    def received(self) -> Fraction:
        """Bytes each device receives: the same as it sends, for every collective priced here."""
        return self.sent

    def seconds(
        self, latency: float, bandwidth: float, *, combine: Literal["sum", "max"] = "sum"
    ) -> float:
        """The time estimate of this collective, from a latency per step and a link bandwidth.

        Args:
            latency: seconds per step (alpha), e.g. ``1e-6`` per ICI hop (the scaling book).
            bandwidth: bytes per second **one link carries in one direction** (1 / beta): the
                scaling book's one-way ICI figure (TPU v5e: ``4.5e10``; its "bidirectional"
                ``9e10`` is both directions together, which the ``"bidirectional-ring"``
                topology already uses), or a switch port's bandwidth in one direction (H100
                NVLink: ``450e9``).
            combine: ``"sum"``, the alpha-beta model ``steps * latency + link_bytes /
                bandwidth`` (start-up and transfer one after the other); ``"max"``, the scaling
                book's ``max(steps * latency, link_bytes / bandwidth)`` (a hop costs at least
                the latency, otherwise its bytes' time), which makes a small collective exactly
                latency-bound.
        """
        if latency < 0 or bandwidth <= 0:
            raise ValueError("latency must be >= 0 and bandwidth > 0 (bytes per second)")
        start_up, transfer = self.steps * latency, float(self.link_bytes) / bandwidth
        if combine == "sum":
            return start_up + transfer
        if combine == "max":
            return max(start_up, transfer)
        raise ValueError(f"combine must be 'sum' or 'max', got {combine!r}")


def _kind(kind: str) -> str:
    name = kind.replace("_", "-")
    if name not in COLLECTIVE_KINDS:
        raise ValueError(f"unknown collective {kind!r}; choose from {COLLECTIVE_KINDS}")
    return name


def _whole_bytes(value: Any, what: str) -> int:
    """``value`` as an int: a whole float (``4096 / 2``, a NumPy integer) is accepted; anything
    else is a clear error rather than one from deep inside the arithmetic."""
    try:
        whole = int(value)
    except (TypeError, ValueError, OverflowError):
        whole = None
    if whole is not None and whole == value:
        return whole
    raise ValueError(
        f"{what} must be a whole number, got {value!r}: count bytes and devices in integers "
        "(use // rather than /, or int(...) once the count is whole)"
    )


def collective_cost(
    kind: str, nbytes: int, devices: int, *, topology: str = "switch"
) -> CollectiveCost:
    """The cost of one collective over ``devices`` devices wired as ``topology``.

    Args:
        kind: ``"all-gather"``, ``"reduce-scatter"``, ``"all-reduce"``, ``"all-to-all"`` or
            ``"collective-permute"`` (underscores work too).
        nbytes: the full array: the gathered result of an all-gather, the operand of a
            reduce-scatter or all-reduce, one device's operand of an all-to-all, the block a
            permute sends.
        devices: devices in the group; 1 costs nothing.
        topology: ``"switch"`` (default: the course's original model, a full-bisection switch
            such as NVSwitch), ``"ring"`` (one direction), ``"bidirectional-ring"`` or
            ``"torus"`` (a torus axis with its wraparound link, the scaling book's model),
            ``"line"`` (both directions, no wraparound). See :mod:`aurora_helpers.compiled.topologies`
            for which machine has which. It changes ``link_bytes`` and ``steps``, never
            ``sent``.

    Raises:
        ValueError: an unknown kind or topology, negative bytes, or fewer than one device.
    """
    name = _kind(kind)
    wiring = normalise_topology(topology)
    nbytes = _whole_bytes(nbytes, "nbytes")
    devices = _whole_bytes(devices, "devices")
    if devices < 1:
        raise ValueError(f"a collective needs at least one device, got {devices}")
    if nbytes < 0:
        raise ValueError(f"nbytes must be >= 0, got {nbytes}")
    link = busiest_link_bytes(name, nbytes, devices, wiring)
    steps = hops(name, devices, wiring)
    if devices == 1:
        sent = Fraction(0)
    elif name == "collective-permute":
        sent = Fraction(nbytes)
    else:
        share = Fraction(devices - 1, devices) * nbytes
        sent = 2 * share if name == "all-reduce" else share
    return CollectiveCost(name, nbytes, devices, sent, steps, wiring, link)


def _op_cost(op: CollectiveOp, *, topology: str = "switch") -> CollectiveCost:
    """The cost of one compiled collective, from its result size and device groups.

    Args:
        op: one instruction of :attr:`aurora_helpers.CollectiveCounts.ops`.
        topology: the wiring to price it on (see :func:`collective_cost`).
    """
    if op.kind == "collective-permute":
        moving = [pair for pair in op.groups if len(set(pair)) > 1]
        return collective_cost(
            op.kind, op.result_bytes if moving else 0, 2 if moving else 1, topology=topology
        )
    # A reduce-scatter's result is one block; the array it reduced is group_size blocks.
    n = op.group_size
    full = op.result_bytes * n if op.kind == "reduce-scatter" else op.result_bytes
    return collective_cost(op.kind, full, n, topology=topology)


@dataclass(frozen=True)
class Traffic:
    """Bytes one device sends in a program, collective by collective."""

    costs: tuple[CollectiveCost, ...]

    @property
    def sent(self) -> Fraction:
        """Bytes each device sends in total (exact)."""
        return sum((c.sent for c in self.costs), Fraction(0))

    @property
    def link_bytes(self) -> Fraction:
        """The collectives' busiest-link bytes added up (they run one after another)."""
        return sum((c.link_bytes for c in self.costs), Fraction(0))

    def by_kind(self) -> dict[str, Fraction]:
        """``{kind: bytes sent}`` for the kinds that occur."""
        out: dict[str, Fraction] = {}
        for c in self.costs:
            if c.sent:
                out[c.kind] = out.get(c.kind, 0) + c.sent
        return out

    def by_group(self) -> dict[tuple[str, int], int]:
        """``{(kind, group size): bytes of the arrays}`` for the collectives that move data.

        The bytes are each collective's ``nbytes`` (the full array, as
        :func:`collective_cost` takes it), added up per kind and group size, so the comparison
        does not go through a byte formula: an all-reduce of 4 B over 8 devices and an
        all-gather of 8 B over 8 devices both *send* 7 B, but read ``{("all-reduce", 8): 4}``
        and ``{("all-gather", 8): 8}`` here. Sums make it robust to XLA's combiner, which
        merges several small collectives of one kind and group into one. Two mesh axes of the
        same size are one key: tell them apart with ``op.mesh_axes(mesh)`` on the counts. A
        collective-permute's group is the pair a block travels between: its key is always
        ``("collective-permute", 2)``, whatever ``devices`` its cost was given.
        """
        out: dict[tuple[str, int], int] = {}
        for c in self.costs:
            if c.sent:
                out[_group_key(c)] = out.get(_group_key(c), 0) + c.nbytes
        return out

    def seconds(
        self, latency: float, bandwidth: float, *, combine: Literal["sum", "max"] = "sum"
    ) -> float:
        """The time of every collective, one after another (no overlap); the arguments are
        those of :meth:`CollectiveCost.seconds`."""
        return sum(c.seconds(latency, bandwidth, combine=combine) for c in self.costs)

    def __str__(self) -> str:
        if not self.sent:
            return "no bytes sent"
        parts = ", ".join(f"{kind} {float(size):,.1f} B" for kind, size in self.by_kind().items())
        return f"{float(self.sent):,.1f} bytes sent per device ({parts})"


def _group_key(cost: CollectiveCost) -> tuple[str, int]:
    """(kind, group size); a permute's group is the (source, target) pair."""
    return (cost.kind, 2 if cost.kind == "collective-permute" else cost.devices)


def traffic(costs: Iterable[CollectiveCost]) -> Traffic:
    """A :class:`Traffic` from predicted costs, to compare with :func:`compiled_traffic`."""
    return Traffic(tuple(costs))


def compiled_traffic(
    f: Any,
    *args: Any,
    topology: str = "switch",
    per_execution: bool = False,
    **kwargs: Any,
) -> Traffic:
    """The bytes each device sends in a compiled program, read from its collectives.

    Args:
        f: what :func:`aurora_helpers.count_collectives` accepts (a function and its arguments,
            a jitted function, a ``Lowered``/``Compiled`` stage, HLO text), or already a
            :class:`aurora_helpers.CollectiveCounts`.
        topology: the wiring to price each collective on (see :func:`collective_cost`).
        per_execution: price a collective inside a loop once per iteration (its
            :attr:`~aurora_helpers.CollectiveOp.executions`), so the traffic is that of one run
            of the program; by default each instruction counts once, as it appears in the text.
        *args, **kwargs: the arguments ``f`` is compiled for.

    Raises:
        ValueError: with ``per_execution``, a collective in a loop whose trip count the program
            does not record (the message says what to do instead).
    """
    counts = f if isinstance(f, CollectiveCounts) else count_collectives(f, *args, **kwargs)
    costs: list[CollectiveCost] = []
    for op in counts.ops:
        times = op.known_executions() if per_execution else 1
        costs.extend([_op_cost(op, topology=topology)] * times)
    return Traffic(tuple(costs))


@dataclass(frozen=True)
class TrafficRow:
    """One (kind, group size) of a :class:`TrafficComparison`."""

    kind: str
    devices: int
    predicted_bytes: int
    compiled_bytes: int
    predicted_ops: int
    compiled_ops: int

    @property
    def matches(self) -> bool:
        """Whether both sides move arrays of the same total size (the op counts may differ:
        XLA combines small collectives)."""
        return self.predicted_bytes == self.compiled_bytes


@dataclass(frozen=True)
class TrafficComparison:
    """A prediction and a compiled program side by side, per collective kind and group size."""

    rows: tuple[TrafficRow, ...]

    @property
    def matches(self) -> bool:
        """True when every (kind, group size) moves the same bytes on both sides."""
        return all(row.matches for row in self.rows)

    @property
    def mismatches(self) -> tuple[str, ...]:
        """One sentence per (kind, group size) that differs."""
        return tuple(
            f"{row.kind} over groups of {row.devices}: predicted {row.predicted_bytes:,} B in "
            f"{row.predicted_ops} op(s), compiled {row.compiled_bytes:,} B in "
            f"{row.compiled_ops} op(s)"
            for row in self.rows
            if not row.matches
        )

    def _table(self) -> tuple[tuple[str, ...], list[tuple[object, ...]]]:
        headers = ("collective", "group", "predicted bytes", "compiled bytes", "ops", "same")
        rows: list[tuple[object, ...]] = [
            (
                row.kind,
                row.devices,
                f"{row.predicted_bytes:,}",
                f"{row.compiled_bytes:,}",
                f"{row.predicted_ops} / {row.compiled_ops}",
                "yes" if row.matches else "NO",
            )
            for row in self.rows
        ]
        return headers, rows

    def __str__(self) -> str:
        if not self.rows:
            return "neither side moves data"
        verdict = "prediction = compiled" if self.matches else "; ".join(self.mismatches)
        return f"{text_table(*self._table())}\n{verdict}"

    def _repr_html_(self) -> str:
        headers, rows = self._table()
        caption = "prediction = compiled, per kind and group" if self.matches else "differences"
        return html_table(headers, rows, caption=caption)


def compare_traffic(
    predicted: Traffic | Iterable[CollectiveCost], compiled: Traffic
) -> TrafficComparison:
    """Compare a prediction with a compiled program's traffic per (kind, group size).

    Args:
        predicted: a :class:`Traffic` (from :func:`traffic`) or the costs themselves.
        compiled: :func:`compiled_traffic` of the program.

    Returns:
        A :class:`TrafficComparison`: ``.matches`` (every kind and group size moves arrays of
        the same total size), ``.mismatches`` (what differs, in words), a table when shown.
        See the module's docstring for what a match proves and what it does not.
    """
    want = predicted if isinstance(predicted, Traffic) else Traffic(tuple(predicted))

    def ops(side: Traffic) -> dict[tuple[str, int], int]:
        out: dict[tuple[str, int], int] = {}
        for c in side.costs:
            if c.sent:
                out[_group_key(c)] = out.get(_group_key(c), 0) + 1
        return out

    want_bytes, got_bytes = want.by_group(), compiled.by_group()
    want_ops, got_ops = ops(want), ops(compiled)
    keys = sorted(
        set(want_bytes) | set(got_bytes), key=lambda k: (COLLECTIVE_KINDS.index(k[0]), k[1])
    )
    return TrafficComparison(
        tuple(
            TrafficRow(
                kind,
                devices,
                want_bytes.get((kind, devices), 0),
                got_bytes.get((kind, devices), 0),
                want_ops.get((kind, devices), 0),
                got_ops.get((kind, devices), 0),
            )
            for kind, devices in keys
        )
    )
