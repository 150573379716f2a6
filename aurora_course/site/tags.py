"""What each course cell tag becomes on the website, and the notebook copies the site reads.

The course tags cells by meaning (``solution``); myst-nb acts on tags by presentation
(``hide-input``, ``remove-cell``). :data:`TAG_BEHAVIOUR` maps one onto the other, so a new kind of
cell (instructor notes, say) needs one line here, not a change to the site builder.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

from aurora_helpers.contract import MIME_PREFIX

from ..course_notebook import NotebookNode, is_instructor

#: Course tag -> myst-nb tags added to the cell in the copy the site reads.
#: ``hide-input``: the code sits behind a collapsed "show" toggle, its output stays visible.
#: (For content that must not reach the site at all, map a tag to ``remove-cell``.)
TAG_BEHAVIOUR: Mapping[str, tuple[str, ...]] = {
    "solution": ("hide-input",),
}


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


def site_copy(
    nb: NotebookNode,
    banner: str | None = None,
    table: Mapping[str, tuple[str, ...]] = TAG_BEHAVIOUR,
) -> NotebookNode:
    """A copy of an executed notebook for the site: tags mapped by ``table``, ``banner`` inserted.

    Outputs lose their machine-only MIME types (:data:`MACHINE_MIME_PREFIX`); markdown cells
    tagged ``instructor`` become collapsed "Instructor note" blocks.

        ``banner`` (MyST markdown) becomes a new markdown cell right after the first markdown cell
        (the title cell), or the first cell when the notebook has no markdown. ``nb`` is not changed.
    """
    import nbformat

    out = copy.deepcopy(nb)
    for cell in out.cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell.get("cell_type") == "markdown" and is_instructor(cell):
            cell.source = collapsed_note(cell.source)
        mapped = site_tags(list(tags), table)
        if mapped != list(tags):
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
