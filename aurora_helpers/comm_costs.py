"""A cost model for collectives: bytes each device sends, and a latency-bandwidth time estimate.

Every collective is priced as the bandwidth-optimal ring algorithm prices it, on ``n`` devices
and an array of ``nbytes`` bytes (the *full* array: gathered, or before it is reduced)::

    all-gather, reduce-scatter   (n - 1) / n * nbytes   in n - 1 steps
    all-reduce                 2 (n - 1) / n * nbytes   in 2 (n - 1) steps (reduce-scatter + all-gather)
    all-to-all                   (n - 1) / n * nbytes   in n - 1 steps (nbytes: one device's operand)
    collective-permute                         nbytes   in one step

A device receives as much as it sends. The same formulas read a compiled program
(:func:`compiled_traffic`), so a notebook can assert that its prediction equals what XLA
compiled::

    predicted = ah.collective_cost("all-reduce", grad_bytes, n).sent
    assert ah.compiled_traffic(step, params, batch).sent == predicted
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .collectives import COLLECTIVE_KINDS, CollectiveCounts, CollectiveOp, count_collectives


@dataclass(frozen=True)
class CollectiveCost:
    """What one collective costs each device."""

    kind: str
    """One of :data:`aurora_helpers.COLLECTIVE_KINDS`."""
    nbytes: int
    """The full array's bytes (see the module's table)."""
    devices: int
    """Devices taking part (one group)."""
    sent: Fraction
    """Bytes each device sends (and receives); exact, a fraction when ``nbytes`` does not
    split evenly (a real ring pads the last block; the model does not)."""
    steps: int
    """Sequential ring steps, each paying the latency once."""

    @property
    def received(self) -> Fraction:
        """Bytes each device receives: the same as it sends, for every collective priced here."""
        return self.sent

    def seconds(self, latency: float, bandwidth: float) -> float:
        """The alpha-beta estimate ``steps * latency + sent / bandwidth``.

        Args:
            latency: seconds per step (alpha), e.g. ``5e-6`` for a GPU link.
            bandwidth: bytes per second one device can send (1 / beta), e.g. ``100e9``.
        """
        if latency < 0 or bandwidth <= 0:
            raise ValueError("latency must be >= 0 and bandwidth > 0 (bytes per second)")
        return self.steps * latency + float(self.sent) / bandwidth


def _kind(kind: str) -> str:
    name = kind.replace("_", "-")
    if name not in COLLECTIVE_KINDS:
        raise ValueError(f"unknown collective {kind!r}; choose from {COLLECTIVE_KINDS}")
    return name


def collective_cost(kind: str, nbytes: int, devices: int) -> CollectiveCost:
    """The ring-algorithm cost of one collective over ``devices`` devices.

    Args:
        kind: ``"all-gather"``, ``"reduce-scatter"``, ``"all-reduce"``, ``"all-to-all"`` or
            ``"collective-permute"`` (underscores work too).
        nbytes: the full array: the gathered result of an all-gather, the operand of a
            reduce-scatter or all-reduce, one device's operand of an all-to-all, the block a
            permute sends.
        devices: devices in the group; 1 costs nothing.

    Raises:
        ValueError: an unknown kind, negative bytes, or fewer than one device.
    """
    name = _kind(kind)
    if devices < 1:
        raise ValueError(f"a collective needs at least one device, got {devices}")
    if nbytes < 0:
        raise ValueError(f"nbytes must be >= 0, got {nbytes}")
    if devices == 1:
        return CollectiveCost(name, nbytes, 1, Fraction(0), 0)
    if name == "collective-permute":
        return CollectiveCost(name, nbytes, devices, Fraction(nbytes), 1)
    share = Fraction(devices - 1, devices) * nbytes
    if name == "all-reduce":
        return CollectiveCost(name, nbytes, devices, 2 * share, 2 * (devices - 1))
    return CollectiveCost(name, nbytes, devices, share, devices - 1)


def op_cost(op: CollectiveOp) -> CollectiveCost:
    """The cost of one compiled collective, from its result size and device groups."""
    if op.kind == "collective-permute":
        moving = [pair for pair in op.groups if len(set(pair)) > 1]
        return collective_cost(op.kind, op.result_bytes if moving else 0, 2 if moving else 1)
    # A reduce-scatter's result is one block; the array it reduced is group_size blocks.
    n = op.group_size
    full = op.result_bytes * n if op.kind == "reduce-scatter" else op.result_bytes
    return collective_cost(op.kind, full, n)


@dataclass(frozen=True)
class Traffic:
    """Bytes one device sends in a program, collective by collective."""

    costs: tuple[CollectiveCost, ...]

    @property
    def sent(self) -> Fraction:
        """Bytes each device sends in total (exact)."""
        return sum((c.sent for c in self.costs), Fraction(0))

    def by_kind(self) -> dict[str, Fraction]:
        """``{kind: bytes sent}`` for the kinds that occur."""
        out: dict[str, Fraction] = {}
        for c in self.costs:
            if c.sent:
                out[c.kind] = out.get(c.kind, 0) + c.sent
        return out

    def seconds(self, latency: float, bandwidth: float) -> float:
        """The alpha-beta time of every collective, one after another (no overlap)."""
        return sum(c.seconds(latency, bandwidth) for c in self.costs)

    def __str__(self) -> str:
        if not self.sent:
            return "no bytes sent"
        parts = ", ".join(f"{kind} {float(size):,.1f} B" for kind, size in self.by_kind().items())
        return f"{float(self.sent):,.1f} bytes sent per device ({parts})"


def traffic(costs: Iterable[CollectiveCost]) -> Traffic:
    """A :class:`Traffic` from predicted costs, to compare with :func:`compiled_traffic`."""
    return Traffic(tuple(costs))


def compiled_traffic(f: Any, *args: Any, **kwargs: Any) -> Traffic:
    """The bytes each device sends in a compiled program, read from its collectives.

    Args:
        f: what :func:`aurora_helpers.count_collectives` accepts (a function and its arguments,
            a jitted function, a ``Lowered``/``Compiled`` stage, HLO text), or already a
            :class:`aurora_helpers.CollectiveCounts`.
    """
    counts = f if isinstance(f, CollectiveCounts) else count_collectives(f, *args, **kwargs)
    return Traffic(tuple(op_cost(op) for op in counts.ops))
