"""Questions to a device that some runtimes cannot answer; each returns a neutral value instead.

The machine report (``probe``), the machine picture and the JAX throughput suite all ask a device
for its memories and its memory limit, and all must keep working on runtimes that raise.
"""

from __future__ import annotations

from typing import Any

import jax


def memories(device: jax.Device) -> list[Any]:
    """The memories ``device`` can address (empty when the runtime has no memory spaces)."""
    try:
        return list(device.addressable_memories())
    except Exception:  # older runtimes and some plugins raise instead of returning nothing
        return []


def memory_kinds(device: jax.Device) -> tuple[str, ...]:
    """The kinds (``"device"``, ``"pinned_host"``, ...) of the memories ``device`` addresses."""
    return tuple(str(m.kind) for m in memories(device))


def memory_limit(device: jax.Device) -> int | None:
    """Bytes the runtime lets ``device`` allocate (``memory_stats()["bytes_limit"]``), if known."""
    try:
        stats = device.memory_stats()
    except Exception:  # some backends raise instead of returning None
        return None
    if not stats:
        return None
    limit = stats.get("bytes_limit")
    return int(limit) if limit is not None else None
