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
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from .._display import RawHTML, html_table
from ._hlo_text import (
    _NUM_PARTITIONS,
    _NUM_REPLICAS,
    _OPCODE,
    _RESULT,
    COLLECTIVE_KINDS,
    _groups,
    _record_calls,
    _Runs,
    computation_lines,
    hlo_type_bytes,
)


def _normalise_kind(kind: str) -> str:
    name = kind.replace("_", "-")
    if name not in COLLECTIVE_KINDS:
        raise KeyError(f"{kind!r} is not a collective counted here; choose from {COLLECTIVE_KINDS}")
    return name


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

    @property
    def name(self) -> str:
        """The instruction's name (``all-reduce.3``), as a profiler trace's ``hlo_op`` names it."""
        return self.line.split("=", 1)[0].replace("ROOT", "", 1).strip().lstrip("%")

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
    for current, is_entry, line in computation_lines(hlo_text):
        if line is None:  # a computation's header
            entry = current if is_entry else entry
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
