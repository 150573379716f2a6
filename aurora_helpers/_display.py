"""Tiny renderers shared by the helpers' result objects: HTML for notebooks, text for terminals."""

from __future__ import annotations

import html
from collections.abc import Sequence


class RawHTML(str):
    """A table cell that is already HTML, inserted without escaping."""


def _cell(value: object) -> str:
    return str(value) if isinstance(value, RawHTML) else html.escape(str(value))


def text_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A left-aligned plain-text table with a rule under the header."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def html_table(
    headers: Sequence[str], rows: Sequence[Sequence[object]], caption: str | None = None
) -> str:
    """An HTML table; cells are escaped unless they are :class:`RawHTML`."""
    head = "".join(f"<th style='text-align:left'>{html.escape(str(h))}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td style='text-align:left'>{_cell(c)}</td>" for c in row) + "</tr>"
        for row in rows
    )
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    if not caption:
        return table
    # A paragraph, not a <caption>: a caption is as wide as its table, and a one-line summary
    # over a narrow table (the explorer's bytes per device) broke into a column of words.
    return f"<div><p style='margin:0.4em 0'><b>{html.escape(caption)}</b></p>{table}</div>"


def format_bytes(n: int | None) -> str:
    """Human-readable byte count (binary units); ``None`` reads as 'unknown'."""
    if n is None:
        return "unknown"
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")
