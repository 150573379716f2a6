"""Read JAX's device memory profile: which Python functions allocated the live device buffers.

``jax.profiler.device_memory_profile()`` returns a gzip-compressed pprof protobuf (the format of
Go's pprof tool). This module decodes the few fields a reader needs, with the standard library
only: every sample's bytes, its kind (``"buffer"`` for a live array's memory, ``"executable"``
for a compiled program's) and the Python functions on the stack that made it, innermost first.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass


@dataclass(frozen=True)
class MemorySample:
    """One entry of a device memory profile."""

    bytes: int
    """Bytes the entry holds on the device."""
    kind: str
    """``"buffer"`` (an array's memory), ``"executable"`` (a compiled program), or ``""``."""
    functions: tuple[str, ...]
    """The Python functions of the allocating stack, innermost first."""


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value, shift = 0, 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def _fields(data: bytes) -> dict[int, list[int | bytes]]:
    """One protobuf message: field number -> its values (ints, or bytes for nested/strings)."""
    found: dict[int, list[int | bytes]] = {}
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        value: int | bytes
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 2:
            size, pos = _varint(data, pos)
            value, pos = data[pos : pos + size], pos + size
        elif wire == 1:
            value, pos = int.from_bytes(data[pos : pos + 8], "little"), pos + 8
        elif wire == 5:
            value, pos = int.from_bytes(data[pos : pos + 4], "little"), pos + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        found.setdefault(number, []).append(value)
    return found


def _ints(values: list[int | bytes]) -> list[int]:
    """Repeated integers, packed (one bytes value) or not."""
    out: list[int] = []
    for value in values:
        if isinstance(value, bytes):
            pos = 0
            while pos < len(value):
                item, pos = _varint(value, pos)
                out.append(item)
        else:
            out.append(value)
    return out


def read_memory_profile(profile: bytes) -> list[MemorySample]:
    """The samples of a device memory profile (gzip-compressed or not), as :class:`MemorySample`."""
    raw = gzip.decompress(profile) if profile[:2] == b"\x1f\x8b" else profile
    top = _fields(raw)
    strings = [s.decode("utf-8", "replace") for s in top.get(6, []) if isinstance(s, bytes)]
    types = [_fields(v) for v in top.get(1, []) if isinstance(v, bytes)]
    unit_of = [strings[_ints(t.get(2, [0]))[0]] for t in types]
    byte_column = unit_of.index("bytes") if "bytes" in unit_of else len(unit_of) - 1
    functions = {}
    for entry in top.get(5, []):
        fields = _fields(entry) if isinstance(entry, bytes) else {}
        functions[_ints(fields.get(1, [0]))[0]] = strings[_ints(fields.get(2, [0]))[0]]
    locations = {}
    for entry in top.get(4, []):
        fields = _fields(entry) if isinstance(entry, bytes) else {}
        lines = [_fields(v) for v in fields.get(4, []) if isinstance(v, bytes)]
        names = [functions.get(_ints(line.get(1, [0]))[0], "") for line in lines]
        locations[_ints(fields.get(1, [0]))[0]] = names
    samples = []
    for entry in top.get(2, []):
        fields = _fields(entry) if isinstance(entry, bytes) else {}
        values = _ints(fields.get(2, []))
        kind = ""
        for label in fields.get(3, []):
            parts = _fields(label) if isinstance(label, bytes) else {}
            if strings[_ints(parts.get(1, [0]))[0]] == "kind":
                kind = strings[_ints(parts.get(2, [0]))[0]]
        stack = [name for loc in _ints(fields.get(1, [])) for name in locations.get(loc, [])]
        samples.append(MemorySample(values[byte_column] if values else 0, kind, tuple(stack)))
    return samples
