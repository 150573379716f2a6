"""``ah.check`` screens the learner's answer as the kernel ran it, with ``aurora grade``'s rules,
and the kernel, the grader and the course's tools find that answer by one definition
(``answer_cell_indexes``).

These tests read kernel histories (cell sources in the order they ran) without a kernel; the
notebook runs in ``tests/test_grading.py`` show the same screen in a real kernel, agreeing with
the grader.
"""

from __future__ import annotations

import pytest

from aurora_course.course import find_notebooks
from aurora_course.course_notebook import CourseNotebook
from aurora_course.grading import assemble
from aurora_course.student import make_student_notebook, stub_source
from aurora_helpers.checks.answer_cells import (
    ANSWER_CELL_STARTS,
    CodeCell,
    answer_cell_indexes,
    answer_problems,
    find_answer,
    live_cells,
)

from .conftest import NOTEBOOKS

SETUP = "import aurora_helpers as ah\nimport os, subprocess, sys\nimport numpy as np\nfrom jax.sharding import PartitionSpec as P"
TEACHING = "data = np.arange(8)\nmesh = object()"
SOLUTION = (
    "# @title Solution (double-click to show)\ndef column_strips(mesh):\n"
    '    """One strip per device."""\n    return P(None, tuple(mesh.axis_names))'
)
STUB = stub_source(SOLUTION.split("\n", 1)[1])
ANSWER = "def column_strips(m):\n    return P(None, tuple(m.axis_names))"
CHECK = (
    "def strips_made_by(m):\n    return column_strips(m)\n\n"
    "ah.check('06.1', strips_made_by, args=(mesh,), expected=1)"
)
OTHER_CHECK = "ah.check('06.2', weight_spec, expected=1)"
FILES = (
    "def column_strips(m):\n    np.save('rows.npy', data)\n    return P(None, tuple(m.axis_names))"
)


def _answer(*history: str):
    found = find_answer(list(history), "06.1")
    assert found is not None
    return found


def test_an_answer_in_a_new_cell_under_the_untouched_stub_is_the_answer():
    found = _answer(SETUP, TEACHING, STUB, ANSWER, CHECK)
    assert found.cells == [ANSWER]  # the stub is superseded: the new cell binds its names again
    assert found.screen().problems == []
    assert found.own == {"column_strips"}
    assert {"data", "mesh", "strips_made_by", "np"} <= set(found.course.bound)


def test_a_rule_broken_in_the_answer_is_found_and_a_fixed_version_supersedes_it():
    assert "numpy.save" in _answer(SETUP, TEACHING, STUB, FILES, CHECK).screen().problems[0]
    # Edited and run again after the first check: only the version that now counts is screened.
    fixed = _answer(SETUP, TEACHING, STUB, FILES, CHECK, ANSWER, CHECK)
    assert fixed.cells == [ANSWER] and fixed.screen().problems == []


def test_trial_cells_are_not_screened_and_a_trial_call_in_the_answer_is_allowed():
    trial = "print(column_strips(mesh))\nopen('notes.txt')"  # binds nothing: not the answer
    with_print = ANSWER + "\n\nprint(column_strips(mesh))"
    found = _answer(SETUP, TEACHING, STUB, with_print, trial, CHECK)
    assert found.cells == [with_print] and found.screen().problems == []
    assert live_cells([STUB, with_print, trial]) == [with_print]


def test_an_answer_that_imports_what_the_course_imports_keeps_the_course_imports():
    """03.3 as a learner wrote it (issue 28): the answer imports os, subprocess and sys, which the
    notebook's set-up cell imports too; that cell is still the course's, not an earlier answer,
    so the imports stay allowed in the kernel as in the grader (only 03.3 may *start* a process:
    ``tests/test_lazy_classes.py``)."""
    env_copy = (
        "# Your answer\nimport os\nimport subprocess\nimport sys\n\n\ndef column_strips(m):\n"
        "    env = {**os.environ, 'JAX_PLATFORMS': 'cpu'}\n"
        "    assert sys.executable and env\n"
        "    return P(None, tuple(m.axis_names))"
    )
    found = _answer(SETUP, TEACHING, env_copy, CHECK)
    assert found.cells == [env_copy]
    assert {"os", "subprocess", "sys"} <= found.course.imports
    assert found.screen().problems == []


def test_rebinding_what_the_course_made_is_a_problem_in_the_kernel_too():
    problems = _answer(SETUP, TEACHING, STUB, "mesh = 3\n" + ANSWER, CHECK).screen().problems
    assert problems and "rebinds `mesh`" in problems[0]


def test_an_answer_written_into_the_check_cell_is_screened():
    found = _answer(SETUP, TEACHING, STUB, FILES + "\n\n" + CHECK)
    assert found.cells == [FILES] and found.screen().problems


def test_an_answer_cell_whose_first_line_was_replaced_is_still_found():
    """A learner who pasted over the whole stub: the answer is the last cell binding a name the
    check reads that was not bound before the previous exercise's check."""
    previous = "# Your answer:\nweight_spec = 1\n"
    history = [SETUP, previous, OTHER_CHECK, TEACHING, FILES, CHECK]
    found = _answer(*history)
    assert found.cells == [FILES] and "numpy.save" in found.screen().problems[0]
    assert "mesh" in found.course.bound  # the teaching cell's names stay the course's


def test_no_answer_is_guessed_across_another_exercise_or_for_a_demo():
    second = "# Your answer: replace the stubs below.\nweight_spec = ..."
    history = [SETUP, STUB, ANSWER, CHECK, second, OTHER_CHECK, CHECK]
    assert find_answer(history, "06.1") is None  # re-checking 06.1 after 06.2 ran: not guessed
    assert find_answer([SETUP, STUB, ANSWER, CHECK], "00.demo") is None
    assert find_answer([SETUP, STUB, ANSWER, "print(1)"], "06.1") is None  # not its check cell


def test_a_second_run_all_in_the_same_kernel_screens_the_course_solution_clean():
    history = [SETUP, TEACHING, SOLUTION, CHECK, STUB, CHECK, SETUP, TEACHING, SOLUTION, CHECK]
    found = _answer(*history)
    assert found.cells == [SOLUTION] and found.screen().problems == []


def test_outside_a_kernel_nothing_is_screened():
    assert answer_problems("06.1") == []


def test_every_answer_cell_the_course_writes_starts_as_the_kernel_expects():
    """The kernel finds an answer by its first line: the course's solution title, the student
    stub's header, and the cell ``aurora grade`` assembles."""
    assert STUB.startswith(ANSWER_CELL_STARTS)
    assert assemble.ANSWER_HEADER.startswith(ANSWER_CELL_STARTS)
    for path in find_notebooks(NOTEBOOKS):
        for cell in CourseNotebook.read(path).solutions:
            assert cell.source.lstrip().startswith(ANSWER_CELL_STARTS), (path.name, cell.index)


@pytest.mark.parametrize("path", find_notebooks(NOTEBOOKS), ids=lambda p: p.stem)
def test_no_course_solution_binds_a_name_the_course_binds_elsewhere(path):
    """The kernel tells the course's names from the answer's by this: a name a solution binds
    is bound by no other cell of the course."""
    course = CourseNotebook.read(path)
    bound = set(assemble.names_of(course).bound)
    for exercise in course.exercises:
        assert not assemble.own_names(course, exercise.label) & bound, exercise.label


def _cell(source: str, kind: str = "code", *tags: str) -> CodeCell:
    return CodeCell(source, kind, tags)


def test_one_definition_reads_a_notebook_file_and_a_kernels_history_alike():
    """The answer is the exercise's section in a file (to the next heading), and from the answer
    cell to the check where no heading is known: in a kernel's history, or a file without it."""
    file = [
        _cell("# 06 · Sharding", "markdown"),
        _cell(SETUP),
        _cell(TEACHING),
        _cell("### Exercise 06.1: strips", "markdown"),
        _cell(STUB, "code", "solution"),
        _cell(ANSWER),
        _cell(CHECK),
        _cell("print(column_strips(mesh))"),
        _cell("## Next", "markdown"),
        _cell("x = 1"),
    ]
    assert answer_cell_indexes(file, "06.1") == [4, 5, 6, 7]
    history = [c for c in file[:7] if c.kind == "code"]
    assert answer_cell_indexes(history, "06.1") == [2, 3, 4]
    no_heading = [c if c.kind == "code" else _cell("Notes.", "markdown") for c in file]
    assert answer_cell_indexes(no_heading, "06.1") == [4, 5, 6]
    assert answer_cell_indexes(file, "06.2") == answer_cell_indexes(file, "00.demo") == []


@pytest.mark.parametrize("path", find_notebooks(NOTEBOOKS), ids=lambda p: p.stem)
def test_the_kernel_the_grader_and_the_student_copy_take_the_same_answer_cell(path):
    """Run top to bottom, a student copy's kernel finds each exercise's answer in the stub that
    the course model calls its solution cell (the cell the grader replaces)."""
    student = CourseNotebook.from_nb(make_student_notebook(CourseNotebook.read(path).nb), path.stem)
    for exercise in student.exercises:
        check = exercise.checks[0]
        history = [c.source for c in student.cells[: check + 1] if c.is_code]
        found = find_answer(history, exercise.label)
        stubs = [student.cells[i].source for i in exercise.solutions]
        assert found is not None and found.cells == stubs, exercise.label
        assert set(exercise.solutions) <= set(answer_cell_indexes(student.cells, exercise.label))
