"""A picture comparing training layouts: bytes each device holds against bytes it sends per step.

Notebook 09 measures both for every layout of one model; the picture shows the trade-off at a
glance (down-left is better on both counts)::

    ah.draw_layout_costs({"DP": (held, sent), "FSDP": (held, sent), ...})
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from numbers import Real
from typing import TYPE_CHECKING

from .._figures import new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def _check_point(name: str, point: object) -> tuple[float, float]:
    if (
        not isinstance(point, tuple)
        or len(point) != 2
        or not all(isinstance(v, Real) for v in point)
    ):
        raise TypeError(f"layout {name!r}: expected a pair (bytes held, bytes sent), got {point!r}")
    held, sent = (float(v) for v in point)
    if not (math.isfinite(held) and math.isfinite(sent)) or held < 0 or sent < 0:
        raise ValueError(f"layout {name!r}: byte counts must be finite and >= 0, got {point!r}")
    return held, sent


def draw_layout_costs(
    layouts: Mapping[str, tuple[float, float]],
    *,
    title: str | None = None,
    budget: float | None = None,
) -> Figure:
    """One labelled point per layout: bytes held per device (x) against bytes sent per device
    per step (y).

    Args:
        layouts: ``{name: (bytes held per device, bytes sent per device per step)}``.
        title: the figure's title; a default says what the axes are.
        budget: a per-device memory budget in bytes, drawn as a vertical line.

    Returns:
        A matplotlib ``Figure`` (shown by Jupyter when it is a cell's last value).

    Raises:
        ValueError: no layouts, or a negative or non-finite byte count.
        TypeError: a value is not a pair of numbers.
    """
    if not layouts:
        raise ValueError("no layouts to draw; pass {name: (bytes held, bytes sent)}")
    points = {name: _check_point(name, point) for name, point in layouts.items()}

    fig = new_figure(6.0, 4.0, layout="constrained")
    ax = fig.add_subplot()
    for name, (held, sent) in points.items():
        ax.scatter([held / 1024], [sent / 1024], s=60, zorder=3)
        ax.annotate(name, (held / 1024, sent / 1024), textcoords="offset points", xytext=(6, 6))
    if budget is not None:
        ax.axvline(budget / 1024, color="grey", linestyle="--", label="memory budget")
        ax.legend(loc="upper right")
    ax.set_xlabel("parameters + optimizer state held per device (KiB)")
    ax.set_ylabel("bytes sent per device per step (KiB)")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.margins(0.2)
    ax.grid(True, alpha=0.3)
    ax.set_title(title or "memory held vs communication, per layout")
    return fig
