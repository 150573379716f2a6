"""The quick reference (one A4 sheet, both sides), assembled from tables the notebooks already check.

A notebook marks a reference table by tagging its markdown cell ``quickref``; the cell starts with
``**Quick reference: <title>.**`` and the next code cell (a sentence of prose may come between, a
new heading may not) checks the table's rows against JAX. Taking the reference from those cells, rather than writing it again, means it cannot drift
from what the course executes. :func:`write_quickref` renders it to HTML (and to PDF with a headless
Chromium, when one is installed); the website shows it as a page of its own.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .course_notebook import QUICKREF_TAG, CourseNotebook


class QuickrefError(ValueError):
    """A ``quickref`` cell is malformed, none exists, or the PDF could not be printed."""


@dataclass(frozen=True)
class QuickrefEntry:
    """One reference table: where it comes from, its title, its markdown (title line removed)."""

    notebook: str  # file name, e.g. "06_sharding.ipynb"
    notebook_title: str
    title: str
    body: str


def entries_of(notebook: CourseNotebook) -> list[QuickrefEntry]:
    """The ``quickref`` tables of one notebook.

    Raises:
        QuickrefError: a tagged cell is not markdown, lacks the ``**Quick reference: ...**``
            opening or a table, or is not followed by a code cell that checks it.
    """
    name = f"{notebook.name}.ipynb"
    found = []
    for table in notebook.quickrefs:
        where = f"{name}, cell {table.cell}"
        if not table.markdown:
            raise QuickrefError(f"{where}: only markdown cells can be tagged {QUICKREF_TAG!r}")
        if table.title is None:
            raise QuickrefError(
                f"{where}: a quick-reference cell starts with '**Quick reference: <title>.**'"
            )
        if not re.search(r"^\s*\|.*\|\s*$", table.body, re.MULTILINE):
            raise QuickrefError(f"{where}: a quick-reference cell holds a markdown table")
        if table.check is None:
            raise QuickrefError(
                f"{where}: the code that checks a quick-reference table must follow it in the "
                "same section (before the next heading)"
            )
        found.append(QuickrefEntry(name, notebook.heading, table.title, table.body))
    return found


def collect(notebooks_dir: Path) -> list[QuickrefEntry]:
    """Every quick-reference table of the course, in course order."""
    from .course import find_notebooks

    entries = []
    for path in find_notebooks(notebooks_dir):
        entries += entries_of(CourseNotebook.read(path))
    if not entries:
        raise QuickrefError(f"no cell tagged {QUICKREF_TAG!r} in the notebooks of {notebooks_dir}")
    return entries


def as_myst(entries: Sequence[QuickrefEntry]) -> str:
    """The reference as one MyST page (the website's ``quickref`` page)."""
    parts = [
        "# Quick reference",
        "",
        "Each table below is taken from a notebook, where the cell after it checks every row.",
    ]
    for entry in entries:
        parts += ["", f"## {entry.title}", "", f"*From {entry.notebook_title}.*", "", entry.body]
    return "\n".join(parts) + "\n"


#: Body text size of the printed page, in points: readable on paper at arm's length.
BODY_PT = 8.5
_CSS = f"""
@page {{ size: A4 landscape; margin: 6mm; }}
body {{ font: {BODY_PT}pt/1.2 system-ui, sans-serif; color: #111; margin: 0; }}
header {{ display: flex; align-items: baseline; gap: 10pt; margin: 0 0 4pt; }}
h1 {{ font-size: 13pt; margin: 0; }}
.intro {{ color: #555; margin: 0; }}
main {{ column-count: 3; column-gap: 6mm; }}
section {{ margin: 0 0 6pt; }}
section.wide {{ column-span: all; break-inside: avoid; }}
h2 {{ font-size: 10pt; margin: 0 0 2pt; color: #0b4f8a; break-after: avoid; }}
h2 + p {{ break-after: avoid; }}
thead {{ break-after: avoid; }}
h2 .from {{ color: #666; font-size: {BODY_PT}pt; font-weight: normal; }}
p {{ margin: 0 0 2pt; }}
table {{ border-collapse: collapse; width: 100%; }}
th, td {{ border: 0.5pt solid #bbb; padding: 1pt 2pt; text-align: left; vertical-align: top; }}
tr {{ break-inside: avoid; }}
th {{ background: #eef3f8; }}
code {{ font: {BODY_PT}pt ui-monospace, monospace; overflow-wrap: normal; word-break: normal; }}
code.formula {{ white-space: nowrap; overflow-wrap: normal; }}
"""
#: A code span that is a formula or a shape (``2 · (n-1)/n · B``, ``(m, n·c)``), not a call: it is
#: printed on one line, never broken mid-expression.
_FORMULA = re.compile(r"^(?![^<]*[A-Za-z_]\()[^<]*[·/×*+\-→,][^<]*$")


#: A table with this many columns or more spans the page's width: its formulas, kept on one line,
#: do not fit a third of it.
WIDE_TABLE_COLUMNS = 6


def _wide(body: str) -> str:
    """`` class='wide'`` for a reference whose widest table has :data:`WIDE_TABLE_COLUMNS`."""
    widest = max(
        (line.strip().strip("|").count("|") + 1 for line in body.splitlines() if "|" in line),
        default=0,
    )
    return " class='wide'" if widest >= WIDE_TABLE_COLUMNS else ""


#: Where code may wrap in a narrow column: after these characters (``jax.``, ``static_``,
#: ``f(``, ``axis=``, ``a, b``), never inside a name's word (``static_argnam|es``).
CODE_BREAK_AFTER = "._,(=/"


def _break_points(code: str) -> str:
    """An escaped code span with a ``<wbr>`` after each :data:`CODE_BREAK_AFTER` character."""
    return re.sub(rf"([{re.escape(CODE_BREAK_AFTER)}])(?=[^\s<])", r"\1<wbr>", code)


def _mark_formulas(page: str) -> str:
    """``page`` with each formula's ``<code>`` given the class that keeps it on one line, and
    every other ``<code>`` the break points it may wrap at (and no others)."""

    def mark(m: re.Match[str]) -> str:
        code = m.group(1)
        if len(code) <= 40 and _FORMULA.match(html.unescape(code)):
            return f"<code class='formula'>{code}</code>"
        return f"<code>{_break_points(code)}</code>"

    return re.sub(r"<code>([^<]*)</code>", mark, page)


def as_html(
    entries: Sequence[QuickrefEntry], title: str = "Project Aurora: quick reference"
) -> str:
    """A self-contained, printable HTML page (no scripts, no web fonts, nothing fetched)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")
    # The full-width references go last: placed between others they break the columns' flow.
    entries = sorted(entries, key=lambda e: bool(_wide(e.body)))
    sections = "\n".join(
        f"<section{_wide(e.body)}><h2>{md.renderInline(e.title)} <span class='from'>· from "
        f"{html.escape(e.notebook_title)}</span></h2>"
        f"{_mark_formulas(md.render(_tables_and_lead(e.body)))}</section>"
        for e in entries
    )
    return (
        "<!doctype html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>"
        f"<header><h1>{html.escape(title)}</h1><p class='intro'>Every table is taken from a "
        "course notebook, where the next cell checks it against JAX.</p></header>"
        f"<main>{sections}</main></body></html>\n"
    )


def _tables_and_lead(body: str) -> str:
    """``body`` up to its last table row: the prose after it points at notebook cells."""
    lines = body.rstrip().splitlines()
    last = max((i for i, line in enumerate(lines) if line.lstrip().startswith("|")), default=-1)
    return "\n".join(lines[: last + 1])


def find_chromium() -> str | None:
    """A headless-capable Chromium or Chrome on ``PATH``, if any."""
    names = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
    return next((p for p in map(shutil.which, names) if p), None)


def print_pdf(
    html_path: Path, pdf_path: Path, browser: str | None = None, timeout: float = 120
) -> Path:
    """Print ``html_path`` to ``pdf_path`` with headless Chromium.

    Raises:
        QuickrefError: no Chromium (install the Debian ``chromium`` package, or use the HTML), or
            printing failed.
    """
    browser = browser or find_chromium()
    if browser is None:
        raise QuickrefError(
            "printing the PDF needs Chromium or Chrome (Debian: apt-get install chromium); "
            f"the HTML is at {html_path}"
        )
    with tempfile.TemporaryDirectory(prefix="aurora-quickref-") as profile:
        command = [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            f"--user-data-dir={profile}",
            "--no-pdf-header-footer",
            f"--print-to-pdf={pdf_path}",
            html_path.resolve().as_uri(),
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0 or not pdf_path.exists() or pdf_path.stat().st_size == 0:
        raise QuickrefError(f"Chromium could not print the PDF: {done.stderr.strip()[-800:]}")
    return pdf_path


def write_quickref(notebooks_dir: Path, out_dir: Path, *, pdf: bool = True) -> list[Path]:
    """Write ``quickref.html`` (and ``quickref.pdf`` with ``pdf``) into ``out_dir``."""
    entries = collect(notebooks_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    html_path = out_dir / "quickref.html"
    html_path.write_text(as_html(entries), encoding="utf-8")
    written = [html_path]
    if pdf:
        written.append(print_pdf(html_path, out_dir / "quickref.pdf"))
    return written
