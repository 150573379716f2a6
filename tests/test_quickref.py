"""The quick reference is taken from checked notebook tables and renders to HTML (and PDF)."""

import os
import re

import nbformat
import pytest

from aurora_course.course_notebook import CourseNotebook
from aurora_course.quickref import (
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
    (entry,) = entries_of(CourseNotebook.from_nb(nb, "07_x"))
    assert entry.title == "Collectives" and entry.notebook_title == "07 · shard_map"
    assert entry.body.startswith("| op |")
    page = as_html([entry])
    assert "<table>" in page and "<code>psum</code>" in page and "<script" not in page
    assert "The next cell" not in page  # prose after the last table points at cells: dropped
    assert "## Collectives" in as_myst([entry])


@pytest.mark.parametrize(
    ("cells", "message"),
    [
        ([("md", "| a |\n|---|\n| 1 |", ["quickref"]), ("code", "", [])], "starts with"),
        ([("md", "**Quick reference: T.** no table", ["quickref"]), ("code", "", [])], "table"),
        ([("md", TABLE, ["quickref"])], "checks a quick-reference"),
        ([("md", TABLE, ["quickref"]), ("md", "## Next", []), ("code", "", [])], "before the next"),
        ([("code", "x = 1", ["quickref"])], "only markdown"),
    ],
)
def test_malformed_quickref_cells_are_named(cells, message):
    with pytest.raises(QuickrefError, match=message):
        entries_of(CourseNotebook.from_nb(_nb(cells), "nb"))


def test_the_course_reference_covers_the_required_topics():
    titles = " | ".join(e.title.lower() for e in collect(NOTEBOOKS))
    for topic in ("partitionspec", "collective", "multihost_utils", "transfer"):
        assert topic in titles, f"no quick-reference table about {topic!r}: {titles}"


@pytest.mark.slow
def test_the_pdf_is_printed(tmp_path):
    if find_chromium() is None:
        if os.environ.get("AURORA_REQUIRE_BROWSER"):
            pytest.fail("AURORA_REQUIRE_BROWSER is set but no Chromium was found")
        pytest.skip("needs Chromium to print the PDF (make test-site installs it and runs this)")
    html_path, pdf_path = write_quickref(NOTEBOOKS, tmp_path)
    assert html_path.read_text().count("<section>") >= 4
    pdf = pdf_path.read_bytes()
    assert pdf.startswith(b"%PDF")
    pages = re.findall(rb"/Type\s*/Page[^s]", pdf)
    assert len(pages) == 1, f"the quick reference prints on {len(pages)} pages, not one"
