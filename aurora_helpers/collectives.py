"""Count the collectives in a compiled program, so a notebook can assert how much a layout talks.

XLA inserts communication while it partitions a program for a mesh; the only reliable way to see
it is the compiled module's text (``jax.jit(f).lower(*args).compile().as_text()``). This module
finds the five collective operations in that text, with the device groups each one runs over::

    counts = ah.count_collectives(step, params, batch)
    assert counts["all-reduce"] == 1 and counts.total == 1
    counts.ops[0].mesh_axes(mesh)        # ('data',): the devices that sum together

Asynchronous forms (``all-reduce-start``/``-done`` on GPU) count once, as their base operation.

**Loops.** The counts are static: ``counts["all-reduce"]`` is how many all-reduce *instructions*
the program holds, and an instruction inside the body of a ``while`` loop (what ``lax.scan``,
``fori_loop`` and ``while_loop`` compile to) counts once however often the loop runs. Each
instruction also knows how many times it runs per execution of the program
(:attr:`CollectiveOp.executions`), read from the trip count XLA records on each loop
(``known_trip_count`` in the loop's ``backend_config``), multiplied through nested loops;
:meth:`CollectiveCounts.executed` and ``as_dict(per_execution=True)`` add those up::

    counts = ah.count_collectives(accumulate, params, batches)   # psum inside a scan of 4
    counts["all-reduce"], counts.executed("all-reduce")          # 1, 4
"""

from __future__ import annotations

import dataclasses
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
# A computation's header: "%region_0.2 (p: f32[2]) -> f32[2] {" or "ENTRY %main.3 (...) -> ... {"
# (not indented; instructions are).
_COMPUTATION = re.compile(r"^(?P<entry>ENTRY\s+)?%?(?P<name>[^\s(=]+)\s*(?:\(.*)?\{\s*$")
# References to other computations inside an instruction: "body=%region_0", "calls=%fused",
# "branch_computations={%a, %b}".
_CALLED = re.compile(r"\b(?P<attr>\w+)=(?:%(?P<one>[\w.\-]+)|\{(?P<many>%[^}]*)\})")
# XLA records a loop's trip count in its backend_config: {"known_trip_count":{"n":"5"}} (as JAX
# 0.9.0 and 0.12 print it; the pattern also reads the same JSON quoted inside a string, \"n\").
_TRIP_COUNT = re.compile(r'known_trip_count\\?"\s*:\s*\{\s*\\?"n\\?"\s*:\s*\\?"?(?P<n>\d+)')
_ASYNC_FOLLOW_UP = re.compile(r"\basync-(?:update|done)\(")
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
    executions: int | None = 1
    """How many times this instruction runs in one execution of the program: 1 outside loops,
    the product of the enclosing loops' trip counts inside them (as XLA records them,
    ``known_trip_count``). ``None`` when that is not known: a loop whose trip count XLA did not
    record (a ``while_loop`` whose bound depends on the data) or a branch of a conditional
    (it may run or not)."""

    def known_executions(self) -> int:
        """:attr:`executions`, or an error that says why it is unknown and what to do instead.

        Raises:
            ValueError: the instruction sits in a loop of unknown trip count or in a branch.
        """
        if self.executions is None:
            raise ValueError(
                f"the {self.kind} {self.result} runs inside a loop whose trip count the compiled "
                "program does not record (a while_loop whose bound depends on the data) or in a "
                "branch of a conditional, so how often it runs is not known from the program; "
                "use the static count (counts[kind]) and multiply by the iterations you know"
            )
        return self.executions

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

    def as_dict(self, *, nonzero: bool = False, per_execution: bool = False) -> dict[str, int]:
        """``{kind: count}``; with ``nonzero=True`` only the kinds that occur.

        Args:
            nonzero: leave out the kinds that do not occur.
            per_execution: count how many times each kind *runs* in one execution of the
                program (loop bodies times their trip counts, :meth:`executed`) instead of the
                instructions the program holds.

        Raises:
            ValueError: with ``per_execution``, a collective in a loop of unknown trip count.
        """
        counts = {
            kind: self.executed(kind) if per_execution else self[kind] for kind in COLLECTIVE_KINDS
        }
        return {k: v for k, v in counts.items() if v or not nonzero}

    def executed(self, kind: str) -> int:
        """How many collectives of ``kind`` run in one execution of the program: each
        instruction counted :attr:`CollectiveOp.executions` times (once outside loops).

        Raises:
            ValueError: one of them sits in a loop whose trip count XLA did not record, or in a
                branch of a conditional: the number of runs is not in the program.
        """
        return sum(op.known_executions() for op in self.of_kind(kind))

    @property
    def in_loops(self) -> tuple[CollectiveOp, ...]:
        """The instructions that run other than once per execution (inside loops or branches)."""
        return tuple(op for op in self.ops if op.executions != 1)

    def permute_link_bytes(self, *, per_execution: bool = False) -> dict[tuple[int, int], int]:
        """Bytes each (source, target) device pair carries in the program's collective-permutes.

        A permute is point-to-point, so these are what the links between the pairs carry, read
        from the program alone: a hand-written algorithm (a ring of ``ppermute`` s) can be
        checked this way against a cost formula. The other collectives leave their algorithm to
        the backend, so their link traffic is not in the program and is not counted here.

        Args:
            per_execution: count a permute inside a loop once per iteration.

        Raises:
            ValueError: with ``per_execution``, a permute in a loop of unknown trip count.
        """
        loads: dict[tuple[int, int], int] = {}
        for op in self.of_kind("collective-permute"):
            times = op.known_executions() if per_execution else 1
            for pair in op.groups:
                if len(pair) == 2 and pair[0] != pair[1]:
                    key = (pair[0], pair[1])
                    loads[key] = loads.get(key, 0) + times * op.result_bytes
        return loads

    def of_kind(self, kind: str) -> tuple[CollectiveOp, ...]:
        """The instructions of one kind, in program order."""
        name = _normalise_kind(kind)
        return tuple(op for op in self.ops if op.kind == name)

    def __str__(self) -> str:
        if not self.ops:
            return f"no collectives (program on {self.participants} device(s))"
        parts = ", ".join(f"{v} {k}" for k, v in self.as_dict(nonzero=True).items())
        text = f"{parts} (program on {self.participants} device(s))"
        if self.in_loops:
            try:
                executed = self.as_dict(nonzero=True, per_execution=True)
            except ValueError:
                unknown = sorted({op.kind for op in self.in_loops if op.executions is None})
                text += (
                    f"; {', '.join(unknown)} runs an unknown number of times (in a loop of "
                    "unknown trip count, or a branch)"
                )
            else:
                runs = ", ".join(f"{v} {k}" for k, v in executed.items())
                text += f"; run per execution, loops counted: {runs}"
        return text

    def __repr__(self) -> str:
        return f"CollectiveCounts({self.as_dict(nonzero=True)}, participants={self.participants})"

    def _repr_html_(self) -> str:
        if not self.ops:
            return f"<div>{html.escape(str(self))}</div>"
        rows = [
            (
                op.kind,
                RawHTML(f"<code>{html.escape(op.result)}</code>"),
                f"{len(op.groups)} group(s) of {len(op.groups[0])}" if op.groups else "unknown",
                "unknown" if op.executions is None else op.executions,
            )
            for op in self.ops
        ]
        return html_table(
            ("collective", "result", "devices", "runs per execution"), rows, caption=str(self)
        )


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
    found: list[tuple[CollectiveOp, str | None]] = []  # each op and the computation holding it
    calls: dict[str, list[tuple[str, int | None]]] = {}  # callee -> [(caller, runs per call)]
    entry: str | None = None
    current: str | None = None
    for line in hlo_text.splitlines():
        header = _COMPUTATION.match(line)
        if header:
            current = header["name"]
            entry = current if header["entry"] else entry
            continue
        if line.rstrip() == "}":
            current = None
            continue
        if current is not None:
            _record_calls(line, current, calls)
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
            found.append((op, current))
    runs = _Runs(entry, calls)
    ops = tuple(
        op if computation is None else dataclasses.replace(op, executions=runs(computation))
        for op, computation in found
    )
    return CollectiveCounts(ops=ops, participants=participants)


def _record_calls(line: str, caller: str, calls: dict[str, list[tuple[str, int | None]]]) -> None:
    """Note every computation this instruction calls, with how often one execution of it runs
    the callee: a loop's body ``known_trip_count`` times (its condition once more), a branch of
    a conditional an unknown number of times (0 or 1), anything else (fusions, reducers, async
    wrappers) once."""
    if _ASYNC_FOLLOW_UP.search(line):
        return  # async-update/-done name the async-start's computation again; it runs once
    trip = _TRIP_COUNT.search(line)
    trips = int(trip["n"]) if trip else None
    for ref in _CALLED.finditer(line):
        names = [ref["one"]] if ref["one"] else re.findall(r"%([\w.\-]+)", ref["many"])
        attr = ref["attr"]
        per_call: int | None
        if attr == "body":
            per_call = trips
        elif attr == "condition":
            per_call = None if trips is None else trips + 1
        elif attr in ("branch_computations", "true_computation", "false_computation"):
            per_call = None
        else:
            per_call = 1
        for name in names:
            calls.setdefault(name, []).append((caller, per_call))


class _Runs:
    """How many times each computation runs per execution of the entry computation: the sum,
    over its call sites, of the caller's runs times the runs per call (None when any is
    unknown). A computation nothing calls counts once, as the static count would."""

    def __init__(self, entry: str | None, calls: dict[str, list[tuple[str, int | None]]]) -> None:
        self._entry = entry
        self._calls = calls
        self._memo: dict[str, int | None] = {}

    def __call__(self, computation: str, seen: frozenset[str] = frozenset()) -> int | None:
        if computation in self._memo:
            return self._memo[computation]
        callers = self._calls.get(computation, [])
        if computation == self._entry or not callers or computation in seen:
            return 1
        total: int | None = 0
        for caller, per_call in callers:
            caller_runs = self(caller, seen | {computation})
            if caller_runs is None or per_call is None or total is None:
                total = None
            else:
                total += caller_runs * per_call
        self._memo[computation] = total
        return total


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
