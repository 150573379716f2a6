"""Count the collectives in a compiled program, so a notebook can assert how much a layout talks.

XLA inserts communication while it partitions a program for a mesh; the only reliable way to see
it is the compiled module's text (``jax.jit(f).lower(*args).compile().as_text()``). This module
finds the five collective operations in that text, with the device groups each one runs over::

    counts = ah.count_collectives(step, params, batch)
    assert counts["all-reduce"] == 1 and counts.total == 1
    counts.ops[0].mesh_axes(mesh)        # ('data',): the devices that sum together

Asynchronous forms (``all-reduce-start``/``-done`` on GPU) count once, as their base operation.
The counts are static: a collective inside a loop body counts once however often the loop runs.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from ._display import RawHTML, html_table

#: The collective operations counted, by their HLO names.
COLLECTIVE_KINDS: tuple[str, ...] = (
    "all-reduce",
    "all-gather",
    "reduce-scatter",
    "all-to-all",
    "collective-permute",
)

# An instruction's opcode is followed by "(": "%x = f32[8]{0} all-reduce(f32[8]{0} %y), ...".
# The look-behind keeps out instruction names ("%all-reduce.1 = ...") and longer opcodes
# ("ragged-all-to-all(", "all-reduce-done(").
_OPCODE = re.compile(
    r"(?<![\w.%-])(?P<kind>" + "|".join(COLLECTIVE_KINDS) + r")(?P<start>-start)?\("
)
_RESULT = re.compile(r"=\s*(?P<result>.*?)\s*$")
_NUM_PARTITIONS = re.compile(r"\bnum_partitions=(\d+)")
_NUM_REPLICAS = re.compile(r"\breplica_count=(\d+)")
_IOTA_BODY = r"\[(?P<shape>[\d,]+)\]<=\[(?P<dims>[\d,]+)\](?:T\((?P<perm>[\d,]+)\))?"
_IOTA = re.compile(_IOTA_BODY)
_IOTA_GROUPS = re.compile(r"replica_groups=" + _IOTA_BODY)
# XLA in JAX 0.10.x prints mesh device ids without the target shape: "[4,2]T(1,0)".
_IOTA_IDS = re.compile(r"\[(?P<dims>[\d,]+)\](?:T\((?P<perm>[\d,]+)\))?")
_MESH_GROUPS = re.compile(
    r"replica_groups=mesh\[(?P<axes>[^\]]*)\](?:,\s*device_ids=\((?P<ids>[^)]*(?:\)[^)]*)?)\))?"
    r"\s*\{(?P<group>[^}]*)\}"
)
_MESH_AXIS = re.compile(r"([^,=\s]+)=(\d+)")
_GROUP_AXIS = re.compile(r"(?P<name>[^,:\s]+)(?::\((?P<pre>\d+)\)(?P<size>\d+))?")
_LIST_GROUPS = re.compile(r"replica_groups=\{(?P<body>(?:\{[\d,\s]*\},?\s*)*)\}")
_PAIRS = re.compile(r"source_target_pairs=\{(?P<body>(?:\{[\d,\s]*\},?\s*)*)\}")
_INNER_BRACES = re.compile(r"\{([\d,\s]*)\}")
# An array type in HLO text: "f32[8,4]{1,0}", "bf16[]", "pred[3]".
_ARRAY_TYPE = re.compile(r"\b(?P<dtype>[a-z]+\d*(?:e\d+m\d+\w*)?)\[(?P<dims>[\d,]*)\]")

#: Bytes per element of the HLO element types (sub-byte types round up to one byte).
HLO_DTYPE_BYTES: dict[str, int] = {
    "pred": 1,
    "s8": 1,
    "u8": 1,
    "s4": 1,
    "u4": 1,
    "s16": 2,
    "u16": 2,
    "f16": 2,
    "bf16": 2,
    "s32": 4,
    "u32": 4,
    "f32": 4,
    "s64": 8,
    "u64": 8,
    "f64": 8,
    "c64": 8,
    "c128": 16,
}


def hlo_type_bytes(result_type: str) -> int:
    """Bytes of an HLO result type: ``"f32[8,4]{1,0}"`` -> 128; a tuple
    ``"(f32[8]{0}, f32[])"`` -> 36 (every array in it, added up).

    Raises:
        ValueError: an element type this table does not know (add it to ``HLO_DTYPE_BYTES``).
    """
    total = 0
    for match in _ARRAY_TYPE.finditer(result_type):
        dtype = match["dtype"]
        if dtype.startswith("f8") or dtype.startswith("f4"):
            size = 1
        elif dtype in HLO_DTYPE_BYTES:
            size = HLO_DTYPE_BYTES[dtype]
        else:
            raise ValueError(f"unknown HLO element type {dtype!r} in {result_type!r}")
        total += size * int(
            np.prod([int(d) for d in match["dims"].split(",") if d], dtype=np.int64)
        )
    return total


def _normalise_kind(kind: str) -> str:
    name = kind.replace("_", "-")
    if name not in COLLECTIVE_KINDS:
        raise KeyError(f"{kind!r} is not a collective counted here; choose from {COLLECTIVE_KINDS}")
    return name


def _int_lists(body: str) -> tuple[tuple[int, ...], ...]:
    return tuple(
        tuple(int(v) for v in inner.replace(" ", "").split(",") if v)
        for inner in _INNER_BRACES.findall(body)
    )


def _iota(shape: str, dims: str, perm: str | None) -> np.ndarray:
    """XLA's compact ``[shape]<=[dims]T(perm)``: iota over ``dims``, transposed, reshaped."""
    ids = np.arange(int(np.prod([int(v) for v in dims.split(",")]))).reshape(
        [int(v) for v in dims.split(",")]
    )
    if perm:
        ids = ids.transpose([int(v) for v in perm.split(",")])
    return ids.reshape([int(v) for v in shape.split(",")])


def _mesh_groups(match: re.Match[str]) -> tuple[tuple[int, ...], ...]:
    """Groups from the mesh form ``mesh['x'=4,'y'=2] {'y'}``: devices that differ only along
    the listed axes (or sub-axes ``'x':(pre)size``) form one group."""
    axes = [(name.strip("'\""), int(size)) for name, size in _MESH_AXIS.findall(match["axes"])]
    sizes = [size for _, size in axes]
    if match["ids"]:
        iota = _IOTA.fullmatch(match["ids"].strip())
        short = _IOTA_IDS.fullmatch(match["ids"].strip())
        if iota:
            ids = _iota(iota["shape"], iota["dims"], iota["perm"]).reshape(-1)
        elif short:
            ids = _iota(short["dims"], short["dims"], short["perm"]).reshape(-1)
        else:
            ids = np.array([int(v) for v in re.findall(r"\d+", match["ids"])])
    else:
        ids = np.arange(int(np.prod(sizes)))
    index = {name: i for i, (name, _) in enumerate(axes)}
    grouped: list[list[tuple[int, int]]] = [[] for _ in axes]  # (pre, size) digits per axis
    for ref in _GROUP_AXIS.finditer(match["group"]):
        axis = index[ref["name"].strip("'\"")]
        pre = int(ref["pre"]) if ref["pre"] else 1
        grouped[axis].append((pre, int(ref["size"]) if ref["size"] else sizes[axis]))
    groups: dict[tuple[int, ...], list[int]] = {}
    for position, coords in enumerate(np.ndindex(*sizes)):
        key = tuple(
            c - sum(((c // pre) % size) * pre for pre, size in grouped[a])
            for a, c in enumerate(coords)
        )
        groups.setdefault(key, []).append(int(ids[position]))
    return tuple(tuple(sorted(g)) for g in sorted(groups.values()))


def _groups(line: str, participants: int) -> tuple[tuple[int, ...], ...]:
    """The device groups of one instruction; for a permute, its (source, target) pairs.

    Reads the three forms XLA prints: explicit ``{{0,1},{2,3}}``, compact ``[2,2]<=[4]``, and
    (newer XLA) mesh axes ``mesh['x'=2,'y'=2] {'y'}``. Empty groups mean one group of all.
    """
    pairs = _PAIRS.search(line)
    if pairs:
        return _int_lists(pairs["body"])
    mesh = _MESH_GROUPS.search(line)
    if mesh:
        try:
            return _mesh_groups(mesh)
        except (KeyError, IndexError, ValueError):
            return ()  # a form this reader does not know; the counts are still right
    iota = _IOTA_GROUPS.search(line)
    if iota:
        ids = _iota(iota["shape"], iota["dims"], iota["perm"])
        return tuple(tuple(int(v) for v in row) for row in ids)
    listed = _LIST_GROUPS.search(line)
    groups = _int_lists(listed["body"]) if listed else ()
    return groups or (tuple(range(participants)),)


@dataclass(frozen=True)
class CollectiveOp:
    """One collective instruction of a compiled program."""

    kind: str
    """One of :data:`COLLECTIVE_KINDS`."""
    result: str
    """The result type as the HLO text writes it, e.g. ``f32[8,4]{1,0}`` (a tuple when combined)."""
    groups: tuple[tuple[int, ...], ...]
    """Devices that communicate, as positions in the program's device list (for a jit over a mesh:
    ``mesh.devices.flat`` order). For ``collective-permute``: the (source, target) pairs. Empty
    when the groups are written in a form this module cannot read."""
    line: str
    """The instruction, as printed."""

    @property
    def result_bytes(self) -> int:
        """Bytes of this instruction's result on one device (all arrays of a combined tuple).

        For an all-gather that is the gathered array; for a reduce-scatter, one device's block
        of the reduced array (the operand is ``group_size`` times larger)."""
        return hlo_type_bytes(self.result)

    @property
    def group_size(self) -> int:
        """Devices in each group (for a permute: 2, a source and its target)."""
        if not self.groups:
            raise ValueError(f"could not read the device groups of: {self.line}")
        return len(self.groups[0])

    @property
    def trivial(self) -> bool:
        """True when no data moves between devices: every group is one device (a ``psum`` over
        a mesh axis of size 1 compiles to such an all-reduce), or every permute pair is a
        device sending to itself."""
        if not self.groups:
            return False  # unknown groups: assume data moves
        if self.kind == "collective-permute":
            return all(len(set(pair)) <= 1 for pair in self.groups)
        return all(len(group) <= 1 for group in self.groups)

    def mesh_axes(self, mesh: jax.sharding.Mesh) -> tuple[str, ...]:
        """The mesh axes this collective runs along (those whose coordinate differs in a group).

        Args:
            mesh: the :class:`jax.sharding.Mesh` the program was compiled for.

        Raises:
            ValueError: a device position in the instruction is outside the mesh.
        """
        if not self.groups:
            raise ValueError(f"could not read the device groups of: {self.line}")
        shape = tuple(mesh.devices.shape)
        size = int(np.prod(shape))
        varying: set[int] = set()
        for group in self.groups:
            if any(not 0 <= p < size for p in group):
                raise ValueError(
                    f"{self.kind} names device positions {group}, but the mesh has {size} devices;"
                    " pass the mesh the program was compiled for"
                )
            coords = np.array([np.unravel_index(p, shape) for p in group]).reshape(len(group), -1)
            varying.update(int(a) for a in np.flatnonzero((coords != coords[0]).any(axis=0)))
        return tuple(name for i, name in enumerate(mesh.axis_names) if i in varying)

    def __str__(self) -> str:
        return f"{self.kind} -> {self.result}"


@dataclass(frozen=True)
class CollectiveCounts(Mapping[str, int]):
    """The collectives of one compiled program: a mapping from kind to count, plus the details.

    ``counts["all-reduce"]`` (or ``counts["all_reduce"]``) is how many all-reduce instructions
    the program holds; every kind in :data:`COLLECTIVE_KINDS` is a key, zero when absent.
    """

    ops: tuple[CollectiveOp, ...]
    participants: int
    """Devices the program runs on (``num_partitions`` times ``replica_count``)."""

    def __getitem__(self, kind: str) -> int:
        name = _normalise_kind(kind)
        return sum(op.kind == name for op in self.ops)

    def __iter__(self) -> Iterator[str]:
        return iter(COLLECTIVE_KINDS)

    def __len__(self) -> int:
        return len(COLLECTIVE_KINDS)

    @property
    def total(self) -> int:
        """All collectives together; 0 means the program needs no communication."""
        return len(self.ops)

    def as_dict(self, *, nonzero: bool = False) -> dict[str, int]:
        """``{kind: count}``; with ``nonzero=True`` only the kinds that occur."""
        return {k: v for k, v in self.items() if v or not nonzero}

    def of_kind(self, kind: str) -> tuple[CollectiveOp, ...]:
        """The instructions of one kind, in program order."""
        name = _normalise_kind(kind)
        return tuple(op for op in self.ops if op.kind == name)

    def __str__(self) -> str:
        if not self.ops:
            return f"no collectives (program on {self.participants} device(s))"
        parts = ", ".join(f"{v} {k}" for k, v in self.as_dict(nonzero=True).items())
        return f"{parts} (program on {self.participants} device(s))"

    def __repr__(self) -> str:
        return f"CollectiveCounts({self.as_dict(nonzero=True)}, participants={self.participants})"

    def _repr_html_(self) -> str:
        if not self.ops:
            return f"<div>{html.escape(str(self))}</div>"
        rows = [
            (
                op.kind,
                RawHTML(f"<code>{html.escape(op.result)}</code>"),
                f"{len(op.groups)} group(s) of {len(op.groups[0])}",
            )
            for op in self.ops
        ]
        return html_table(("collective", "result", "devices"), rows, caption=str(self))


def parse_collectives(hlo_text: str, *, include_trivial: bool = False) -> CollectiveCounts:
    """The collectives in the text of a compiled HLO module (``compiled.as_text()``).

    Collectives that move no data (:attr:`CollectiveOp.trivial`, e.g. a ``psum`` on one device)
    are left out unless ``include_trivial`` is true.
    """
    if not isinstance(hlo_text, str):
        raise TypeError(
            f"expected the HLO text of a compiled program, got {type(hlo_text).__name__}; "
            "pass jax.jit(f).lower(*args).compile().as_text() or use count_collectives(f, *args)"
        )
    partitions = _NUM_PARTITIONS.search(hlo_text)
    replicas = _NUM_REPLICAS.search(hlo_text)
    participants = (int(partitions.group(1)) if partitions else 1) * (
        int(replicas.group(1)) if replicas else 1
    )
    ops = []
    for line in hlo_text.splitlines():
        match = _OPCODE.search(line)
        if match is None or "=" not in line[: match.start()]:
            continue
        result = _RESULT.search(line[: match.start()])
        op = CollectiveOp(
            kind=match.group("kind"),
            result=result.group("result") if result else "",
            groups=_groups(line[match.end() :], participants),
            line=line.strip(),
        )
        if include_trivial or not op.trivial:
            ops.append(op)
    return CollectiveCounts(ops=tuple(ops), participants=participants)


def compiled_text(f: Any, *args: Any, **kwargs: Any) -> str:
    """The compiled HLO text of ``f`` for these arguments.

    ``f`` may be a function (jitted here), a jitted function (its own ``in_shardings`` etc.
    apply), a ``Lowered`` or ``Compiled`` stage, or already the text.
    """
    if isinstance(f, (str, jax.stages.Lowered, jax.stages.Compiled)):
        if args or kwargs:
            raise TypeError(
                f"arguments are only needed with a function; a {type(f).__name__} is already "
                "specialised to its arguments"
            )
        if isinstance(f, str):
            return f
        stage = f.compile() if isinstance(f, jax.stages.Lowered) else f
    elif callable(f):
        jitted = f if hasattr(f, "lower") else jax.jit(f)
        stage = jitted.lower(*args, **kwargs).compile()
    else:
        raise TypeError(
            f"cannot read collectives from a {type(f).__name__}; pass a function and its "
            "arguments, a jitted function, jax.jit(f).lower(...) or its .compile()"
        )
    text = stage.as_text()
    if not isinstance(text, str):
        raise TypeError("this compiled program has no HLO text (as_text() returned None)")
    return text


def count_collectives(
    f: Any, *args: Any, include_trivial: bool = False, **kwargs: Any
) -> CollectiveCounts:
    """Compile ``f`` for ``args`` and count its all-reduce, all-gather, reduce-scatter,
    all-to-all and collective-permute instructions.

    Args:
        f: a function (it is jitted), a jitted function, a ``Lowered``/``Compiled`` stage, or
            compiled HLO text.
        *args, **kwargs: the arguments to lower ``f`` for (arrays or ``jax.ShapeDtypeStruct``).
        include_trivial: also count collectives that move no data (one device per group).
            XLA keeps some of those, e.g. for a ``psum`` inside ``shard_map`` on one device;
            they are left out by default so that "no communication" reads as zero.

    Returns:
        A :class:`CollectiveCounts`: ``counts["all-reduce"]``, ``counts.total``, ``counts.ops``.
    """
    return parse_collectives(compiled_text(f, *args, **kwargs), include_trivial=include_trivial)
