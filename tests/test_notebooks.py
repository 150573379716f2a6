"""Static checks of the course notebooks: pairs, outputs, template, exercises, public API only."""

from __future__ import annotations

import re

import jupytext
import nbformat
import pytest

import aurora_helpers as ah
from aurora_course.course import find_notebooks, pip_install_target
from aurora_course.course_notebook import (
    EXERCISE_HEADING,
    TIME_LINE,
    CourseNotebook,
    is_label,
    is_solution,
)
from aurora_course.jupyterhub import COURSE_KERNELSPEC, COURSE_LANGUAGE_INFO
from aurora_course.student import stub_source

from .conftest import NOTEBOOKS

PATHS = find_notebooks(NOTEBOOKS)
IDS = [p.stem for p in PATHS]
MIN_EXERCISES = 3  # per notebook
MIN_INSTRUCTOR_NOTES = 3  # per notebook
COLAB_FORM_TITLE = "# @title Solution (double-click to show)"


def _cells(nb):
    return [
        (
            c.cell_type,
            c.source.strip(),
            sorted(c.metadata.get("tags", [])),
            bool(c.metadata.get("jupyter", {}).get("source_hidden", False)),
            c.metadata.get("cellView"),
        )
        for c in nb.cells
    ]


def _code(nb):
    return [c for c in nb.cells if c.cell_type == "code"]


def test_the_course_has_notebooks():
    assert PATHS, "no notebooks found"
    assert PATHS[0].name == "00_welcome.ipynb"


def test_every_notebook_is_a_pair():
    ipynb = {p.stem for p in NOTEBOOKS.glob("*.ipynb")}
    md = {p.stem for p in NOTEBOOKS.glob("*.md")}
    assert ipynb == md, f"unpaired: {sorted(ipynb ^ md)} (run `make sync`)"


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_pair_in_sync(path):
    ipynb = nbformat.read(path, as_version=4)
    md = jupytext.read(path.with_suffix(".md"))
    assert _cells(ipynb) == _cells(md), f"{path.name} and its .md differ: run `make sync`"


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    dirty = [
        i
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code" and (c.outputs or c.execution_count)
    ]
    assert not dirty, (
        f"{path.name}: cells {dirty} hold outputs (strip them: `make sync` writes clean ones)"
    )
    # The kernel `aurora kernel install` registers (docs/jupyterhub.md, make lab), as JupyterLab
    # writes it once the kernel started: a notebook opened on it is not modified.
    assert dict(nb.metadata.get("kernelspec", {})) == COURSE_KERNELSPEC, (
        f"{path.name}: its kernelspec must name the course's kernel {COURSE_KERNELSPEC}"
    )
    assert nb.metadata.get("language_info") == COURSE_LANGUAGE_INFO, (
        f"{path.name}: its language_info must be what the course's kernel reports"
    )


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_template(path):
    nb = nbformat.read(path, as_version=4)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    number = path.stem.split("_")[0]
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith(f"# {number} · ")
    for needle in (
        "**Learning objectives",
        "**Time:**",
        "**Prerequisites:**",
        "## Summary",
        "## Further reading",
    ):
        assert needle in text, f"{path.name} lacks {needle!r}"


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_time_line_splits_teaching_and_exercises(path):
    title = nbformat.read(path, as_version=4).cells[0].source
    assert TIME_LINE.search(title), (
        f"{path.name}: the title cell needs '**Time:** about N minutes (T teaching, E exercises).'"
    )


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_instructor_notes(path):
    notes = [
        c
        for c in nbformat.read(path, as_version=4).cells
        if "instructor" in c.metadata.get("tags", [])
    ]
    assert len(notes) >= MIN_INSTRUCTOR_NOTES, f"{path.name} has {len(notes)} instructor notes"
    for note in notes:
        assert note.cell_type == "markdown" and note.source.startswith("**Instructor note: "), (
            f"{path.name}: an instructor cell is markdown starting with '**Instructor note: '"
        )


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_no_cell_is_meant_to_raise(path):
    """Colab has no cell tags and stops "Run all" at an error: show errors with ah.expect_error."""
    tagged = [
        i
        for i, c in enumerate(nbformat.read(path, as_version=4).cells)
        if "raises-exception" in c.metadata.get("tags", [])
    ]
    assert not tagged, f"{path.name}: cells {tagged} are tagged raises-exception"


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_opening_cells(path):
    code = _code(nbformat.read(path, as_version=4))
    colab, params, setup = code[0], code[1], code[2]
    assert '"google.colab" in sys.modules' in colab.source
    # The install target is the one `aurora retarget` writes (tests/test_retarget.py checks the rest).
    assert pip_install_target() in colab.source
    assert params.metadata.get("tags") == ["parameters"]
    assert "import aurora_helpers as ah" in setup.source and "ah.setup_notebook()" in setup.source
    assert not re.search(r"^\s*import jax|jnp\.|jax\.", params.source + colab.source, re.M), (
        "nothing may touch JAX before ah.setup_notebook()"
    )


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_exercises_are_hidden_checked_and_stubbable(path):
    code = _code(nbformat.read(path, as_version=4))
    solutions = [i for i, c in enumerate(code) if is_solution(c)]
    assert len(solutions) >= MIN_EXERCISES, f"{path.name} has {len(solutions)} exercises"
    for i in solutions:
        cell = code[i]
        assert cell.metadata.get("jupyter", {}).get("source_hidden") is True, (
            f"solution cell {i} is not hidden"
        )
        assert cell.metadata.get("cellView") == "form", f"solution cell {i}: no Colab form"
        assert cell.source.startswith(COLAB_FORM_TITLE + "\n"), (
            f"solution cell {i} does not start with {COLAB_FORM_TITLE!r} (Colab hides the code "
            "of a form cell behind its title)"
        )
        assert i + 1 < len(code) and "ah.check(" in code[i + 1].source, (
            f"solution cell {i} has no check after it"
        )
        stub_source(cell.source)  # raises if the cell cannot be stubbed


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_every_exercise_has_a_heading_a_solution_and_a_check(path):
    model = CourseNotebook.read(path)
    malformed = [
        m.group(0)
        for c in model.cells
        if c.is_markdown
        for m in EXERCISE_HEADING.finditer(c.source)
        if not is_label(m.group("label")) or not m.group("label").startswith(f"{model.number}.")
    ]
    assert not malformed, f"exercise headings need a label NN.k of this notebook: {malformed}"
    for exercise in model.exercises:
        assert exercise.heading is not None, f"{exercise.label} has no ### Exercise heading"
        assert exercise.solutions and exercise.checks, (
            f"{exercise.label}: solution or check missing"
        )
    owned = {i for e in model.exercises for i in e.solutions}
    assert owned == {c.index for c in model.solutions}, "a solution cell belongs to no exercise"


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_only_public_helpers(path):
    source = "\n".join(c.source for c in _code(nbformat.read(path, as_version=4)))
    used = set(re.findall(r"\bah\.([A-Za-z_]\w*)", source))
    assert used <= set(ah.__all__), (
        f"{path.name} uses non-public helpers: {sorted(used - set(ah.__all__))}"
    )
    assert not re.search(r"(from|import)\s+aurora_helpers\.", source), (
        "import only `aurora_helpers as ah`"
    )


def test_every_public_helper_is_used_by_a_notebook():
    """``ah.*`` is what notebooks use or name, no more: the rest is reached through its module."""
    used: set[str] = set()
    for path in PATHS:
        source = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells)
        used |= set(re.findall(r"\bah\.([A-Za-z_]\w*)", source))
    assert set(ah.__all__) <= used, f"public, used by no notebook: {sorted(set(ah.__all__) - used)}"


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_no_network(path):
    code = _code(nbformat.read(path, as_version=4))[1:]  # the Colab cell may install from GitHub
    source = "\n".join(c.source for c in code)
    assert not re.search(
        r"urlopen|requests\.|urllib|https?://|wget|curl|tfds\.load|load_dataset", source
    )
