"""The compiled program as a schedule: its instructions in the order they run, and what each needs.

A compiled XLA module marked ``is_scheduled=true`` prints its entry computation in the order the
backend will issue the instructions. Reading that order, and each instruction's operands, answers
questions that counting collectives cannot: *does this matmul need that collective's result?*
(a data dependency, which no scheduler can break) and *does anything run while a collective is
in flight?* (only where the backend splits a collective into an asynchronous ``-start`` and
``-done`` pair, as XLA's GPU and TPU backends do; XLA:CPU prints one synchronous instruction).

    program = ah.parse_schedule(jax.jit(f).lower(x, w).compile().as_text())
    gather, = program.of("all-gather")
    assert all(program.depends_on(dot, gather) for dot in program.of("dot"))

Instructions are those of the ENTRY computation; an instruction *computes* its own opcode and
every opcode of the computations it calls (a fusion holding a ``dot`` computes ``"dot"``), so
``of("dot")`` finds a matmul whether or not XLA fused it. Asynchronous forms are named by their
base operation: ``collective-permute-start`` and ``-done`` both compute ``"collective-permute"``;
:meth:`Schedule.of` returns the instruction whose result is the data (the ``-done``), and
:meth:`Schedule.in_flight` the pairs with what the schedule places between them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ._hlo_text import _CALLED, computation_lines

_ASSIGN = re.compile(r"^\s*(?:ROOT\s+)?%?(?P<name>[\w.\-]+)\s*=\s*(?P<rest>.*)$")
_OPERAND = re.compile(r"%(?P<name>[\w.\-]+)")
_ASYNC_SUFFIX = re.compile(r"-(?:start|done|update)$")


def _base(opcode: str) -> str:
    return _ASYNC_SUFFIX.sub("", opcode)


def _split_type(rest: str) -> tuple[str, str]:
    """``"f32[2]{0} dot(%a, %b), ..."`` -> (type, the text from the opcode on)."""
    if rest.startswith("("):  # a tuple type: skip to its closing parenthesis
        depth = 0
        for i, ch in enumerate(rest):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0:
                return rest[: i + 1], rest[i + 1 :].lstrip()
    head, _, tail = rest.partition(" ")
    return head, tail.lstrip()


def _call_arguments(text: str) -> tuple[str, str]:
    """``"dot(%a, %b), lhs=..."`` -> (``"dot"``, ``"%a, %b"``), by balanced parentheses."""
    opcode, _, tail = text.partition("(")
    depth = 1
    for i, ch in enumerate(tail):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return opcode.strip(), tail[:i]
    return opcode.strip(), tail


def _reach(start: str, edges: dict[str, Any]) -> frozenset[str]:
    """The names reachable from ``start`` along ``edges`` (names that are not keys are not
    instructions, and are left out)."""
    seen: set[str] = set()
    todo = list(edges.get(start, ()))
    while todo:
        name = todo.pop()
        if name in edges and name not in seen:
            seen.add(name)
            todo.extend(edges[name])
    return frozenset(seen)


@dataclass(frozen=True)
class Instruction:
    """One instruction of the entry computation."""

    name: str
    opcode: str
    """As printed, e.g. ``fusion``, ``dot``, ``collective-permute-start``."""
    operands: tuple[str, ...]
    """Names of the instructions whose results it reads."""
    computes: frozenset[str]
    """Its base opcode and those of every computation it calls (``-start``/``-done`` removed)."""
    line: str = field(repr=False)

    @property
    def kind(self) -> str:
        """The base opcode (``collective-permute`` for ``collective-permute-start``)."""
        return _base(self.opcode)


@dataclass(frozen=True)
class Schedule:
    """The entry computation of a compiled program, in the order it is printed (and, when
    :attr:`scheduled`, issued)."""

    instructions: tuple[Instruction, ...]
    scheduled: bool
    """True when XLA marked the module ``is_scheduled=true``: the order is the run order."""

    def _by_name(self) -> dict[str, Instruction]:
        return {ins.name: ins for ins in self.instructions}

    def of(self, kind: str) -> tuple[Instruction, ...]:
        """Instructions computing ``kind`` (e.g. ``"dot"``, ``"all-gather"``), in schedule order;
        of an asynchronous pair only the ``-done`` (the one whose result is the data)."""
        return tuple(
            ins
            for ins in self.instructions
            if kind in ins.computes and not ins.opcode.endswith(("-start", "-update"))
        )

    def upstream(self, ins: Instruction) -> frozenset[str]:
        """Names of the instructions whose results ``ins`` needs, directly or through others."""
        return _reach(ins.name, {i.name: i.operands for i in self.instructions})

    def downstream(self, ins: Instruction) -> frozenset[str]:
        """Names of the instructions that need ``ins``'s result, directly or through others."""
        users: dict[str, list[str]] = {i.name: [] for i in self.instructions}
        for user in self.instructions:
            for operand in user.operands:
                if operand in users:
                    users[operand].append(user.name)
        return _reach(ins.name, users)

    def depends_on(self, later: Instruction, earlier: Instruction) -> bool:
        """Does ``later`` read ``earlier``'s result, directly or through other instructions?"""
        return earlier.name in self.upstream(later)

    def independent(self, a: Instruction, b: Instruction) -> bool:
        """Neither needs the other's result: a scheduler may run them at the same time."""
        return not self.depends_on(a, b) and not self.depends_on(b, a)

    def in_flight(
        self, kind: str
    ) -> tuple[tuple[Instruction, Instruction, tuple[Instruction, ...]], ...]:
        """Each asynchronous ``kind`` as (start, done, the instructions scheduled between them).
        Empty where the backend compiled ``kind`` as one synchronous instruction."""
        pairs = []
        index = {ins.name: i for i, ins in enumerate(self.instructions)}
        by_name = self._by_name()
        for done in self.of(kind):
            starts = [
                by_name[name]
                for name in done.operands
                if name in by_name and by_name[name].opcode.endswith("-start")
            ]
            if done.opcode.endswith("-done") and starts:
                start = starts[0]
                between = self.instructions[index[start.name] + 1 : index[done.name]]
                pairs.append((start, done, between))
        return tuple(pairs)

    def order(self, kinds: Iterable[str]) -> tuple[str, ...]:
        """The schedule reduced to the instructions computing one of ``kinds``: their kinds (with
        ``-start``/``-done`` kept), in order, e.g. ``("collective-permute", "dot", ...)``."""
        wanted = tuple(kinds)
        out = []
        for ins in self.instructions:
            hit = next((k for k in wanted if k in ins.computes), None)
            if hit is not None:
                suffix = _ASYNC_SUFFIX.search(ins.opcode)
                out.append(hit + (suffix.group(0) if suffix else ""))
        return tuple(out)


def parse_schedule(hlo_text: str) -> Schedule:
    """The entry computation of compiled HLO text (``compiled.as_text()``) as a :class:`Schedule`."""
    bodies: dict[str, list[tuple[str, str, tuple[str, ...], tuple[str, ...], str]]] = {}
    entry: str | None = None
    for current, is_entry, line in computation_lines(hlo_text):
        if current is None:
            continue
        if line is None:  # a computation's header
            entry = current if is_entry else entry
            bodies[current] = []
            continue
        assign = _ASSIGN.match(line)
        if assign is None:
            continue
        _, after_type = _split_type(assign["rest"])
        opcode, arguments = _call_arguments(after_type)
        operands = tuple(m["name"] for m in _OPERAND.finditer(arguments))
        callees: list[str] = []
        for m in _CALLED.finditer(after_type[len(opcode) + len(arguments) + 2 :]):
            names = (
                [m["one"]] if m["one"] else [s.strip().lstrip("%") for s in m["many"].split(",")]
            )
            callees.extend(n for n in names if n)
        bodies[current].append((assign["name"], opcode, operands, tuple(callees), line.strip()))
    if entry is None:
        raise ValueError("no ENTRY computation in this text; pass compiled.as_text()")

    memo: dict[str, frozenset[str]] = {}

    def opcodes_of(computation: str, seen: frozenset[str] = frozenset()) -> frozenset[str]:
        if computation in memo:
            return memo[computation]
        found: set[str] = set()
        for _, opcode, _, inner_calls, _ in bodies.get(computation, []):
            found.add(_base(opcode))
            for callee in inner_calls:
                if callee not in seen:
                    found |= opcodes_of(callee, seen | {computation})
        memo[computation] = frozenset(found)
        return memo[computation]

    instructions = []
    for name, opcode, operands, entry_calls, line in bodies[entry]:
        computes = {_base(opcode)}
        for callee in entry_calls:
            computes |= opcodes_of(callee, frozenset({entry}))
        instructions.append(Instruction(name, opcode, operands, frozenset(computes), line))
    return Schedule(tuple(instructions), scheduled="is_scheduled=true" in hlo_text)
