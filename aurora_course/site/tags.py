"""What each course cell tag becomes on the website, and the notebook copies the site reads.

The course tags cells by meaning (``solution``); myst-nb acts on tags by presentation
(``hide-input``, ``remove-cell``). :data:`TAG_BEHAVIOUR` maps one onto the other, so a new kind of
cell (instructor notes, say) needs one line here, not a change to the site builder.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping

from aurora_helpers.contract import MIME_PREFIX

from ..course_notebook import NotebookNode, check_cell_indexes, is_instructor, is_solution
from .api_links import link_markdown, notebook_aliases

#: The tag the site copy gives check cells (:func:`~aurora_course.course_notebook.check_cell_indexes`).
CHECK_TAG = "check"

#: Course tag -> myst-nb tags added to the cell in the copy the site reads.
#: ``hide-input``: the code sits behind a collapsed "show" toggle, its output stays visible.
#: (For content that must not reach the site at all, map a tag to ``remove-cell``.)
TAG_BEHAVIOUR: Mapping[str, tuple[str, ...]] = {
    "solution": ("hide-input",),
    CHECK_TAG: ("hide-input",),
}


#: The words on the toggles of collapsed cells (the landing page names them too).
SOLUTION_TOGGLE = ("Show the solution", "Hide the solution")
CHECK_TOGGLE = ("Show the check", "Hide the check")

#: Colab's form title, the first line of a solution (``# @title Solution (double-click to show)``):
#: an instruction for Colab, not part of the answer, so the site leaves it out.
_COLAB_TITLE = re.compile(r"\A\s*#\s*@title\b[^\n]*\n?")

#: Output MIME types meant for programs, not readers (the set-up summary ``aurora run`` reads
#: back). The site copies drop them; each such output also carries ``text/plain``, which stays.
MACHINE_MIME_PREFIX = MIME_PREFIX


def site_tags(tags: list[str], table: Mapping[str, tuple[str, ...]] = TAG_BEHAVIOUR) -> list[str]:
    """``tags`` plus the myst-nb tags that ``table`` assigns to them, in order, without repeats."""
    out = list(tags)
    for tag in tags:
        for extra in table.get(tag, ()):
            if extra not in out:
                out.append(extra)
    return out


def collapsed_note(markdown: str, summary: str = "Instructor note") -> str:
    """``markdown`` as a closed ``<details>`` block (raw HTML, so no Sphinx extension is needed)."""
    import html

    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark").enable("table").render(markdown).strip()
    return (
        "```{raw} html\n"
        f'<details class="aurora-instructor"><summary>{html.escape(summary)}</summary>\n'
        f"{body}\n</details>\n"
        "```\n"
    )


def _plain(markdown: str) -> str:
    """Markdown as plain words, for alt text: no code marks, emphasis, links or line breaks."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    text = re.sub(r"[`*]+|^#+\s*", "", text, flags=re.M)
    return " ".join(text.split())


def _drawing_call(source: str) -> str:
    """The call that made a cell's figure: its last line, or, where that is a bare name, the
    right-hand side that name was assigned (``mesh_picture = ah.draw_mesh(mesh)``)."""
    lines = [ln.strip() for ln in source.splitlines()]
    code = next((ln for ln in reversed(lines) if ln and not ln.startswith("#")), "")
    if re.fullmatch(r"[A-Za-z_]\w*", code):
        assigned = re.compile(rf"^{code}\s*=\s*(?P<value>.+)$")
        code = next((m["value"] for ln in lines for m in [assigned.match(ln)] if m), code)
    return code


def figure_alt(nb: NotebookNode, index: int) -> str:
    """Alt text for the figures of code cell ``index``: what the prose just before says about it
    (the first sentence of its last paragraph) and the call that drew it, e.g. "ah.draw_mesh
    draws the devices laid out by axis, one colour per device. Drawn by ah.draw_mesh(mesh)."."""
    code = _drawing_call(str(nb.cells[index].source))
    prose = ""
    if index > 0 and nb.cells[index - 1].get("cell_type") == "markdown":
        cell = nb.cells[index - 1]
        if not is_instructor(cell):
            paragraphs = [p for p in str(cell.source).split("\n\n") if p.strip()]
            text = _plain(paragraphs[-1]) if paragraphs else ""
            prose = re.split(r"(?<=[.!?])\s+", text)[0].rstrip(":. ")
    drawn = f"Drawn by {code[:120]}" if code else "A figure"
    return f"{prose[:240]}. {drawn}." if prose else f"{drawn}."


def _has_image(cell: NotebookNode) -> bool:
    return any(
        m.startswith("image/") for out in cell.get("outputs", []) for m in out.get("data", {})
    )


def _prompts(cell: NotebookNode, toggle: tuple[str, str]) -> None:
    mystnb = cell.setdefault("metadata", {}).setdefault("mystnb", {})
    mystnb["code_prompt_show"], mystnb["code_prompt_hide"] = toggle


def site_copy(
    nb: NotebookNode,
    banner: str | None = None,
    table: Mapping[str, tuple[str, ...]] = TAG_BEHAVIOUR,
) -> NotebookNode:
    """A copy of an executed notebook for the site: tags mapped by ``table``, ``banner`` inserted.

    What a learner needs from the page: solutions and check cells collapsed behind toggles that
    say which they are (:data:`SOLUTION_TOGGLE`, :data:`CHECK_TOGGLE`; a solution without Colab's
    ``# @title`` line), every figure with alt text (:func:`figure_alt`), JAX names in the prose
    linked to JAX's reference (:func:`~.api_links.link_markdown`). Outputs lose their machine-only
    MIME types (:data:`MACHINE_MIME_PREFIX`); markdown cells tagged ``instructor`` become collapsed
    "Instructor note" blocks.

    ``banner`` (MyST markdown) becomes a new markdown cell right after the first markdown cell
    (the title cell), or the first cell when the notebook has no markdown. ``nb`` is not changed.
    """
    import nbformat

    out = copy.deepcopy(nb)
    aliases = notebook_aliases(out)
    checks = set(check_cell_indexes(out))
    for index, cell in enumerate(out.cells):
        tags = list(cell.get("metadata", {}).get("tags", []))
        if cell.get("cell_type") == "markdown":
            cell.source = link_markdown(str(cell.source), aliases)
            if is_instructor(cell):
                cell.source = collapsed_note(cell.source)
        elif cell.get("cell_type") == "code":
            if is_solution(cell):
                cell.source = _COLAB_TITLE.sub("", str(cell.source), count=1)
                _prompts(cell, SOLUTION_TOGGLE)
            elif index in checks:
                tags.append(CHECK_TAG)
                _prompts(cell, CHECK_TOGGLE)
            if _has_image(cell):
                cell.metadata.setdefault("mystnb", {})["image"] = {"alt": figure_alt(out, index)}
        mapped = site_tags(tags, table)
        if mapped != list(cell.get("metadata", {}).get("tags", [])):
            cell.setdefault("metadata", {})["tags"] = mapped
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            for mime in [m for m in data if m.startswith(MACHINE_MIME_PREFIX)]:
                del data[mime]
    if banner:
        first_md = next(
            (i for i, c in enumerate(out.cells) if c.get("cell_type") == "markdown"), -1
        )
        cell = nbformat.v4.new_markdown_cell(banner)
        out.cells.insert(first_md + 1, cell)
    return out
