"""The quick reference is taken from checked notebook tables and renders to HTML (and PDF)."""

import os

import nbformat
import pytest

from aurora_helpers.quickref import (
    QuickrefError,
    as_html,
    as_myst,
    collect,
    entries_of,
    find_chromium,
    write_quickref,
)

from .conftest import NOTEBOOKS

TABLE = "**Quick reference: Collectives.**\n\n| op | result |\n|---|---|\n| `psum` | sum |"


def _nb(cells):
    out = []
    for kind, source, tags in cells:
        make = nbformat.v4.new_markdown_cell if kind == "md" else nbformat.v4.new_code_cell
        cell = make(source)
        cell.metadata["tags"] = tags
        out.append(cell)
    return nbformat.v4.new_notebook(cells=out)


def test_a_tagged_table_followed_by_its_check_is_collected():
    nb = _nb(
        [("md", "# 07 · shard_map", []), ("md", TABLE, ["quickref"]), ("code", "assert 1", [])]
    )
    (entry,) = entries_of(nb, "07_x.ipynb")
    assert entry.title == "Collectives" and entry.notebook_title == "07 · shard_map"
    assert entry.body.startswith("| op |")
    page = as_html([entry])
    assert "<table>" in page and "<code>psum</code>" in page and "<script" not in page
    assert "## Collectives" in as_myst([entry])


@pytest.mark.parametrize(
    ("cells", "message"),
    [
        ([("md", "| a |\n|---|\n| 1 |", ["quickref"]), ("code", "", [])], "starts with"),
        ([("md", "**Quick reference: T.** no table", ["quickref"]), ("code", "", [])], "table"),
        ([("md", TABLE, ["quickref"])], "checks it"),
        ([("md", TABLE, ["quickref"]), ("md", "prose", []), ("code", "", [])], "checks it"),
        ([("code", "x = 1", ["quickref"])], "only markdown"),
    ],
)
def test_malformed_quickref_cells_are_named(cells, message):
    with pytest.raises(QuickrefError, match=message):
        entries_of(_nb(cells), "nb.ipynb")


def test_the_course_reference_covers_the_required_topics():
    titles = " | ".join(e.title.lower() for e in collect(NOTEBOOKS))
    for topic in ("partitionspec", "collective", "multihost_utils", "transfer"):
        assert topic in titles, f"no quick-reference table about {topic!r}: {titles}"


@pytest.mark.skipif(
    find_chromium() is None, reason="needs Chromium to print (make test-site has it)"
)
def test_the_pdf_is_printed(tmp_path):
    html_path, pdf_path = write_quickref(NOTEBOOKS, tmp_path)
    assert html_path.read_text().count("<section>") >= 4
    assert pdf_path.read_bytes().startswith(b"%PDF")
