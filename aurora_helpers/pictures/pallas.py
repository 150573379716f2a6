"""Which block of each operand every Pallas program instance touches, as data and as a picture.

A ``pl.pallas_call`` with ``grid=(g0, g1, ...)`` runs one program instance per grid index. For
each operand, a ``pl.BlockSpec(block_shape, index_map)`` says which block that instance sees:
``index_map(*program_ids)`` returns a block index per axis, and the block starts at
``block_index * block_shape`` (Pallas' default, blocked indexing). :func:`pallas_blocks`
evaluates the index maps over the grid in plain Python, so the picture shows exactly what the
specs say; :func:`draw_pallas_blocks` draws it, one panel per operand, one colour per program.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._figures import new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

IndexMap = Callable[..., Sequence[int] | int]


@dataclass(frozen=True)
class KernelBlock:
    """The part of one operand that one or more program instances see."""

    bounds: tuple[tuple[int, int], ...]
    """``(start, stop)`` along each operand axis."""
    programs: tuple[tuple[int, ...], ...]
    """Grid indices of the program instances that see this block, in grid order."""

    @property
    def index(self) -> tuple[slice, ...]:
        """The block as a NumPy index: ``x[block.index]``."""
        return tuple(slice(a, b) for a, b in self.bounds)


def _spec_parts(spec: Any) -> tuple[tuple[int, ...], IndexMap]:
    """``(block_shape, index_map)`` from a ``pl.BlockSpec`` or from such a pair."""
    if isinstance(spec, tuple) and len(spec) == 2 and callable(spec[1]):
        block_shape, index_map = spec
    elif hasattr(spec, "block_shape") and hasattr(spec, "index_map"):
        block_shape, index_map = spec.block_shape, spec.index_map
    else:
        raise TypeError(
            f"expected a pl.BlockSpec or a (block_shape, index_map) pair, got {type(spec).__name__}"
        )
    if block_shape is None or index_map is None:
        raise ValueError("the BlockSpec needs both block_shape and index_map to be drawn")
    sizes = tuple(1 if b is None else int(getattr(b, "block_size", b)) for b in block_shape)
    return sizes, index_map


def pallas_blocks(grid: Sequence[int], shape: Sequence[int], spec: Any) -> list[KernelBlock]:
    """The blocks of an operand of ``shape`` that the programs of ``grid`` touch through ``spec``.

    Raises:
        ValueError: the spec's rank differs from the operand's, or a block falls outside it
            (the message names the program), or the block shape does not divide the operand.
    """
    grid = tuple(int(g) for g in grid)
    shape = tuple(int(s) for s in shape)
    block_shape, index_map = _spec_parts(spec)
    if len(block_shape) != len(shape):
        raise ValueError(f"block shape {block_shape} and operand shape {shape} differ in rank")
    ragged = [i for i, (b, s) in enumerate(zip(block_shape, shape, strict=True)) if s % b]
    if ragged:
        raise ValueError(
            f"block shape {block_shape} does not divide operand shape {shape} along axes {ragged}"
        )
    seen: dict[tuple[tuple[int, int], ...], list[tuple[int, ...]]] = {}
    for program in itertools.product(*(range(g) for g in grid)):
        raw = index_map(*program)
        idx = tuple(int(i) for i in (raw if isinstance(raw, Sequence) else (raw,)))
        if len(idx) != len(shape):
            raise ValueError(
                f"index_map{program} returned {len(idx)} block indices for a rank-{len(shape)} "
                "operand"
            )
        bounds = tuple((i * b, (i + 1) * b) for i, b in zip(idx, block_shape, strict=True))
        if any(lo < 0 or hi > n for (lo, hi), n in zip(bounds, shape, strict=True)):
            raise ValueError(
                f"program {program} reads block {idx} = elements {bounds}, outside shape {shape}"
            )
        seen.setdefault(bounds, []).append(program)
    return [KernelBlock(bounds, tuple(programs)) for bounds, programs in seen.items()]


def _as_2d(bounds: tuple[tuple[int, int], ...], shape: tuple[int, ...]) -> tuple[int, ...]:
    """(row0, row1, col0, col1) of a block of a rank-1 or rank-2 operand."""
    if len(shape) == 1:
        return (0, 1, *bounds[0])
    return (*bounds[0], *bounds[1])


def draw_pallas_blocks(
    grid: Sequence[int],
    operands: Mapping[str, tuple[Sequence[int], Any]],
    *,
    title: str | None = None,
) -> Figure:
    """Draw, for each operand, the block every program instance of ``grid`` touches.

    Args:
        grid: the ``grid`` of the ``pl.pallas_call``.
        operands: name -> ``(shape, spec)``, spec a ``pl.BlockSpec`` or ``(block_shape,
            index_map)``; rank-1 and rank-2 operands only.
        title: the figure's title (default: the grid).

    Each block is filled with the colour of the first program that touches it and labelled
    with every program that does; elements no program touches stay white.
    """
    from matplotlib import colormaps
    from matplotlib.patches import Rectangle

    grid = tuple(int(g) for g in grid)
    order = {p: k for k, p in enumerate(itertools.product(*(range(g) for g in grid)))}
    palette = colormaps["tab20"]
    fig = new_figure(3.6 * max(1, len(operands)), 3.4, layout="constrained")
    axes = fig.subplots(1, max(1, len(operands)), squeeze=False)[0]
    for ax, (name, (shape, spec)) in zip(axes, operands.items(), strict=False):
        shape = tuple(int(s) for s in shape)
        if len(shape) not in (1, 2):
            raise ValueError(f"{name}: only rank-1 and rank-2 operands can be drawn, not {shape}")
        rows, cols = (1, shape[0]) if len(shape) == 1 else shape
        for block in pallas_blocks(grid, shape, spec):
            r0, r1, c0, c1 = _as_2d(block.bounds, shape)
            first = order[block.programs[0]]
            patch = Rectangle(
                (c0, r0), c1 - c0, r1 - r0, facecolor=palette(first % 20), edgecolor="black"
            )
            patch.set_gid(f"{name}:{block.bounds}")
            ax.add_patch(patch)
            label = "\n".join(",".join(map(str, p)) for p in block.programs[:4])
            if len(block.programs) > 4:
                label += f"\n+{len(block.programs) - 4}"
            ax.text((c0 + c1) / 2, (r0 + r1) / 2, label, ha="center", va="center", fontsize=7)
        ax.set_xlim(0, cols)
        ax.set_ylim(rows, 0)
        ax.set_aspect("equal" if max(rows, cols) / max(1, min(rows, cols)) < 8 else "auto")
        ax.set_title(f"{name} {shape}", fontsize=9)
        ax.tick_params(labelsize=7)
    fig.suptitle(title or f"program instances of grid {grid} (labels: program ids)", fontsize=10)
    fig.supxlabel(f"{math.prod(grid)} program instances", fontsize=8)
    return fig
