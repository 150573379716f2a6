"""Reading compiled HLO text: collective instructions, their device groups, loop trip counts.

The parsing half of :mod:`aurora_helpers.compiled.collectives` (which turns what is read here into
counts): the regular expressions for the forms XLA prints across the supported releases
(explicit, compact iota and mesh-axis replica groups; permute pairs; ``known_trip_count`` on
loops), result-type sizes, and which computation calls which, how often.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np

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


def computation_lines(hlo_text: str) -> Iterator[tuple[str | None, bool, str | None]]:
    """HLO text computation by computation: ``(name, is_entry, None)`` at each computation's
    header, then ``(name, is_entry, line)`` for each line inside it; a line outside every
    computation (the module's own, or text cut from a computation) comes as
    ``(None, False, line)``. Closing braces are left out."""
    current: str | None = None
    entry = False
    for line in hlo_text.splitlines():
        header = _COMPUTATION.match(line)
        if header:
            current, entry = header["name"], bool(header["entry"])
            yield current, entry, None
        elif line.rstrip() == "}":
            current, entry = None, False
        else:
            yield current, entry, line


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
        # An explicitly empty list (a ppermute over a mesh axis of size 1) moves nothing: one
        # empty pair, which CollectiveOp.trivial reads as "no device sends".
        return _int_lists(pairs["body"]) or ((),)
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
