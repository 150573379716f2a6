"""The site builder, on small executed notebooks made here (the browser tests use a real run)."""

from __future__ import annotations

import base64
import re

import nbformat
import pytest

from aurora_course.course import colab_url
from aurora_course.course_notebook import CourseNotebook, check_cell_indexes
from aurora_course.records import NotebookRun
from aurora_course.site import (
    TAG_BEHAVIOUR,
    SiteBuildError,
    build_site,
    site_copy,
    site_tags,
    sphinx_available,
)
from aurora_course.site.api_links import JAX_DOCS, api_url, link_code_html, link_markdown
from aurora_course.site.pages import banner, landing_page
from aurora_course.site.tags import CHECK_TOGGLE, SOLUTION_TOGGLE
from aurora_helpers.perf.plan_gallery import plan_cases

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
    solution = nbformat.v4.new_code_cell(
        "# @title Solution (double-click to show)\nanswer = 42", metadata={"tags": ["solution"]}
    )
    solution.execution_count = 2
    nb.cells.append(solution)
    nb.cells.append(nbformat.v4.new_code_cell(f'ah.check("{number}.1", answer, expected=42)'))
    if figure:
        nb.cells.append(nbformat.v4.new_markdown_cell("The picture shows `jnp.sum` at work:"))
        fig = nbformat.v4.new_code_cell("fig = draw(jnp.sum)\nfig")
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


def test_site_copy_gives_learners_toggles_alt_text_and_links():
    nb = _notebook("03", "Devices", 25)
    copy = site_copy(nb)
    solution = next(c for c in copy.cells if "solution" in c.metadata.get("tags", []))
    assert solution.source == "answer = 42"  # Colab's form title is not the answer's first line
    assert solution.metadata.mystnb["code_prompt_show"] == SOLUTION_TOGGLE[0]
    check = next(c for c in copy.cells if "ah.check" in c.source)
    assert check.metadata.tags == ["check", "hide-input"]
    assert check.metadata.mystnb["code_prompt_show"] == CHECK_TOGGLE[0]
    figure = copy.cells[-1]
    assert figure.metadata.mystnb["image"]["alt"] == (
        "The picture shows jnp.sum at work. Drawn by draw(jnp.sum)."
    )
    prose = copy.cells[-2].source
    assert (
        prose
        == f"The picture shows [`jnp.sum`]({JAX_DOCS}_autosummary/jax.numpy.sum.html) at work:"
    )


def test_check_cells_follow_the_rule():
    nb = nbformat.v4.new_notebook()
    sources = [
        ("markdown", "Prose."),
        ("code", "assert 1 + 1 == 2, 'a lesson told by an assert under prose'"),
        ("code", "y = f(x)\ny"),
        ("code", "assert y == 2, 'the claim'\nfor k in range(3):\n    ah.assert_matches(y, 2)"),
        ("code", "z = y + 1"),
        ("code", "# Check: z follows y\nexpected = y + 1\nassert z == expected, z"),
        ("code", "print(y)\nassert y"),
        ("code", 'ah.check("03.1", answer, expected=1)'),
        ("code", "assert y"),
    ]
    nb.cells = [
        nbformat.v4.new_code_cell(s) if kind == "code" else nbformat.v4.new_markdown_cell(s)
        for kind, s in sources
    ]
    nb.cells[-1].metadata["tags"] = ["solution"]
    assert check_cell_indexes(nb) == (3, 5, 7)


def test_api_names_resolve_to_jax_reference_pages():
    assert api_url("jax.device_put") == f"{JAX_DOCS}_autosummary/jax.device_put.html"
    assert api_url("jnp.sum") == f"{JAX_DOCS}_autosummary/jax.numpy.sum.html"
    assert api_url("P") == f"{JAX_DOCS}jax.sharding.html#jax.sharding.PartitionSpec"
    assert api_url("jax.P") == api_url("P")
    assert api_url("NS", {"NS": "jax.sharding.NamedSharding"}) == (
        f"{JAX_DOCS}jax.sharding.html#jax.sharding.NamedSharding"
    )
    assert api_url("np.sum") is None and api_url("x.sharding") is None
    assert api_url("jax.not_a_name_at_all") is None
    text = "Use `jax.device_put(x, s)`, not `x.copy()`; see [`jax.jit`](https://x)."
    linked = link_markdown(text + "\n# `jax.jit` in a heading\n```\n`jax.jit`\n```")
    assert linked.splitlines()[0] == (
        f"Use [`jax.device_put(x, s)`]({JAX_DOCS}_autosummary/jax.device_put.html), not "
        "`x.copy()`; see [`jax.jit`](https://x)."
    )
    assert linked.splitlines()[1:] == ["# `jax.jit` in a heading", "```", "`jax.jit`", "```"]
    code = (
        '<span class="n">jax</span><span class="o">.</span><span class="n">device_put</span>'
        '<span class="o">.</span><span class="n">foo</span> <span class="n">x</span>'
    )
    html = link_code_html(code)
    assert html.startswith(
        f'<a class="aurora-api reference external" href="{JAX_DOCS}_autosummary/jax.device_put.html"'
    )
    assert html.endswith(
        '</a><span class="o">.</span><span class="n">foo</span> <span class="n">x</span>'
    )


def test_banner_sends_learners_to_their_copy_and_labels_the_solutions():
    page = NotebookRun("06_sharding", "ok", 1.0, "x", title="06 · Sharding")
    text = banner(page)
    assert f"[Open in Colab]({colab_url('06_sharding.ipynb', folder='student')})" in text
    assert "{download}`Download the notebook <student/06_sharding.ipynb>`" in text
    assert (
        f"**With the solutions**, for self-study: [open the course notebook in Colab]({colab_url('06_sharding.ipynb')})"
        in text
    )
    failed = banner(NotebookRun("06_sharding", "failed", 1.0, "x", error="cell [3] raised X at y"))
    assert "**This notebook failed:** cell [3] raised X at y" in failed


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
    assert "JAX 0.12.0" in page and "colab.research.google.com/github" in page
    assert "blob/main/student/01_arrays.ipynb" in page and "Show the solution" in page
    (download,) = (site / "_downloads").rglob("01_arrays.ipynb")
    served = nbformat.read(download, 4)
    assert "answer = ..." in served.cells[-4].source and not any(
        c.get("outputs") for c in served.cells
    )
    assert not (site / "student").exists() and list((site / "_images").glob("*.png"))
    assert 'alt="The picture shows jnp.sum at work. Drawn by draw(jnp.sum)."' in page
    assert 'class="aurora-api' in page and "aurora.js" in page
    assert "probe-cell" in (site / "machine.html").read_text()
    # Instructor notes are collapsed; the quick reference is a page made from the tagged tables.
    assert re.search(r'<details class="aurora-instructor"><summary>Instructor note</summary>', page)
    assert "<code>note_01_term</code>" in page
    quickref = (site / "quickref.html").read_text()
    assert "Table 00" in quickref and "Table 01" in quickref and "<table" in quickref
    assert "quickref.html" in landing and not (site / "schedule.html").exists()
    # The run planner's page: the gallery the live panel stands in for, computed at build time.
    planner = (site / "planner.html").read_text()
    assert "planner.html" in landing and 'class="plan-gallery"' in planner
    best = plan_cases()[0].rank().best
    assert (
        f"<b>{best.layout.name}</b>" in planner and 'plan<span class="w"> </span>--model' in planner
    )
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


def test_code_lines_become_blocks_that_keep_the_code():
    from aurora_course.site.code_lines import hang_wrapped_lines

    body = (
        '<span></span><span class="k">def</span> <span class="nf">f</span>():\n'
        '    <span class="sd">"""Two\n    lines."""</span>\n'
        "\n"
        '    <a class="aurora-api" href="u"><span class="n">jax</span></a>(<span class="mi">1</span>)\n'
    )
    page = f'<p>x</p><div class="highlight"><pre>{body}</pre></div>'
    out = hang_wrapped_lines(page)
    lines = re.findall(
        r'<span class="aurora-line" style="--i:(\d+)">(.*?)</span>(?=<span class="aurora-line"|</pre>)',
        out,
    )
    text = [re.sub(r"<[^>]+>", "", line) for _, line in lines]
    assert text == ["def f():", '    """Two', '    lines."""', "", "    jax(1)"]
    assert [int(i) for i, _ in lines] == [0, 4, 4, 0, 4]
    # every line's tags are balanced: a docstring's span is closed and opened again
    for _, line in lines:
        assert line.count("<span") == line.count("</span>") and line.count("<a ") == line.count(
            "</a>"
        )
    assert out.startswith("<p>x</p>") and hang_wrapped_lines("<p>no code</p>") == "<p>no code</p>"
