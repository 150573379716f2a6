"""Where a collective's bytes travel: four interconnect shapes, and which one a machine has.

A cost model needs two numbers per collective besides the operand's size: how many bytes the
*busiest link* must carry (that sets the bandwidth term of the time) and how many sequential
hops the algorithm takes (that sets the latency term). Both depend on how the devices are wired.
This module gives both, exactly, for four shapes of one group of ``n`` devices:

``"switch"``
    Every device has one port into a full-bisection switch (NVSwitch inside a GPU node; a
    non-blocking InfiniBand/Ethernet fabric across hosts is close to it). Any device reaches any
    other in one hop, and a port carries only its own device's traffic. All-gather,
    reduce-scatter and all-reduce are priced as the ring algorithm NCCL runs over the switch,
    all-to-all as a pairwise exchange. **This is the model the course used before topologies
    existed, and the default.**
``"ring"``
    A one-directional ring: device ``i`` sends only to ``i + 1 (mod n)``. Data for a device
    ``k`` positions on is forwarded by the ``k - 1`` devices in between.
``"bidirectional-ring"`` (alias ``"torus"``)
    One axis of a torus: both directions of every link are used, and the ends wrap around
    (TPU ICI along an axis that has its wraparound link). Every piece of data takes the
    shorter way round; a piece exactly half-way round (``n`` even) goes one fixed way, as in
    the scaling book's own count.
``"line"``
    Both directions, no wraparound (a TPU ICI axis without its wraparound link): data from one
    end must cross every link to reach the other end.

**Which machine has which.** TPU chips are joined by ICI into a 2-D (v5e, v6e) or 3-D (v4p,
v5p) torus; each mesh axis laid along one torus axis is a ``"bidirectional-ring"`` when that axis
has its wraparound link and a ``"line"`` otherwise. v5e/v6e have the wraparound only on an axis
of 16 chips; v4p/v5p only on slices made of whole 4x4x4 cubes (an axis that is a multiple of 4 in
such a slice), so a 2x2x4 has none (the scaling book, "How to Think About TPUs", section on ICI).
GPUs inside one node (H100 SXM, A100 SXM) talk through NVLink and NVSwitch: a ``"switch"``.
Across hosts (TPU DCN, GPU InfiniBand or RoCE) the fabric is close to a ``"switch"`` whose port is
the host's network card. The CPU devices this course simulates share one process's memory: there
are no links at all, and no topology describes them; the model is then a way to reason about a
real machine, not about the simulation.

**Units.** Bytes are exact :class:`~fractions.Fraction` s. A link's bandwidth is always *per
link, per direction* (the scaling book's "one-way" ICI figure, e.g. 4.5e10 B/s for TPU v5e; on a
switch, the port's bandwidth in one direction, e.g. 450 GB/s for H100 NVLink, sold as "900 GB/s"
for both directions). The book's "bidirectional" bandwidth is twice that; its
``T = V / W_bidirectional`` for an all-gather on a full ring is this module's
``"bidirectional-ring"`` load ``(n / 2) · V / n`` over the one-way bandwidth.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

#: The interconnect shapes the cost model prices (see the module's docstring).
TOPOLOGIES: tuple[str, ...] = ("switch", "ring", "bidirectional-ring", "line")

#: The names :func:`aurora_helpers.collective_cost` accepts for ``topology``.
TopologyName = Literal["switch", "ring", "bidirectional-ring", "torus", "line"]

_ALIASES = {"torus": "bidirectional-ring"}


def normalise_topology(topology: str) -> str:
    """The canonical name of ``topology`` (``"torus"`` -> ``"bidirectional-ring"``; ``_`` and
    spaces read as ``-``).

    Raises:
        ValueError: a name that is not one of :data:`TOPOLOGIES` or an alias.
    """
    name = topology.strip().lower().replace("_", "-").replace(" ", "-")
    name = _ALIASES.get(name, name)
    if name not in TOPOLOGIES:
        raise ValueError(
            f"unknown topology {topology!r}; choose from {TOPOLOGIES} (or 'torus' for a "
            "bidirectional ring)"
        )
    return name


def _triangle(k: int) -> int:
    """1 + 2 + ... + k."""
    return k * (k + 1) // 2


def gather_shards_on_busiest_link(devices: int, topology: str) -> int:
    """How many of the ``n`` shards of an all-gather cross the busiest link in one direction.

    The same count holds for a reduce-scatter, whose partial sums travel the reverse paths.
    switch and ring: ``n - 1`` (a port or link passes on every shard but one); line: ``n - 1``
    (the end device receives all others' shards through its one link); bidirectional ring:
    ``floor(n / 2)`` (each shard travels half-way round in each direction).
    """
    n = devices
    if n <= 1:
        return 0
    if normalise_topology(topology) == "bidirectional-ring":
        return n // 2
    return n - 1


def all_to_all_chunks_on_busiest_link(devices: int, topology: str) -> int:
    """How many of one device's ``n`` chunks' worth of data cross the busiest link in one
    direction during an all-to-all (a chunk is ``1/n`` of one device's operand).

    Each device sends one chunk to every other device, and a chunk travels its own path:
    switch: ``n - 1`` (a port sends its device's chunks only); ring: ``n (n - 1) / 2`` (a link
    carries, for every distance ``k``, the chunks of the ``k`` devices whose path crosses it);
    bidirectional ring: ``1 + 2 + ... + floor(n / 2)``, the book's count for the direction that
    also carries the half-way chunks; line: ``floor(n / 2) · ceil(n / 2)`` (the middle link
    carries every chunk from the left half to the right half).
    """
    n = devices
    if n <= 1:
        return 0
    name = normalise_topology(topology)
    if name == "switch":
        return n - 1
    if name == "ring":
        return _triangle(n - 1)
    if name == "bidirectional-ring":
        return _triangle(n // 2)
    return (n // 2) * (n - n // 2)


def hops(kind: str, devices: int, topology: str) -> int:
    """Sequential steps of the collective on ``topology``: the latency term's multiplier.

    On a ring, torus axis or line, the hops the farthest piece of data travels (``n - 1``, or
    ``floor(n / 2)`` both ways round a torus axis); on a switch, the rounds of the ring
    (all-gather, reduce-scatter) or pairwise-exchange (all-to-all) algorithm, ``n - 1``. An
    all-reduce is a reduce-scatter then an all-gather: twice the hops. A collective-permute is
    priced as one send to a neighbour: 1.
    """
    n = devices
    if n <= 1:
        return 0
    if kind == "collective-permute":
        return 1
    one_way = n // 2 if normalise_topology(topology) == "bidirectional-ring" else n - 1
    return 2 * one_way if kind == "all-reduce" else one_way


def busiest_link_bytes(kind: str, nbytes: int, devices: int, topology: str) -> Fraction:
    """Bytes the busiest link carries in one direction, added over the collective's phases.

    ``nbytes`` follows :func:`aurora_helpers.collective_cost`: the whole array for all-gather,
    reduce-scatter and all-reduce, one device's operand for all-to-all, the block for a
    permute. An all-reduce has two phases (reduce-scatter, then all-gather) that run one after
    the other, so its figure is the two phases' busiest loads added up; divided by the one-way
    link bandwidth it is the time the bytes take.
    """
    n = devices
    if n <= 1:
        return Fraction(0)
    if kind == "collective-permute":
        return Fraction(nbytes)
    if kind == "all-to-all":
        return Fraction(all_to_all_chunks_on_busiest_link(n, topology) * nbytes, n)
    one_phase = Fraction(gather_shards_on_busiest_link(n, topology) * nbytes, n)
    return 2 * one_phase if kind == "all-reduce" else one_phase


@dataclass(frozen=True)
class Interconnect:
    """One machine's links, with the figures its source states (nothing here is measured)."""

    name: str
    link_bandwidth: float
    """Bytes per second one link (or switch port) carries in one direction."""
    hop_latency: float | None
    """Seconds one hop costs however small the message, where the source states one."""
    source: str
    wraparound: Literal["always", "axis of 16", "whole cubes", "never"]
    """When a mesh axis along this interconnect is a ring rather than a line: ``"always"`` for
    a switch (every device is one hop from every other), ``"axis of 16"`` (TPU v5e, v6e),
    ``"whole cubes"`` (TPU v4p, v5p: slices made of 4x4x4 cubes)."""

    def topology(self, axis_size: int, slice_shape: tuple[int, ...] | None = None) -> str:
        """The :data:`TOPOLOGIES` name of a mesh axis of ``axis_size`` devices on this machine.

        Args:
            axis_size: devices along the axis.
            slice_shape: the whole slice's chip grid, e.g. ``(4, 4, 4)``; TPU v4p/v5p have
                wraparound links only when every side is a multiple of 4 (whole cubes).
                Defaults to an axis in a slice of whole cubes.
        """
        if self.wraparound == "always":
            return "switch"
        if axis_size <= 2:
            return "line"  # two chips: one link either way, wrapped or not
        if self.wraparound == "axis of 16":
            return "bidirectional-ring" if axis_size == 16 else "line"
        if self.wraparound == "whole cubes":
            sides = slice_shape if slice_shape is not None else (axis_size,)
            cubes = all(side % 4 == 0 for side in sides)
            return "bidirectional-ring" if cubes and axis_size % 4 == 0 else "line"
        return "line"


_BOOK = (
    "How to Scale Your Model (the scaling book): 'How to Think About TPUs' (ICI table, one-way "
    "per link) and 'Sharded Matrices' ('A note on ICI latency': about 1 us per hop)"
)

#: Interconnects with their published figures, by short name. The TPU rows are the scaling
#: book's one-way ICI bandwidth per link and its "around 1 us" per hop; DCN is the book's
#: per-host figure; NVLink is NVIDIA's H100 SXM datasheet (900 GB/s for both directions).
INTERCONNECTS: dict[str, Interconnect] = {
    "tpu-v4p": Interconnect("TPU v4p ICI", 4.5e10, 1e-6, _BOOK, "whole cubes"),
    "tpu-v5p": Interconnect("TPU v5p ICI", 9e10, 1e-6, _BOOK, "whole cubes"),
    "tpu-v5e": Interconnect("TPU v5e ICI", 4.5e10, 1e-6, _BOOK, "axis of 16"),
    "tpu-v6e": Interconnect("TPU v6e ICI", 9e10, 1e-6, _BOOK, "axis of 16"),
    "tpu-dcn": Interconnect(
        "TPU DCN (per host)",
        2.5e10,
        None,
        "the scaling book, 'How to Think About TPUs': 'typically around 2.5e10 bytes / second "
        "per host' (no direction stated; taken here as one direction)",
        "always",
    ),
    "h100-nvlink": Interconnect(
        "NVIDIA H100 SXM NVLink (NVSwitch)", 450e9, None, "NVIDIA H100 datasheet", "always"
    ),
}
