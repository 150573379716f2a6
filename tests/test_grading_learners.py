"""Issue 28: what a learner's notebook shows solved, ``aurora grade`` grades solved, and the two
apply one rule set to answers.

Each kind of submission the issue names is here: answers in new cells under untouched stubs, a
trial ``print`` beside the answer, a standard-library import, an answer written into the check
cell, a child process given a copy of the environment (03.3), data shared through a file (08.1),
a changed environment, and hanging answers.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from aurora_course import grading
from aurora_course.course_notebook import CourseNotebook, is_solution
from aurora_course.execute import execute_notebook
from aurora_course.grading.report import Progress, SubmissionGrade
from aurora_course.grading.submission import learner_cells
from aurora_course.student import make_student_notebook
from aurora_helpers.checks.answer_cells import live_cells
from aurora_helpers.checks.answer_screen import course_names, screen_solution
from aurora_helpers.contract import (
    CHECK_LOG_ENV_VAR,
    CHECKS_ENV_VAR,
    DEVICES_ENV_VAR,
    latest_by_exercise,
    read_check_log,
)

from .synthetic_course import FORGED_LINE, SOLUTIONS, course_notebook, with_answer, write


@pytest.fixture
def course_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("course")
    write(folder / "90_synthetic.ipynb", course_notebook())
    return folder


COURSE_OS = course_names(
    [
        "import aurora_helpers as ah\nimport os\nimport subprocess\nimport sys\nimport inspect\n"
        "import numpy as np\nimport jax.numpy as jnp\nfrom unittest import mock\nexpected = 3"
    ],
    [],
)
ENV_COPY = (  # issue 28: a correct 03.3 gives its child process a copy of the environment
    "def f(n):\n    env = {**os.environ, 'JAX_PLATFORMS': 'cpu', 'JAX_NUM_CPU_DEVICES': str(n)}\n"
    "    run = subprocess.run([sys.executable, '-c', 'print(1)'], env=env, capture_output=True)\n"
    "    return int(run.stdout)"
)


@pytest.mark.parametrize(
    "source",
    [
        "print('hi')",  # a trial call beside the answer
        "def f(x):\n    return 2 * x\n\nprint(f(3))",
        "for i in range(3):\n    print(i)",
        "x = (y := 3)",
        "import operator\nfrom operator import mul\n\ndef f(x):\n    return operator.add(x, mul(x, 1))",
        "import itertools, statistics, re\nf = statistics.mean",
        "import os, subprocess, sys\n\ndef f(x):\n    return os.environ.get('HOME', os.path.join('a', 'b'))",
        "def f(x):\n    return sys.executable, os.cpu_count()",
    ],
)
def test_the_screen_accepts_trial_calls_stdlib_imports_and_reading_the_environment(source):
    assert screen_solution(source, COURSE_OS, {"f"}).problems == []


def test_only_the_exercise_about_fresh_processes_may_start_one():
    """03.3's lesson starts a fresh Python (issue 28's environment copy is right there); anywhere
    else a child process would compute where no check can watch it (issue 38)."""
    assert screen_solution(ENV_COPY, COURSE_OS, {"f"}, "03.3").problems == []
    (problem,) = screen_solution(ENV_COPY, COURSE_OS, {"f"}, "05.2").problems
    assert "`subprocess.run` starts another program" in problem


@pytest.mark.parametrize(
    ("source", "tampering"),
    [
        ("def f(x):\n    np.save('rows', x)\n    return np.load('rows.npy')", False),
        ("from numpy import load", False),
        ("def f(x):\n    return jnp.load('rows.npy')", False),
        ("def f(x):\n    os.environ['JAX_PLATFORMS'] = 'cpu'\n    return x", False),
        ("def f(x):\n    os.environ.update(X='1')\n    return x", False),
        ("def f(x):\n    return os.listdir('.')", False),
        ("def f(x):\n    return os.path.exists('rows.npy')", False),
        ("import operator\n\ndef f(x):\n    return operator.setitem(expected, 0, x)", False),
        ("from operator import attrgetter", False),
        ("import scipy", False),  # not the standard library, and the notebook does not import it
        ("ah.check('90.1', f, expected=1)", False),  # a trial check in the answer cell
        ("def f(x):\n    return sys.modules['aurora_helpers.checks.exercises']", True),
        ("def f(x):\n    return inspect.currentframe().f_back.f_locals", True),
        ("def f(x):\n    with mock.patch.object(ah, 'check'):\n        return x", True),
        ("import importlib", True),
    ],
)
def test_the_screen_rejects_files_environment_writes_and_interpreter_reaches(source, tampering):
    verdict = screen_solution(source, COURSE_OS, {"f"})
    assert verdict.problems, source
    assert verdict.tampering == tampering, (source, verdict.problems)


# --- What a learner's notebook shows solved, the grader grades solved (issue 28) --------------


def _inserted_after(nb: nbformat.NotebookNode, label: str, source: str) -> nbformat.NotebookNode:
    """``nb`` with a new (untagged) code cell holding ``source`` under ``label``'s answer cell."""
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    current = None
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and "### Exercise" in cell.source:
            current = cell.source.split()[2].rstrip(":")
        if is_solution(cell) and current == label:
            nb.cells.insert(index + 1, nbformat.v4.new_code_cell(source))
            return nb
    raise AssertionError(label)


def _check_cell_with(nb: nbformat.NotebookNode, label: str, before: str) -> nbformat.NotebookNode:
    """``nb`` with ``before`` written into the top of ``label``'s check cell."""
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.source.startswith(f'ah.check("{label}"'):
            cell.source = before + "\n\n" + cell.source
    return nb


UNDER_THE_STUB = (  # a new cell under the untouched stub, with a stdlib import and a trial call
    'import operator\n\n\ndef double(x):\n    """Twice x."""\n    return operator.mul(2, x)\n\n\n'
    "print(double(3))"
)
ENV_FOR_A_CHILD = (  # a copy of the environment, as 03.3 gives its child (only 03.3 starts one)
    "env = {**os.environ, 'N': '5'}\ntotal = 2 * int(env['N'])"
)
SHARED_THROUGH_A_FILE = (  # as the 08.1 answer that shared rows through np.save / np.load
    "def double(x):\n    np.save('shared.npy', np.asarray(2 * x))\n"
    "    return np.load('shared.npy').item()"
)
ENV_WRITE = "os.environ['AURORA_CHECKS'] = 'report'\ntotal = 10"


def _learners(folder: Path) -> dict[str, nbformat.NotebookNode]:
    """Learners' notebooks made from the student copy, as the issue's learners wrote them."""
    student = make_student_notebook(course_notebook())
    solved_three_ways = _check_cell_with(
        with_answer(_inserted_after(student, "90.1", UNDER_THE_STUB), "90.2", ENV_FOR_A_CHILD),
        "90.3",
        SOLUTIONS["90.3"],
    )
    rule_breaking = with_answer(
        with_answer(with_answer(student, "90.1", SHARED_THROUGH_A_FILE), "90.2", ENV_WRITE),
        "90.3",
        SOLUTIONS["90.3"],
    )
    notebooks = {"solved_three_ways": solved_three_ways, "rule_breaking": rule_breaking}
    for name, nb in notebooks.items():
        write(folder / name / "90_synthetic.ipynb", nb)
    return notebooks


def _notebook_statuses(nb: nbformat.NotebookNode, folder: Path) -> dict[str, str]:
    """What the learner's own notebook shows: each check's last status, run top to bottom."""
    folder.mkdir(parents=True)
    log = folder / "checks.jsonl"
    env = {CHECK_LOG_ENV_VAR: str(log), DEVICES_ENV_VAR: "2", CHECKS_ENV_VAR: "report"}
    run = execute_notebook(nb, cwd=folder, env=env, timeout_s=120)
    assert run.failure is None, run.detail
    return {label: r.status for label, r in latest_by_exercise(read_check_log(log)).items()}


@pytest.mark.slow
def test_what_the_notebook_shows_the_grader_grades(course_dir, tmp_path):
    """Issue 28: answers in new cells under untouched stubs, a trial print beside the answer, an
    ``import operator``, an answer written into the check cell and a copy
    of the environment are solved in the notebook and in the grader; sharing data through a file
    and changing the environment are "wrong" in both, and the notebook says why."""
    learners = _learners(tmp_path / "class")
    grades = grading.grade([tmp_path / "class"], notebooks_dir=course_dir, devices=2, jobs=2)
    graded = {s.learner: s for s in grades.submissions}
    for name, nb in learners.items():
        shown = _notebook_statuses(nb, tmp_path / "runs" / name)
        assert {e.exercise: e.status for e in graded[name].exercises} == shown, name
    assert graded["solved_three_ways"].solved == 3
    statuses = {e.exercise: e for e in graded["rule_breaking"].exercises}
    assert [statuses[k].status for k in ("90.1", "90.2", "90.3")] == ["wrong", "wrong", "solved"]
    assert "numpy.save" in statuses["90.1"].detail
    assert "environment" in statuses["90.2"].detail
    log = read_check_log(tmp_path / "runs" / "rule_breaking" / "checks.jsonl")
    said = latest_by_exercise(log)["90.1"].detail
    assert "numpy.save" in said and "aurora grade" in said  # the notebook says what to change
    assert not (tmp_path / "runs" / "rule_breaking" / "shared.npy").exists()  # it did not run


@pytest.mark.slow
def test_a_hanging_answer_costs_its_exercise_only(course_dir, tmp_path):
    """An infinite loop in a function answer (during its check) and one in an answer cell itself
    each make their exercise "wrong"; the notebook is graded again without them, so the correct
    answers after them score."""
    hang_in_check = "def double(x):\n    while True:\n        pass"
    hang_in_cell = "while True:\n    pass\n\n\ndef halve(x):\n    return x / 2"
    nb = with_answer(with_answer(course_notebook(), "90.1", hang_in_check), "90.3", hang_in_cell)
    write(tmp_path / "hangs" / "90_synthetic.ipynb", nb)
    (result,) = grading.grade(
        [tmp_path], notebooks_dir=course_dir, devices=2, exercise_timeout_s=6
    ).submissions
    statuses = {e.exercise: e for e in result.exercises}
    assert result.status == "graded", result.detail
    assert statuses["90.1"].status == statuses["90.3"].status == "wrong"
    assert "within 6 s" in statuses["90.1"].detail and "within 6 s" in statuses["90.3"].detail
    assert statuses["90.2"].status == "solved"
    assert "90.1" in result.detail and "90.3" in result.detail


# --- Reading a submission, and the gradebook (no kernel) --------------------------------------


def test_an_exercises_answer_is_every_cell_of_its_section_the_course_does_not_have():
    course = CourseNotebook.from_nb(course_notebook(), "90_synthetic")
    student = make_student_notebook(course_notebook())
    learner = _check_cell_with(_inserted_after(student, "90.1", UNDER_THE_STUB), "90.3", "x = 1")
    learner.cells.insert(3, nbformat.v4.new_code_cell("print('a trial outside any exercise')"))
    tried = SOLUTIONS["90.2"] + "\nah.check('90.2', total, expected=10)"  # a check tried in it
    learner = with_answer(learner, "90.2", tried)
    found = learner_cells(CourseNotebook.from_nb(learner, "90_synthetic"), course)
    assert found["90.2"] == [SOLUTIONS["90.2"]]
    assert found["90.1"][1:] == [UNDER_THE_STUB]  # after the stub, which stays first
    assert found["90.1"][0].startswith("# Your answer")
    assert found["90.3"][-1] == "x = 1"  # what was added to the check cell, not the check
    assert all("trial outside" not in s for sources in found.values() for s in sources)
    assert live_cells(found["90.1"]) == [UNDER_THE_STUB]


def test_progress_writes_one_line_per_submission_off_a_terminal(capsys):
    progress = Progress()
    grade = SubmissionGrade("a/06_sharding.ipynb", "graded", "06_sharding", learner="a")
    progress(1, 2, grade)
    assert capsys.readouterr().err == "[1/2] a/06_sharding.ipynb (a): 0 of 0 solved\n"


@pytest.mark.slow
def test_a_line_forged_by_a_child_process_before_the_check_is_stopped_does_not_score(
    course_dir, tmp_path
):
    """A child process could append a "solved" line to the grade log and then stop the check
    with ``SystemExit`` before the check writes its own. Outside 03.3 the screen refuses the
    child before anything runs; where one may start (03.3), the check cell raised, so nothing in
    it scores either way."""
    forge = (
        "def double(x):\n"
        f"    line = {FORGED_LINE!r}\n"
        "    subprocess.run(['sh', '-c', 'echo \"$0\" >> \"$AURORA_GRADE_LOG\"', line])\n"
        "    raise SystemExit\n"
    )
    write(tmp_path / "forged" / "90_synthetic.ipynb", with_answer(course_notebook(), "90.1", forge))
    (result,) = grading.grade([tmp_path], notebooks_dir=course_dir, devices=2).submissions
    statuses = {e.exercise: e for e in result.exercises}
    detail = statuses["90.1"].detail
    assert statuses["90.1"].status == "wrong"
    assert "SystemExit" in detail or "`subprocess.run` starts another program" in detail
    assert statuses["90.2"].status == statuses["90.3"].status == "solved"
