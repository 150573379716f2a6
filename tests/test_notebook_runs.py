"""Every course notebook executed, as few times as the guarantees need (``tests/notebook_runs.py``).

- ``test_student_run``: once, each exercise solved then stubbed, at every device count in
  ``$AURORA_DEVICE_COUNTS`` (default 1; ``make test``, ``make test-devices``, ``make test-oldest``
  and ``make test-matrix``, on each release: the counts ``ci/runs.txt`` gives them). Marked ``devices``.
- ``test_twice_with_variants`` (8 simulated devices): Restart & Run All, wrong answers rejected,
  solutions solved, then Run All again in the same kernel as the student copy (stubs "not solved
  yet", later cells without the answers); a fresh ``TMPDIR`` that must stay empty. Marked
  ``variants``: about four times a plain run, so ``make test-notebooks`` (the gate) and ``make
  test-oldest-variants`` (the full tier) run it, not ``make test``.

All are marked ``notebooks`` (``make test-fast`` leaves them out). ``pytest -m notebooks -k
07_shard_map tests`` runs one notebook's.
"""

from __future__ import annotations

import os

import nbformat
import pytest

from aurora_course.course import find_notebooks
from aurora_course.course_notebook import CourseNotebook

from .conftest import NOTEBOOKS
from .notebook_runs import (
    COMPILES_COLD,
    Step,
    run_steps,
    student_run,
    twice_with_variants,
    with_wrong_answers,
)
from .notebooks import RIGHT_ANSWERS, WRONG_ANSWERS

PATHS = find_notebooks(NOTEBOOKS)
DEVICE_COUNTS = os.environ.get("AURORA_DEVICE_COUNTS", "1").split()


@pytest.mark.notebooks
@pytest.mark.variants
@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_twice_with_variants(path):
    model = CourseNotebook.read(path)
    devices = os.environ.get("AURORA_DEVICES", "8")
    steps = twice_with_variants(model, WRONG_ANSWERS, RIGHT_ANSWERS)
    cache = path.stem not in COMPILES_COLD
    env = {"AURORA_DEVICES": devices}
    assert run_steps(steps, cwd=NOTEBOOKS, env=env, compile_cache=cache) == []


@pytest.mark.notebooks
@pytest.mark.devices
@pytest.mark.parametrize("devices", DEVICE_COUNTS)
@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_student_run(path, devices):
    model = CourseNotebook.read(path)
    assert run_steps(student_run(model), cwd=NOTEBOOKS, env={"AURORA_DEVICES": devices}) == []


# --- The runs can fail: each expectation, on a small notebook made here ----------------------------


def _tiny(check_source: str = 'ah.check("99.1", double, args=(3,), expected=6)'):
    cells = [
        nbformat.v4.new_markdown_cell("# 99 · Tiny"),
        nbformat.v4.new_code_cell("import aurora_helpers as ah"),
        nbformat.v4.new_markdown_cell("### Exercise 99.1: double"),
        nbformat.v4.new_code_cell(
            "def double(x):\n    return 2 * x", metadata={"tags": ["solution"]}
        ),
        nbformat.v4.new_code_cell(check_source),
        nbformat.v4.new_code_cell("assert double(2) == 4  # a later cell that needs the answer"),
    ]
    return CourseNotebook.from_nb(nbformat.v4.new_notebook(cells=cells), "99_tiny")


@pytest.mark.slow
def test_the_runs_catch_an_accepted_wrong_answer_a_dependent_cell_and_leftovers(tmp_path):
    model = _tiny()
    wrong = {
        "99.1": {
            "hard-coded": "def double(x):\n    return 4",
            "right after all": "def double(x):\n    return x + x",
        }
    }
    problems = run_steps(with_wrong_answers(model, wrong), cwd=tmp_path, env={})
    assert problems == [
        "pass 1: 99.1's check of the wrong answer 'right after all': solved, expected wrong"
    ]
    # The student copy: the later cell needs the answer, so it raises with the stub in place.
    (problem,) = run_steps(student_run(model), cwd=tmp_path, env={})
    assert problem.startswith("the run: cell 5 raised NotImplementedError"), problem
    leaves = [Step("import tempfile\ntempfile.mkstemp()", "a cell that leaves a file")]
    (problem,) = run_steps(leaves, cwd=tmp_path, env={})
    assert "left" in problem and "temporary folder" in problem


@pytest.mark.slow
def test_the_runs_catch_a_right_answer_the_check_rejects(tmp_path):
    """Honest answers in ordinary styles (issue 38) must be "solved": over several cells too."""
    right = {
        "99.1": {
            "over two cells": ("import operator", "def double(x):\n    return operator.mul(2, x)"),
            "not right at all": "def double(x):\n    return 3 * x",
        }
    }
    problems = run_steps(with_wrong_answers(_tiny(), {}, right=right), cwd=tmp_path, env={})
    assert [p for p in problems if "over two cells" in p] == []
    assert any(
        p.startswith(
            "pass 1: 99.1's check of the solved answer 'not right at all': wrong, expected"
        )
        for p in problems
    ), problems


@pytest.mark.slow
def test_the_second_pass_catches_a_notebook_that_needs_a_fresh_kernel(tmp_path):
    """A cell that counts on a warning given at import passes once and fails when run again."""
    (tmp_path / "warns_on_import.py").write_text(
        "import warnings\nwarnings.warn('shown when first imported', UserWarning)\n"
    )
    cell = (
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as seen:\n"
        "    warnings.simplefilter('always')\n"
        "    import warns_on_import\n"
        "assert seen, 'the warning was not shown'"
    )
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell)])
    model = CourseNotebook.from_nb(nb, "99_warns")
    (problem,) = run_steps(twice_with_variants(model, {}), cwd=tmp_path, env={})
    assert problem.startswith("pass 2: cell 0 raised AssertionError: the warning was not shown")


def test_the_notebooks_that_compile_cold_are_course_notebooks():
    assert {path.stem for path in PATHS} >= COMPILES_COLD


_COMPILE_TWICE = """\
import os
import jax
import jax.numpy as jnp

hits = []
jax.monitoring.register_event_listener(
    lambda name, **_: hits.append(name) if name.endswith("cache_hits") else None
)
for _ in range(2):  # the same program, built anew each time (a new function)
    jax.jit(lambda x: jnp.sin(x) * 3)(jnp.ones(3)).block_until_ready()
assert "JAX_COMPILATION_CACHE_DIR" not in os.environ  # the processes it starts compile cold
"""


@pytest.mark.slow
@pytest.mark.parametrize("cache", [True, False])
def test_a_run_with_the_compile_cache_compiles_a_rebuilt_program_once(tmp_path, cache):
    steps = [
        Step(_COMPILE_TWICE, "compile twice"),
        Step(f"assert len(hits) == {int(cache)}, hits", "count the lookups that found it"),
    ]
    assert run_steps(steps, cwd=tmp_path, env={}, compile_cache=cache) == []
