"""A compiled step's memory, read the way XLA's out-of-memory report reads it.

When a program does not fit, XLA:GPU raises ``RESOURCE_EXHAUSTED: Out of memory while trying to
allocate N bytes.`` followed by "BufferAssignment OOM Debugging": the program's *parameter
allocation* (its arguments), *maybe_live_out allocation* (its outputs), *preallocated temp
allocation* (every temporary, in one block: usually the N that failed) and *Peak buffers*, the
largest values with the operation that made them (``op_name``) and their shape.

:func:`memory_report` gives the same parts for any compiled program, before it runs and on any
backend whose ``memory_analysis()`` reports them (the CPU's does): the byte counts from
``compiled.memory_analysis()``, and the largest temporaries from the entry computation of
``compiled.as_text()``. Sizes are per device: a sharded program is compiled for one device's
blocks.

    report = ah.memory_report(jax.jit(step).lower(*args).compile())
    print(report.format(budget=16 * 2**20))
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..compiled._hlo_text import hlo_type_bytes
from ..compiled.hlo_schedule import _split_type, parse_schedule

# Instructions whose results are not new memory: they name a parameter, a part of a tuple, the
# same bytes under another shape, or a constant baked into the program.
_NOT_TEMPORARIES = frozenset(
    {"parameter", "tuple", "get-tuple-element", "bitcast", "constant", "after-all"}
)
_OP_NAME = re.compile(r'op_name="(?P<name>[^"]*)"')
_ARRAY = re.compile(r"(?P<array>\b[a-z]\w*\[[\d,]*\])")


@dataclass(frozen=True)
class Buffer:
    """One temporary of the entry computation, as XLA's "Peak buffers" list names it."""

    bytes: int
    shape: str
    """The HLO type without its layout, e.g. ``"f32[4096,512]"`` (per device)."""
    operation: str
    """The JAX operation that made it (``op_name`` metadata, e.g.
    ``"jit(step)/jvp()/hidden/tanh"``: named scopes included); ``""`` when XLA kept none."""
    instruction: str
    """The HLO instruction's name (``fusion.3``, ``dot``, ...)."""

    @property
    def dims(self) -> tuple[int, ...]:
        """The shape's dimensions, e.g. ``(4096, 512)``."""
        inside = self.shape[self.shape.index("[") + 1 : -1]
        return tuple(int(d) for d in inside.split(",") if d)


@dataclass(frozen=True)
class MemoryReport:
    """Bytes one device needs to run a compiled program, in the parts of XLA's OOM report."""

    arguments: int
    """``parameter allocation``: the inputs, already on the device before the program runs."""
    outputs: int
    """``maybe_live_out allocation``: the results."""
    temporaries: int
    """``preallocated temp allocation``: every intermediate value, in one block."""
    aliased: int
    """Bytes of outputs written into donated arguments (counted once, not twice)."""
    largest: tuple[Buffer, ...]
    """The largest temporaries of the entry computation, largest first."""

    @property
    def total(self) -> int:
        """Arguments + outputs + temporaries - aliased: the most the program holds at once."""
        return self.arguments + self.outputs + self.temporaries - self.aliased

    @property
    def requested(self) -> int:
        """What running asks the allocator for beyond the arguments already held: the outputs
        that do not reuse a donated argument, and the temporaries."""
        return self.outputs - self.aliased + self.temporaries

    def fits(self, free_bytes: int) -> bool:
        """Would :attr:`requested` fit in ``free_bytes`` (a device's memory not yet in use)?"""
        return self.requested <= free_bytes

    def format(self, budget: int | None = None) -> str:
        """The report in XLA's layout; with ``budget`` (the device's free bytes), the first line
        says whether the program would fit."""
        mib = lambda b: f"{b / 2**20:10.2f} MiB"  # noqa: E731
        lines = []
        if budget is not None:
            verdict = "fits" if self.fits(budget) else "does not fit: RESOURCE_EXHAUSTED"
            lines.append(
                f"asks for {mib(self.requested).strip()} with {mib(budget).strip()} free: {verdict}"
            )
        lines += [
            f"  parameter allocation (arguments):       {mib(self.arguments)}",
            f"  maybe_live_out allocation (outputs):    {mib(self.outputs)}",
            f"  preallocated temp allocation:           {mib(self.temporaries)}",
            f"  aliased (outputs in donated arguments): {mib(-self.aliased)}",
            f"  total:                                  {mib(self.total)}",
            "Peak buffers (largest temporaries):",
        ]
        for i, buf in enumerate(self.largest, 1):
            lines.append(
                f"  Buffer {i}: {mib(buf.bytes).strip()}  {buf.shape}  op_name={buf.operation!r}"
            )
        return "\n".join(lines)


def largest_temporaries(hlo_text: str, top: int = 3) -> tuple[Buffer, ...]:
    """The ``top`` largest values the entry computation of ``hlo_text`` (``compiled.as_text()``)
    computes that are neither arguments nor outputs, largest first (ties in program order)."""
    program = parse_schedule(hlo_text)
    root = program.instructions[-1] if program.instructions else None
    for ins in program.instructions:
        if ins.line.startswith("ROOT"):
            root = ins
    outputs = {root.name} if root is not None else set()
    if root is not None and root.opcode == "tuple":
        outputs |= set(root.operands)
    found = []
    for order, ins in enumerate(program.instructions):
        if ins.opcode in _NOT_TEMPORARIES or ins.name in outputs:
            continue
        result_type, _ = _split_type(ins.line.split("=", 1)[1].lstrip())
        op_name = _OP_NAME.search(ins.line)
        # A tuple-valued instruction (a GPU matmul's result and its workspace) holds one buffer
        # per part, as XLA's buffer assignment counts them.
        for array in _ARRAY.finditer(result_type):
            size = hlo_type_bytes(array["array"])
            found.append(
                (
                    -size,
                    order,
                    Buffer(
                        bytes=size,
                        shape=array["array"],
                        operation=op_name["name"] if op_name else "",
                        instruction=ins.name,
                    ),
                )
            )
    return tuple(buf for _, _, buf in sorted(found, key=lambda t: t[:2])[:top])


def memory_report(compiled: Any, top: int = 3) -> MemoryReport:
    """The parts of XLA's out-of-memory report for ``compiled`` (a ``jax.stages.Compiled``),
    per device, before it runs.

    Raises:
        ValueError: the backend reports no memory analysis (``memory_analysis()`` is None).
    """
    stats = compiled.memory_analysis()
    if stats is None:
        raise ValueError("this backend reports no memory analysis for compiled programs")
    return MemoryReport(
        arguments=stats.argument_size_in_bytes,
        outputs=stats.output_size_in_bytes,
        temporaries=stats.temp_size_in_bytes,
        aliased=stats.alias_size_in_bytes,
        largest=largest_temporaries(compiled.as_text(), top),
    )
