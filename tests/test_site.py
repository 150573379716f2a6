"""The site builder, on small executed notebooks made here (the browser tests use a real run)."""

from __future__ import annotations

import base64
import re

import nbformat
import pytest

from aurora_course.course_notebook import CourseNotebook
from aurora_course.records import NotebookRun
from aurora_course.site import (
    TAG_BEHAVIOUR,
    SiteBuildError,
    build_site,
    site_copy,
    site_tags,
    sphinx_available,
)
from aurora_course.site.pages import landing_page

# A 1x1 PNG, so a figure output has real bytes.
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360f8cfc0f01f0005000201a5e2d1e50000000049454e44ae426082"
    )
).decode()


def test_site_tags_follow_the_table_and_keep_the_originals():
    assert site_tags(["solution"]) == ["solution", "hide-input"]
    assert site_tags(["parameters"]) == ["parameters"]
    assert site_tags(["solution", "hide-input"]) == ["solution", "hide-input"]
    table = {"instructor": ("remove-cell",), **TAG_BEHAVIOUR}
    assert site_tags(["instructor"], table) == ["instructor", "remove-cell"]


def _notebook(number: str, title: str, minutes: int, figure: bool = True):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells.append(
        nbformat.v4.new_markdown_cell(
            f"# {number} · {title}\n\n**Time:** about {minutes} minutes "
            f"({minutes - 10} teaching, 10 exercises)."
        )
    )
    code = nbformat.v4.new_code_cell("x = 1\nx")
    code.execution_count = 1
    code.outputs = [
        nbformat.v4.new_output("execute_result", {"text/plain": "1"}, execution_count=1)
    ]
    nb.cells.append(code)
    nb.cells.append(
        nbformat.v4.new_markdown_cell(
            f"**Instructor note: pacing.** Ask about `note_{number}_term` first.",
            metadata={"tags": ["instructor"]},
        )
    )
    nb.cells.append(
        nbformat.v4.new_markdown_cell(
            f"**Quick reference: Table {number}.**\n\n| call | gives |\n|---|---|\n| `f{number}` | 1 |",
            metadata={"tags": ["quickref"]},
        )
    )
    nb.cells.append(nbformat.v4.new_code_cell("assert 1"))
    nb.cells.append(
        nbformat.v4.new_markdown_cell(f"## Exercise {number}.1\n\nUse `unique_{number}_term`.")
    )
    solution = nbformat.v4.new_code_cell("answer = 42", metadata={"tags": ["solution"]})
    solution.execution_count = 2
    nb.cells.append(solution)
    if figure:
        fig = nbformat.v4.new_code_cell("draw()")
        fig.execution_count = 3
        fig.outputs = [
            nbformat.v4.new_output("display_data", {"image/png": PNG, "text/plain": "<Figure>"})
        ]
        nb.cells.append(fig)
    return nb


def test_site_copy_maps_tags_inserts_the_banner_and_leaves_the_original():
    nb = _notebook("03", "Devices", 25)
    copy = site_copy(nb, "BANNER")
    assert [c.source for c in copy.cells][1] == "BANNER"
    solution = next(i for i, c in enumerate(nb.cells) if "solution" in c.metadata.get("tags", []))
    assert copy.cells[solution + 1].metadata.tags == ["solution", "hide-input"]
    assert nb.cells[solution].metadata.tags == ["solution"] and len(nb.cells) == len(copy.cells) - 1
    note = next(c for c in copy.cells if "instructor" in c.metadata.get("tags", []))
    assert note.source.startswith("```{raw} html") and "<details" in note.source
    nbformat.validate(copy)


def test_titles_and_times_come_from_the_title_cell():
    nb = _notebook("05", "Async dispatch", 45)
    model = CourseNotebook.from_nb(nb, "05_async")
    assert (model.heading, model.number, model.title) == (
        "05 · Async dispatch",
        "05",
        "Async dispatch",
    )
    assert model.time is not None and model.time.total == 45
    empty = CourseNotebook.from_nb(nbformat.v4.new_notebook(), "fallback")
    assert (empty.time, empty.heading, empty.title) == (None, "fallback", "fallback")


def test_landing_page_lists_notebooks_in_the_order_given_with_times():
    pages = [
        NotebookRun("01_b", "ok", 3.0, "x", title="01 · B", minutes=20),
        NotebookRun("00_a", "failed", 1.5, "y", title="00 · A", minutes=10),
    ]
    text = landing_page(pages)
    assert text.index("01_b>") < text.index("00_a>")
    assert "| 20 min | ok | 3.0 s |" in text and "| 10 min | failed | 1.5 s |" in text
    assert "About 30 minutes" in text
    toc = text.split("```{toctree}")[1]
    assert toc.index("01_b") < toc.index("00_a") < toc.index("machine")


def test_ran_on_names_every_fact():
    page = NotebookRun(
        "00_a", "ok", 2.25, "x", backend="cpu", device_count=8, jax_version="0.12.0",
        finished="2026-11-23 20:00 UTC",
    )  # fmt: skip
    assert page.ran_on() == (
        "JAX 0.12.0 · backend `cpu` · 8 device(s) · 2.2 s · executed 2026-11-23 20:00 UTC"
    )


@pytest.mark.slow
@pytest.mark.skipif(not sphinx_available(), reason="needs the course extra (sphinx, myst-nb)")
def test_build_site_strict_from_executed_notebooks(tmp_path):
    runs = []
    for number, name, title, minutes in [
        ("00", "welcome", "Welcome", 10),
        ("01", "arrays", "Arrays", 35),
    ]:
        path = tmp_path / "notebooks" / f"{number}_{name}.ipynb"
        path.parent.mkdir(exist_ok=True)
        nbformat.write(_notebook(number, title, minutes), path)
        runs.append(
            NotebookRun.from_dict(
                {
                    "notebook": path.stem,
                    "status": "ok",
                    "seconds": 1.0,
                    "output": str(path),
                    "title": f"{number} · {title}",
                    "minutes": minutes,
                    "backend": "cpu",
                    "device_count": 8,
                    "jax_version": "0.12.0",
                    "finished": "2026-11-23 20:00 UTC",
                }
            )
        )
    result = build_site(
        runs, tmp_path, probe_html="<table><tr><td>probe-cell</td></tr></table>", strict=True
    )
    site = tmp_path / "site"
    assert result.index == site / "index.html" and result.warnings == []
    assert result.pages == ["00_welcome", "01_arrays"]
    landing = (site / "index.html").read_text()
    assert landing.index("00_welcome.html") < landing.index("01_arrays.html")
    assert "35 min" in landing and "<title>" in landing
    page = (site / "01_arrays.html").read_text()
    assert re.search(r"<title>01 · Arrays", page), "the page title is not the notebook's title"
    assert "tag_hide-input" in page and "<details" in page
    assert "JAX 0.12.0" in page and "colab.research.google.com" in page
    assert (site / "_downloads").exists() and list((site / "_images").glob("*.png"))
    assert "probe-cell" in (site / "machine.html").read_text()
    # Instructor notes are collapsed; the quick reference is a page made from the tagged tables.
    assert re.search(r'<details class="aurora-instructor"><summary>Instructor note</summary>', page)
    assert "<code>note_01_term</code>" in page
    quickref = (site / "quickref.html").read_text()
    assert "Table 00" in quickref and "Table 01" in quickref and "<table" in quickref
    assert "quickref.html" in landing and not (site / "schedule.html").exists()
    assert (tmp_path / "site-src-work" / "warnings.txt").read_text() == ""
    assert (site / "searchindex.js").exists()
    # The executed notebooks are read, never changed.
    cells = nbformat.read(tmp_path / "notebooks" / "00_welcome.ipynb", 4).cells
    assert [c.metadata.get("tags") for c in cells if c.metadata.get("tags")] == [
        ["instructor"],
        ["quickref"],
        ["solution"],
    ]
    # Docutils keeps its registrations for the whole process: a second build here (as after
    # `aurora run` in the same process) must be as clean as the first.
    again = build_site(runs, tmp_path / "again", probe_html="<p>probe</p>", strict=True)
    assert again.warnings == [] and again.pages == result.pages


def test_build_site_without_executed_notebooks_is_an_error(tmp_path):
    if not sphinx_available():
        pytest.skip("needs the course extra")
    with pytest.raises(SiteBuildError, match="no executed notebooks"):
        build_site([NotebookRun("x", "ok", 0, str(tmp_path / "missing.ipynb"))], tmp_path)
