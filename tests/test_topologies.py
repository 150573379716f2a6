"""The closed forms of aurora_helpers.compiled.topologies against a brute-force routing of every piece of
data along the paths the module's docstring describes (no formula shared with the module)."""

from collections import Counter
from fractions import Fraction

import pytest

import aurora_helpers as ah
from aurora_helpers.compiled.topologies import (
    Interconnect,
    busiest_link_bytes,
    hops,
    normalise_topology,
)

SWITCH = "S"


def _path(topology, n, src, dst):
    """The directed links a piece of data crosses from device src to device dst."""
    if topology == "switch":
        return [(src, SWITCH), (SWITCH, dst)]
    if topology == "ring":
        return [((src + k) % n, (src + k + 1) % n) for k in range((dst - src) % n)]
    if topology == "bidirectional-ring":
        right = (dst - src) % n
        if right <= n // 2:  # the shorter way; half-way round goes right
            return [((src + k) % n, (src + k + 1) % n) for k in range(right)]
        return [((src - k) % n, (src - k - 1) % n) for k in range(n - right)]
    step = 1 if dst > src else -1  # line
    return [(k, k + step) for k in range(src, dst, step)]


def _gather_paths(topology, n, src):
    """Every link one shard crosses on its way to all other devices (it is forwarded, never
    sent twice over one link). On a switch the all-gather runs as a ring through the switch."""
    if topology == "switch":
        links = set()
        for k in range(n - 1):
            hop_from, hop_to = (src + k) % n, (src + k + 1) % n
            links |= {(hop_from, SWITCH), (SWITCH, hop_to)}
        return links, n - 1
    paths = [_path(topology, n, src, dst) for dst in range(n) if dst != src]
    return {link for p in paths for link in p}, max((len(p) for p in paths), default=0)


def _simulate(kind, n, topology, nbytes):
    """(busiest link bytes, hops) by routing every shard or chunk."""
    if n == 1:
        return Fraction(0), 0
    if kind == "collective-permute":  # a shift by one: each device to its neighbour
        loads = Counter()
        for src in range(n):
            dst = src + 1
            if topology != "line" or dst < n:
                for link in _path(topology, n, src, dst % n):
                    loads[link] += 1
        return Fraction(max(loads.values()) * nbytes), 1
    if kind == "all-to-all":
        loads = Counter()
        longest = 0
        for src in range(n):
            for dst in range(n):
                if src != dst:
                    path = _path(topology, n, src, dst)
                    longest = max(longest, len(path))
                    for link in path:
                        loads[link] += 1
        steps = n - 1 if topology == "switch" else longest  # pairwise exchange on a switch
        return Fraction(max(loads.values()) * nbytes, n), steps
    loads = Counter()
    steps = 0
    for src in range(n):
        links, longest = _gather_paths(topology, n, src)
        steps = max(steps, longest)
        for link in links:
            loads[link] += 1
    gather = Fraction(max(loads.values()) * nbytes, n)
    # A reduce-scatter sends partial sums along the same links, reversed: the busiest reversed
    # link carries what the busiest forward link did.
    scatter_loads = Counter({(b, a): v for (a, b), v in loads.items()})
    scatter = Fraction(max(scatter_loads.values()) * nbytes, n)
    assert scatter == gather
    if kind == "all-reduce":
        return gather + scatter, 2 * steps
    return gather, steps


@pytest.mark.parametrize("topology", ah.TOPOLOGIES)
@pytest.mark.parametrize("kind", ah.COLLECTIVE_KINDS)
def test_closed_forms_equal_routing_every_piece(kind, topology):
    nbytes = 7 * 720720  # divisible by every n below, and odd, so no factor of two hides
    for n in range(1, 14):
        want_link, want_hops = _simulate(kind, n, topology, nbytes)
        assert busiest_link_bytes(kind, nbytes, n, topology) == want_link, (kind, topology, n)
        assert hops(kind, n, topology) == want_hops, (kind, topology, n)


def test_topology_names_and_aliases():
    assert ah.TOPOLOGIES == ("switch", "ring", "bidirectional-ring", "line")
    assert normalise_topology("torus") == "bidirectional-ring"
    assert normalise_topology("Bidirectional ring") == "bidirectional-ring"
    assert normalise_topology("bidirectional_ring") == "bidirectional-ring"
    with pytest.raises(ValueError, match=r"unknown topology 'mesh'.*torus"):
        normalise_topology("mesh")


def test_which_machine_has_which_topology():
    # The scaling book, "How to Think About TPUs": v5e/v6e wrap only on an axis of 16; v4p/v5p
    # only in slices of whole 4x4x4 cubes (a 2x2x4 has no wraparound); GPUs in a node: NVSwitch.
    v5e, v5p = ah.INTERCONNECTS["tpu-v5e"], ah.INTERCONNECTS["tpu-v5p"]
    assert v5e.topology(16) == "bidirectional-ring" and v5e.topology(4) == "line"
    assert v5e.topology(8) == "line" and v5e.topology(2) == "line"
    assert v5p.topology(4, (4, 4, 4)) == "bidirectional-ring"
    assert v5p.topology(8, (4, 4, 8)) == "bidirectional-ring"
    assert v5p.topology(4, (2, 2, 4)) == "line"
    assert v5p.topology(4) == "bidirectional-ring" and v5p.topology(6) == "line"
    assert ah.INTERCONNECTS["h100-nvlink"].topology(8) == "switch"
    assert ah.INTERCONNECTS["tpu-dcn"].topology(3) == "switch"
    # One-way figures per link (the book's "bidi" column is twice these).
    assert v5e.link_bandwidth == 4.5e10 and v5p.link_bandwidth == 9e10
    assert ah.INTERCONNECTS["tpu-v4p"].link_bandwidth == 4.5e10
    assert ah.INTERCONNECTS["tpu-v6e"].link_bandwidth == 9e10
    assert v5e.hop_latency == 1e-6 and ah.INTERCONNECTS["h100-nvlink"].hop_latency is None
    never = Interconnect("isolated", 1.0, None, "test", "never")
    assert never.topology(16) == "line"
