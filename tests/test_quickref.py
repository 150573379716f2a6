"""The quick reference is taken from checked notebook tables and renders to HTML (and PDF)."""

import re

import nbformat
import pytest

from aurora_course.course_notebook import CourseNotebook
from aurora_course.quickref import (
    BODY_PT,
    QuickrefError,
    as_html,
    as_myst,
    collect,
    entries_of,
    find_chromium,
    write_quickref,
)

from .conftest import NOTEBOOKS
from .site_browser import need_browser

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
    entries = collect(NOTEBOOKS)
    titles = " | ".join(e.title.lower() for e in entries)
    topics = ("partitionspec", "collective", "multihost_utils", "transfer", "jit", "static")
    for topic in (*topics, "donation", "vmap", "jax.shard_map"):
        assert topic in titles, f"no quick-reference table about {topic!r}: {titles}"
    bodies = " ".join(e.body for e in entries)
    for call in ("static_argnames", "donate_argnums", "in_axes", "out_specs", "check_vma"):
        assert call in bodies, call


def test_formulas_are_kept_on_one_line_and_the_body_is_readable():
    entries = collect(NOTEBOOKS)
    page = as_html(entries)
    for formula in ("2 · (n-1)/n · B", "(n-1)/n · B", "(n·m, c)", "2 · (n-1)"):
        assert f"<code class='formula'>{formula}</code>" in page, formula
    assert "<code class='formula'>psum(" not in page  # a call may wrap like prose
    # ... but only between a name's words or after punctuation, never mid-word
    assert "static_<wbr>argnames" in page and "overflow-wrap: anywhere" not in page
    assert BODY_PT >= 8.5 and f"font: {BODY_PT}pt/" in page
    wide = [e.title for e in entries if "class='wide'" in as_html([e])]
    assert any("collectives" in t for t in wide)  # six columns: the page's full width


@pytest.mark.slow
def test_the_pdf_is_printed(tmp_path):
    need_browser(
        find_chromium(),
        "needs Chromium to print the PDF (make test-site installs it and runs this)",
    )
    html_path, pdf_path = write_quickref(NOTEBOOKS, tmp_path)
    assert html_path.read_text().count("<section>") >= 4
    pdf = pdf_path.read_bytes()
    assert pdf.startswith(b"%PDF")
    pages = re.findall(rb"/Type\s*/Page[^s]", pdf)
    assert len(pages) <= 2, f"the quick reference prints on {len(pages)} pages, not one sheet"


@pytest.mark.slow
def test_in_the_browser_no_formula_wraps_and_the_body_is_8_5_pt(tmp_path):
    """Rendered by Chromium: every formula occupies one line box, the body text is 8.5 pt."""
    from .site_browser import chromium
    from .site_browser import find_chromium as find_driver

    need_browser(find_driver(), "needs Chromium and chromedriver (make test-site installs them)")
    (html_path,) = write_quickref(NOTEBOOKS, tmp_path, pdf=False)
    with chromium() as driver:
        driver.set_window_size(1123, 794)  # A4 landscape at 96 dpi
        driver.get(html_path.resolve().as_uri())
        lines = driver.execute_script(
            "return [...document.querySelectorAll('code.formula')]"
            ".map(c => [c.textContent, c.getClientRects().length])"
        )
        body_px = driver.execute_script(
            "return parseFloat(getComputedStyle(document.body).fontSize)"
        )
    assert len(lines) > 20
    assert [text for text, rects in lines if rects != 1] == []
    assert body_px * 72 / 96 >= 8.5 - 0.01


#: Finds, in each code span that wraps, the characters on either side of each line break.
_LINE_BREAKS_JS = """
const found = [];
for (const code of document.querySelectorAll('code:not(.formula)')) {
  if (code.getClientRects().length < 2) continue;
  const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
  let top = null, before = '';
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.length; i++) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const rect = range.getClientRects()[0];
      if (rect && rect.width > 0) {
        if (top !== null && rect.top > top + 2) found.push([code.textContent, before, node.data[i]]);
        top = rect.top;
      }
      before = node.data[i];
    }
  }
}
return found;
"""


@pytest.mark.slow
@pytest.mark.parametrize("width", [1123, 800])
def test_in_the_browser_code_wraps_only_between_words(tmp_path, width):
    """Rendered by Chromium (the printed A4 page, and narrower): a code span that wraps breaks
    between tokens or a name's words (after ``.``, ``_``, ``,``, ``(``, ``=``, ``/``, a space,
    between ``)(``), never between two letters or digits of one word (``static_argnam|es``)."""
    from .site_browser import chromium
    from .site_browser import find_chromium as find_driver

    need_browser(find_driver(), "needs Chromium and chromedriver (make test-site installs them)")
    (html_path,) = write_quickref(NOTEBOOKS, tmp_path, pdf=False)
    with chromium() as driver:
        driver.set_window_size(width, 794)
        driver.get(html_path.resolve().as_uri())
        breaks = driver.execute_script(_LINE_BREAKS_JS)
    assert breaks, "no code span wraps at this width: the test shows nothing"
    mid_word = [(code, a + "|" + b) for code, a, b in breaks if a.isalnum() and b.isalnum()]
    assert mid_word == []
