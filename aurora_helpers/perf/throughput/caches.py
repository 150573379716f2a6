"""The CPU's data caches, read from the operating system, to size bandwidth sweeps.

A bandwidth measured on an array that fits in a cache is the cache's bandwidth, not memory's.
The sweeps of :func:`~aurora_helpers.measure_machine` therefore read the cache sizes, go well past
the last level, and label each size with the level its bytes fit in.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

#: Assumed last-level cache when the operating system does not say (a large server L3).
FALLBACK_LAST_LEVEL = 32 * 2**20
#: How far past the last cache level the largest bandwidth size goes.
PAST_LAST_LEVEL = 4
#: The largest bandwidth size on a CPU, whatever the caches (keeps the sweep quick).
MAX_CPU_BYTES = 2**30

_SYSFS = Path("/sys/devices/system/cpu/cpu0/cache")


@dataclass(frozen=True)
class CacheLevel:
    """One data (or unified) cache level of one core: ``name`` such as ``"L3"``, and its bytes."""

    name: str
    size: int


def _parse_size(text: str) -> int:
    """``"32768K"`` -> 33554432; ``"2M"`` -> 2097152; a plain number is bytes."""
    text = text.strip().upper()
    scale = {"K": 2**10, "M": 2**20, "G": 2**30}.get(text[-1:], 1)
    return int(text.rstrip("KMG")) * scale


def read_caches(sysfs: Path = _SYSFS) -> tuple[CacheLevel, ...]:
    """The data caches of this machine's first core, smallest first; empty when unknown.

    Linux lists them under ``/sys/devices/system/cpu/cpu0/cache``; elsewhere ``os.sysconf``
    answers where the C library knows (``SC_LEVEL2_CACHE_SIZE``, ...).
    """
    found: dict[str, int] = {}
    if sysfs.is_dir():
        for index in sorted(sysfs.glob("index*")):
            try:
                kind = (index / "type").read_text().strip()
                level = int((index / "level").read_text())
                size = _parse_size((index / "size").read_text())
            except (OSError, ValueError):
                continue
            if kind != "Instruction" and size > 0:
                found[f"L{level}"] = max(size, found.get(f"L{level}", 0))
    if not found:
        for level in (1, 2, 3, 4):
            name = f"SC_LEVEL{level}_{'DCACHE' if level == 1 else 'CACHE'}_SIZE"
            try:
                size = os.sysconf(name)
            except (ValueError, OSError):
                continue
            if size > 0:
                found[f"L{level}"] = size
    return tuple(CacheLevel(n, s) for n, s in sorted(found.items(), key=lambda kv: kv[1]))


def last_level_bytes(caches: tuple[CacheLevel, ...]) -> int:
    """Bytes of the last cache level (:data:`FALLBACK_LAST_LEVEL` when unknown)."""
    return caches[-1].size if caches else FALLBACK_LAST_LEVEL


def memory_size(caches: tuple[CacheLevel, ...]) -> int:
    """A power-of-two size :data:`PAST_LAST_LEVEL` times the last level: certainly memory."""
    target = PAST_LAST_LEVEL * last_level_bytes(caches)
    return min(MAX_CPU_BYTES, 1 << (target - 1).bit_length())


def level_of(footprint: int, caches: tuple[CacheLevel, ...]) -> str:
    """The smallest cache level that holds ``footprint`` bytes, else ``"memory"``.

    With unknown caches, sizes up to :data:`FALLBACK_LAST_LEVEL` read ``"cache?"``.
    """
    for cache in caches:
        if footprint <= cache.size:
            return cache.name
    if not caches and footprint <= FALLBACK_LAST_LEVEL:
        return "cache?"
    return "memory"
