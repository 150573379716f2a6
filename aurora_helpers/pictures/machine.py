"""A picture of the machine JAX sees: processes, their devices, and the memories each device reaches.

A table of devices hides the structure a learner needs for placement: which memories a device
can address, which one arrays land in by default, and which devices belong to another process.
:func:`draw_machine` draws that structure with matplotlib and tags every box with a ``gid``
(``"process:0"``, ``"device:3"``, ``"memory:3:pinned_host"``), so a test or a notebook can check
the picture against ``jax.devices()`` instead of trusting it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import jax

from .._checks import positive_int
from .._device_queries import memories as addressable_memories
from .._device_queries import memory_limit
from .._display import format_bytes
from .._figures import new_figure

if TYPE_CHECKING:  # matplotlib is imported lazily: it is slow and only pictures need it
    from matplotlib.figure import Figure

_DEVICE_ATTRIBUTES = ("id", "platform", "device_kind", "process_index")
_KIND_COLOURS = {"device": "#cfe2f3", "pinned_host": "#fde9c9", "unpinned_host": "#e6e6e6"}
_OTHER_COLOUR = "#e3d7ef"
_BOX_WIDTH = 2.5
_TITLE_HEIGHT = 0.55
_ROW_HEIGHT = 0.42
_GAP = 0.3


# NamedTuples, not dataclasses: they cost less to import (this module loads on the first
# ah.draw_machine call, inside a notebook cell).
class _MemoryBox(NamedTuple):
    kind: str
    is_default: bool
    size_bytes: int | None
    shared_by: int


class _DeviceBox(NamedTuple):
    id: int
    platform: str
    device_kind: str
    process_index: int
    addressable: bool
    memories: tuple[_MemoryBox, ...]

    @property
    def height(self) -> float:
        rows = len(self.memories) if self.addressable else 1
        return _TITLE_HEIGHT + rows * _ROW_HEIGHT + 0.1


def _describe(device: jax.Device, this_process: int) -> _DeviceBox:
    """What the picture shows for one device; asks the runtime only what it can answer."""
    addressable = device.process_index == this_process
    memories: list[_MemoryBox] = []
    if addressable:
        found = addressable_memories(device)
        try:
            default_kind: str | None = device.default_memory().kind
        except Exception:
            default_kind = None
        limit = memory_limit(device)
        for memory in found:
            try:
                shared_by = len(memory.addressable_by_devices())
            except Exception:
                shared_by = 1
            is_default = memory.kind == default_kind
            memories.append(
                _MemoryBox(
                    kind=str(memory.kind),
                    is_default=is_default,
                    size_bytes=limit if is_default else None,
                    shared_by=shared_by,
                )
            )
    return _DeviceBox(
        id=int(device.id),
        platform=str(device.platform),
        device_kind=str(device.device_kind),
        process_index=int(device.process_index),
        addressable=addressable,
        memories=tuple(memories),
    )


def _check_arguments(devices: Sequence[Any], columns: int | None, max_devices: int) -> None:
    if not devices:
        raise ValueError(
            "draw_machine got no devices to draw; pass jax.devices() (or a subset such as "
            "jax.devices('cpu')), or leave `devices` out to draw every device."
        )
    for device in devices:
        missing = [a for a in _DEVICE_ATTRIBUTES if not hasattr(device, a)]
        if missing:
            raise TypeError(
                f"draw_machine expects JAX devices (items of jax.devices()), got "
                f"{type(device).__name__} {device!r}, which lacks {', '.join(missing)}."
            )
    if columns is not None:
        positive_int("columns", columns)  # or None, for as many as fit
    positive_int("max_devices", max_devices)


def _memory_label(memory: _MemoryBox) -> str:
    parts = [memory.kind]
    if memory.is_default:
        parts.append("(default)")
    if memory.size_bytes is not None:
        parts.append(format_bytes(memory.size_bytes))
    if memory.shared_by > 1:
        parts.append(f"shared by {memory.shared_by}")
    return " ".join(parts)


def _device_box_label(box: _DeviceBox) -> str:
    label = f"{box.platform} device {box.id}"
    return label if box.device_kind == box.platform else f"{label}\n{box.device_kind}"


def draw_machine(
    devices: Sequence[jax.Device] | None = None,
    *,
    columns: int | None = None,
    max_devices: int = 32,
    title: str | None = None,
) -> Figure:
    """Draw each process, its devices, and the memories every device can address.

    Each device is a box holding one row per addressable memory (``device``, ``pinned_host``,
    ``unpinned_host``, ...); the memory arrays land in by default is marked, with its size where
    the runtime reports one (``memory_stats()['bytes_limit']`` on accelerators; unknown on CPU).
    Devices of other processes are drawn dashed, without memories: this process cannot address
    them. Every box carries a ``gid`` (``"process:P"``, ``"device:ID"``, ``"memory:ID:KIND"``) so
    the picture can be checked against ``jax.devices()``.

    Args:
        devices: the devices to draw; default ``jax.devices()``.
        columns: devices per row; default up to 4.
        max_devices: draw at most this many devices (a note counts the rest), so a pod slice
            still gives a readable picture.
        title: the figure title; by default a one-line summary of what is drawn.

    Returns:
        A :class:`matplotlib.figure.Figure`, already closed in pyplot (nothing accumulates): make
        it the last expression of a notebook cell to show it, or call ``fig.savefig(path)``.

    Raises:
        ValueError: no devices, or ``columns``/``max_devices`` not a positive integer.
        TypeError: an item of ``devices`` is not a JAX device.
    """
    from matplotlib.patches import FancyBboxPatch, Rectangle

    chosen = list(jax.devices() if devices is None else devices)
    _check_arguments(chosen, columns, max_devices)
    this_process = jax.process_index()
    boxes = [_describe(d, this_process) for d in chosen[:max_devices]]
    left_out = len(chosen) - len(boxes)
    per_row = columns or min(len(boxes), 4)

    processes = sorted({b.process_index for b in boxes})
    # Lay out from the top: for each process a header line, then rows of device boxes.
    layout: list[tuple[int, float, float, list[tuple[_DeviceBox, float, float]]]] = []
    y = 0.0
    for process in processes:
        mine = [b for b in boxes if b.process_index == process]
        top = y
        y -= 0.5  # room for the process label
        placed: list[tuple[_DeviceBox, float, float]] = []
        for start in range(0, len(mine), per_row):
            row = mine[start : start + per_row]
            row_height = max(b.height for b in row)
            for i, box in enumerate(row):
                x = 0.2 + i * (_BOX_WIDTH + _GAP)
                placed.append((box, x, y - box.height))
            y -= row_height + _GAP
        layout.append((process, top, y, placed))
        y -= _GAP
    width = 0.2 + per_row * (_BOX_WIDTH + _GAP) + 0.1
    height = -y + (0.4 if left_out else 0.0)

    fig = new_figure(max(4.0, width * 0.95), max(2.0, height * 0.95 + 0.4))
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.set_xlim(0, width)
    ax.set_ylim(-height, 0.1)

    for process, top, bottom, placed in layout:
        here = process == this_process
        frame = Rectangle(
            (0.05, bottom + _GAP / 2),
            width - 0.1,
            top - bottom - _GAP / 2,
            facecolor="#f7f7f7" if here else "white",
            edgecolor="#555555",
            linestyle="-" if here else "--",
            linewidth=1.0,
        )
        frame.set_gid(f"process:{process}")
        ax.add_patch(frame)
        label = f"process {process}" + (" (this process)" if here else " (another process)")
        ax.text(0.15, top - 0.25, label, fontsize=9, fontweight="bold", va="center")
        for box, x, y0 in placed:
            outline = FancyBboxPatch(
                (x, y0),
                _BOX_WIDTH,
                box.height,
                boxstyle="round,pad=0.02",
                facecolor="white",
                edgecolor="#222222" if box.addressable else "#888888",
                linestyle="-" if box.addressable else "--",
                linewidth=1.2,
            )
            outline.set_gid(f"device:{box.id}")
            ax.add_patch(outline)
            ax.text(
                x + 0.1,
                y0 + box.height - _TITLE_HEIGHT / 2,
                _device_box_label(box),
                fontsize=8,
                va="center",
            )
            if not box.addressable:
                ax.text(
                    x + 0.1,
                    y0 + 0.05 + _ROW_HEIGHT / 2,
                    "not addressable here",
                    fontsize=7,
                    style="italic",
                    va="center",
                )
            for line, memory in enumerate(box.memories):
                my = y0 + box.height - _TITLE_HEIGHT - (line + 1) * _ROW_HEIGHT
                cell = Rectangle(
                    (x + 0.1, my + 0.04),
                    _BOX_WIDTH - 0.2,
                    _ROW_HEIGHT - 0.08,
                    facecolor=_KIND_COLOURS.get(memory.kind, _OTHER_COLOUR),
                    edgecolor="#222222" if memory.is_default else "#999999",
                    linewidth=1.6 if memory.is_default else 0.6,
                )
                cell.set_gid(f"memory:{box.id}:{memory.kind}")
                ax.add_patch(cell)
                ax.text(
                    x + 0.18,
                    my + _ROW_HEIGHT / 2,
                    _memory_label(memory),
                    fontsize=7,
                    va="center",
                )
    if left_out:
        ax.text(0.15, -height + 0.2, f"... and {left_out} more device(s) not drawn", fontsize=8)

    if title is None:
        platforms = ", ".join(dict.fromkeys(b.platform for b in boxes))
        title = (
            f"{len(chosen)} {platforms} device(s) in {len({d.process_index for d in chosen})} "
            f"process(es), as JAX sees them"
        )
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig
