"""``aurora grade``: answers run in the course's own notebook, only genuine checks count.

Most cases grade a tiny synthetic course notebook (``90_synthetic``, two simulated devices), one
kernel per submission; notebook 00 shows the real course; every real notebook is graded by
``make test-grade`` (``AURORA_GRADE_NOTEBOOKS``).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
from pathlib import Path

import nbformat
import pytest

from aurora_course import grading
from aurora_course.cli import main
from aurora_course.course import find_notebooks
from aurora_course.course_notebook import CourseNotebook
from aurora_course.grading import assemble
from aurora_course.student import make_student_notebook, stub_source
from aurora_helpers.checks.answer_screen import course_names, screen_solution

from .conftest import NOTEBOOKS
from .synthetic_course import FORGED_LINE, SOLUTIONS, course_notebook, with_answer, write


def _hashes(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def course_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("course")
    write(folder / "90_synthetic.ipynb", course_notebook())
    return folder


@pytest.fixture
def graded_class(course_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """One `aurora grade` run over a class folder; the grades by submission folder name."""
    room = tmp_path_factory.mktemp("class")
    course = course_notebook()
    student = make_student_notebook(course)
    write(room / "solved" / "90_synthetic.ipynb", course)
    write(room / "student" / "90_synthetic.ipynb", student)
    write(room / "one" / "90_synthetic.ipynb", with_answer(student, "90.2", SOLUTIONS["90.2"]))
    printed = make_student_notebook(course)
    for cell in printed.cells:
        if cell.source.startswith('ah.check("90.1"'):
            cell.source = 'print("✅ Exercise 90.1: solved.")'
            cell.outputs = [nbformat.v4.new_output("stream", text="✅ Exercise 90.1: solved.\n")]
    write(room / "printed" / "90_synthetic.ipynb", printed)
    patched = "import aurora_helpers as ah\n\n" + "ah.check = lambda *a, **k: None\n"
    write(room / "patched" / "90_synthetic.ipynb", with_answer(course, "90.1", patched))
    write(
        room / "wrong" / "90_synthetic.ipynb",
        with_answer(student, "90.1", "def double(x):\n    return x + 3"),
    )
    renamed = with_answer(student, "90.3", SOLUTIONS["90.3"])
    for cell in renamed.cells:  # no headings left: the answers are matched in order
        if cell.cell_type == "markdown":
            cell.source = "Some notes."
    write(room / "renamed" / "homework_90_synthetic.ipynb", renamed)
    (room / "broken").mkdir()
    (room / "broken" / "garbage.ipynb").write_bytes(b"\x00\xffnot a notebook")
    (room / "broken" / "data.ipynb").write_text('{"a": 1}')
    write(room / "broken" / "foreign.ipynb", nbformat.v4.new_notebook())
    write(room / ".ipynb_checkpoints" / "90_synthetic-checkpoint.ipynb", course)
    before = _hashes(room)
    out_json, out_csv = room.parent / "grades.json", room.parent / "grades.csv"
    out_detail = room.parent / "detail.csv"
    options = ["--notebooks", str(course_dir), "--devices", "2", "--detail-csv", str(out_detail)]
    code = main(["grade", str(room), *options, "--json", str(out_json), "--csv", str(out_csv)])
    data = json.loads(out_json.read_text())
    by_name = {
        Path(s["submission"]).parent.name + "/" + Path(s["submission"]).name: s
        for s in data["submissions"]
    }
    return {
        "code": code,
        "json": data,
        "csv": out_csv.read_text(),
        "detail_csv": out_detail.read_text(),
        "unchanged": before == _hashes(room),
        "by": {
            name.split("/")[0] if not name.startswith("broken") else name: s
            for name, s in by_name.items()
        },
    }


def _statuses(submission: dict) -> dict[str, str]:
    return {e["exercise"]: e["status"] for e in submission["exercises"]}


def _solutions_score_every_exercise_and_student_copies_none(graded_class: dict) -> None:
    assert graded_class["code"] == 0
    by = graded_class["by"]
    assert _statuses(by["solved"]) == dict.fromkeys(SOLUTIONS, "solved")
    assert _statuses(by["student"]) == dict.fromkeys(SOLUTIONS, "not solved yet")
    assert by["solved"]["status"] == by["student"]["status"] == "graded"


def _one_exercise_solved_scores_exactly_that_one(graded_class: dict) -> None:
    by = graded_class["by"]
    assert _statuses(by["one"]) == {
        "90.1": "not solved yet",
        "90.2": "solved",
        "90.3": "not solved yet",
    }
    # Without headings the answer cells are matched in order.
    assert _statuses(by["renamed"])["90.3"] == "solved" and by["renamed"]["solved"] == 1


def _a_wrong_answer_carries_the_checks_message(graded_class: dict) -> None:
    (wrong,) = [e for e in graded_class["by"]["wrong"]["exercises"] if e["exercise"] == "90.1"]
    assert wrong["status"] == "wrong" and "Hint: twice" in wrong["detail"]


def _an_edited_check_cell_or_a_replaced_check_does_not_score(graded_class: dict) -> None:
    by = graded_class["by"]
    assert _statuses(by["printed"])["90.1"] == "not solved yet"  # the course's check ran
    patched = by["patched"]
    assert patched["status"] == "tampered" and patched["solved"] == 0
    assert "ah.check" in patched["detail"]


def _unreadable_and_foreign_files_are_reported_and_the_class_goes_on(graded_class: dict) -> None:
    by = graded_class["by"]
    assert by["broken/garbage.ipynb"]["status"] == "unreadable"
    assert "not JSON" in by["broken/garbage.ipynb"]["detail"]
    assert by["broken/data.ipynb"]["status"] == "unreadable"
    assert by["broken/foreign.ipynb"]["status"] == "not a course notebook"
    assert not any("checkpoint" in s["submission"] for s in graded_class["json"]["submissions"])
    assert len(graded_class["json"]["submissions"]) == 10


def _submissions_are_unchanged_and_the_csv_is_a_gradebook(graded_class: dict) -> None:
    assert graded_class["unchanged"]
    rows = {r["learner"]: r for r in csv.DictReader(io.StringIO(graded_class["csv"]))}
    learners = {"broken", "one", "patched", "printed", "renamed", "solved", "student", "wrong"}
    assert set(rows) == learners  # one row per learner: the folder each file was collected in
    assert list(rows["solved"]) == ["learner", "name", "90.1", "90.2", "90.3", "total", "flags"]
    points = {
        (name, label) for name, row in rows.items() for label in SOLUTIONS if row[label] == "1"
    }
    assert points == {
        ("solved", "90.1"), ("solved", "90.2"), ("solved", "90.3"), ("one", "90.2"),
        ("renamed", "90.3"),
    }  # fmt: skip
    assert rows["solved"]["total"] == "3" and rows["patched"]["total"] == "0"
    assert rows["broken"]["90.1"] == "" and rows["broken"]["total"] == ""  # nothing graded
    assert "not a course notebook, nothing scored" in rows["broken"]["flags"]  # and said so
    detail = list(csv.DictReader(io.StringIO(graded_class["detail_csv"])))
    assert len(detail) == 7 * 3 + 3  # seven graded notebooks x three exercises, three unread
    assert {r["learner"] for r in detail} == learners


@pytest.mark.slow
def test_a_class_is_graded_by_the_courses_own_cells(graded_class):
    """One grading run over a class (one test, so parallel workers do not grade it twice)."""
    _solutions_score_every_exercise_and_student_copies_none(graded_class)
    _one_exercise_solved_scores_exactly_that_one(graded_class)
    _a_wrong_answer_carries_the_checks_message(graded_class)
    _an_edited_check_cell_or_a_replaced_check_does_not_score(graded_class)
    _unreadable_and_foreign_files_are_reported_and_the_class_goes_on(graded_class)
    _submissions_are_unchanged_and_the_csv_is_a_gradebook(graded_class)


def _kernel_screen_off(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Kernels started from now on skip the answer screen of ``ah.check`` (a ``sitecustomize``
    on their ``PYTHONPATH`` replaces it), so an answer's code runs whatever it does."""
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(
        "import aurora_helpers.checks.answer_cells as cells\n\ncells.answer_problems = lambda label: []\n"
    )
    paths = [str(folder), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in paths if p))


@pytest.mark.slow
def test_checking_code_replaced_past_the_screen_voids_the_submission(
    course_dir, tmp_path, monkeypatch
):
    """Defence in depth: with the static screen switched off (the grader's, and the one
    ``ah.check`` applies in the kernel), the seal still catches tampering; a kernel that dies is
    reported and the class goes on."""
    monkeypatch.setattr(
        assemble, "screen_answer", lambda *a, **k: assemble.Screening(), raising=True
    )
    _kernel_screen_off(tmp_path / "site", monkeypatch)
    course = course_notebook()
    patch = (
        "import aurora_helpers as ah\nimport aurora_helpers.checks.exercises as ex\n"
        "real = ex.check\n"
        "def fake(exercise, *a, **k):\n    return real(exercise, 1, expected=1)\n"
        "ah.check = ex.check = fake\n" + SOLUTIONS["90.1"]
    )
    write(
        tmp_path / "patched" / "90_synthetic.ipynb",
        with_answer(course, "90.1", "def double(x):\n    return 0\n" + patch),
    )
    forge = (
        "import os\n"
        "def double(x):\n"
        f"    with open(os.environ['AURORA_GRADE_LOG'], 'a') as log:\n"
        f"        log.write('{FORGED_LINE}\\n')\n"
        "    return x\n"
    )
    forged_nb = with_answer(course, "90.1", forge)
    top_level = (  # a forged line written by the answer cell itself, not during a check
        "import os\n"
        'line = \'{"exercise": "90.2", "status": "solved", "detail": ""}\\n\'\n'
        "total = 0 * open(os.environ['AURORA_GRADE_LOG'], 'a').write(line)\n"
    )
    write(tmp_path / "forged" / "90_synthetic.ipynb", with_answer(forged_nb, "90.2", top_level))
    crash = "import os\ndef double(x):\n    os._exit(3)"  # the kernel process ends mid-check
    write(tmp_path / "crash" / "90_synthetic.ipynb", with_answer(course, "90.1", crash))
    grades = grading.grade([tmp_path], notebooks_dir=course_dir, devices=2)
    by = {Path(s.submission).parent.name: s for s in grades.submissions}
    assert by["crash"].status == "kernel died" and by["crash"].solved == 0
    assert {e.exercise: e.status for e in by["crash"].exercises} == {
        "90.1": "wrong", "90.2": "not run", "90.3": "not run"
    }  # fmt: skip
    assert by["patched"].status == "tampered" and by["patched"].solved == 0
    assert "replaced" in by["patched"].detail
    forged = {e.exercise: e for e in by["forged"].exercises}
    assert forged["90.1"].status == "wrong" and "no check" in forged["90.1"].detail
    assert forged["90.2"].status == "wrong" and "answer cell wrote" in forged["90.2"].detail
    assert forged["90.3"].status == "solved"  # the rest of the notebook is still graded


@pytest.mark.slow
def test_a_hanging_notebook_is_reported_as_timed_out(course_dir, tmp_path):
    hang = "def double(x):\n    while True:\n        pass"
    write(tmp_path / "90_synthetic.ipynb", with_answer(course_notebook(), "90.1", hang))
    (result,) = grading.grade(
        [tmp_path], notebooks_dir=course_dir, devices=2, timeout_s=12
    ).submissions
    assert result.status == "timed out" and result.solved == 0
    statuses = {e.exercise: e.status for e in result.exercises}
    assert statuses["90.2"] == statuses["90.3"] == "not run"
    assert statuses["90.1"] in ("wrong", "not run")  # "not run" only if the machine was too slow


#: ``make test-grade`` sets it: "all", or the notebooks' numbers to grade ("07 09"); unset, the
#: tests that grade real notebooks (``grade``) skip.
GRADE_NOTEBOOKS = os.environ.get("AURORA_GRADE_NOTEBOOKS", "").split()


def _graded(path: Path) -> bool:
    return GRADE_NOTEBOOKS == ["all"] or path.name.split("_")[0] in GRADE_NOTEBOOKS


@pytest.mark.slow
@pytest.mark.grade
@pytest.mark.skipif(not GRADE_NOTEBOOKS, reason="a real notebook: make test-grade")
def test_the_real_notebook_00_solutions_score_and_its_student_copy_does_not(tmp_path):
    path = NOTEBOOKS / "00_welcome.ipynb"
    student = tmp_path / "student" / path.name
    write(student, make_student_notebook(nbformat.read(path, as_version=4)))
    grades = grading.grade([path, student], notebooks_dir=NOTEBOOKS, devices=8)
    solutions, stubs = grades.submissions
    assert solutions.exercises and solutions.solved == len(solutions.exercises)
    assert stubs.exercises and {e.status for e in stubs.exercises} == {"not solved yet"}


@pytest.mark.slow
@pytest.mark.grade
@pytest.mark.skipif(not GRADE_NOTEBOOKS, reason="every notebook: make test-grade")
@pytest.mark.parametrize(
    "path", [p for p in find_notebooks(NOTEBOOKS) if _graded(p)], ids=lambda p: p.stem
)
def test_every_course_notebook_solutions_score_every_exercise(path):
    (result,) = grading.grade([path], notebooks_dir=NOTEBOOKS, devices=8).submissions
    assert result.status == "graded", result.detail
    assert [e for e in result.exercises if e.status != "solved"] == []


def test_no_course_notebooks_is_an_error_with_a_hint(tmp_path, capsys):
    write(tmp_path / "90_synthetic.ipynb", course_notebook())
    assert main(["grade", str(tmp_path), "--notebooks", str(tmp_path / "nowhere")]) != 0
    assert "--notebooks" in capsys.readouterr().err
    (tmp_path / "empty-folder").mkdir()
    with pytest.raises(grading.GradingError, match="no notebooks"):
        grading.grade([tmp_path / "empty-folder"], notebooks_dir=NOTEBOOKS)
    # A path that does not exist is one unreadable submission, not the end of the class.
    (missing,) = grading.grade([tmp_path / "typo.ipynb"], notebooks_dir=NOTEBOOKS).submissions
    assert missing.status == "unreadable" and "cannot read" in missing.detail


def test_json_and_csv_to_standard_output_parse(tmp_path, capsys, course_dir):
    (tmp_path / "x.ipynb").write_text("{")
    assert main(["grade", str(tmp_path), "--notebooks", str(course_dir), "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["submissions"][0]["status"] == "unreadable"
    assert main(["grade", str(tmp_path), "--notebooks", str(course_dir), "--csv", "-"]) == 0
    (row,) = csv.DictReader(io.StringIO(capsys.readouterr().out))
    assert row["learner"] == "x" and row["total"] == ""  # a gradebook row, no exercise graded
    assert row["flags"].startswith(f"{tmp_path / 'x.ipynb'}: unreadable, nothing scored")
    options = ["--notebooks", str(course_dir), "--detail-csv", "-"]
    assert main(["grade", str(tmp_path), *options]) == 0
    (row,) = csv.DictReader(io.StringIO(capsys.readouterr().out))
    assert row["submission_status"] == "unreadable" and row["exercise"] == ""


# --- The static screen ------------------------------------------------------------------------


def test_every_course_solution_and_its_stub_pass_the_screen():
    for path in find_notebooks(NOTEBOOKS):
        course = CourseNotebook.read(path)
        names = assemble.names_of(course)
        for exercise in course.exercises:
            own = assemble.own_names(course, exercise.label)
            for index in exercise.solutions:
                source = course.cells[index].source
                for version in (source, stub_source(source)):
                    assert screen_solution(version, names, own, exercise.label).problems == [], (
                        path.name,
                        exercise.label,
                    )


COURSE = course_names(
    [
        "import aurora_helpers as ah\nimport jax\nimport jax.numpy as jnp\nimport numpy as np\nexpected = 3"
    ],
    ["def f(x):\n    return x"],
)


@pytest.mark.parametrize(
    ("source", "tampering"),
    [
        ("ah.check = print", True),
        ("import aurora_helpers.checks.exercises as ex", True),
        ("from aurora_helpers import check", True),
        ("def f(x):\n    return ah.check('1', x, x)", True),
        ("def f(x):\n    setattr(ah, 'check', x)\n    return x", True),
        ("def f(x):\n    return x.__class__", False),
        ("def f(x):\n    exec('x = 1')\n    return x", True),
        ("import sys", True),
        ("import importlib", True),
        ("ah = None", True),
        ("_aurora_grade_seal = print", True),
        ("def f(x):\n    return globals()", True),
        ("import os", False),
        ("import subprocess", False),
        ("def f(x):\n    return open('/tmp/x').read()", False),
        ("class F:\n    pass", False),
        ("expected = 4", False),  # the course's own name
        ("import numpy as jnp", False),  # rebinds a course name differently
        ("def f(x):\n    expected_list = [1]\n    return x", False),
        ("def f(x):\n    global expected\n    expected = x\n    return x", False),
        ("def f(x):\n    np.asarray(x)[0] = 1\n    return x", False),
        ("def f(x):\n    return type('E', (), {})", False),
        ("sum = len", False),  # a check cell's built-in
        ("def f(x):\n    expected.clear()\n    return x", False),  # a course value, in place
        ("def f(x):\n    np.zeros(3).tofile('/tmp/log')\n    return x", False),
        ("def f(:", False),
        # The check's environment: its transfer guard, configuration, mesh, defaults.
        ("def f(x):\n    with jax.transfer_guard('allow'):\n        return np.asarray(x)", False),
        ("from jax import transfer_guard_device_to_host as allow", False),
        ("def f(x):\n    jax.config.update('jax_transfer_guard', 'allow')\n    return x", False),
        ("def f(x):\n    with jax.sharding.use_mesh(x):\n        return x", False),
        ("def f(x):\n    with jax.default_device(jax.devices()[0]):\n        return x", False),
        # ... under another name: a module passed around as a value, or a module re-exporting it.
        ("def f(x):\n    with (jax,)[0].transfer_guard('allow'):\n        return x", False),
        ("j = jax\n\ndef f(x):\n    return x", False),
        ("def f(x, j=jax):\n    return x", False),
        (
            "import jax.experimental.sparse\n\ndef f(x):\n    c = jax.experimental.sparse.bcoo.config\n    return x",
            False,
        ),
        ("def f(x):\n    with jax.sharding.use_abstract_mesh(x):\n        return x", False),
        # Attributes read by a name in a string, past the screen.
        (
            "import string\n\ndef f(x):\n    return string.Formatter().get_field('0.__globals__', [f], {})",
            True,
        ),
    ],
)
def test_the_screen_rejects_what_could_fake_a_pass(source, tampering):
    verdict = screen_solution(source, COURSE, {"f"})
    if source == "def f(x):\n    expected_list = [1]\n    return x":
        assert verdict.problems == []  # a new local name is fine
        return
    assert verdict.problems, source
    assert verdict.tampering == tampering, (source, verdict.problems)
    assert all(p.startswith("line ") for p in verdict.problems)


def test_the_screen_accepts_ordinary_answers():
    ok = (
        "import jax\nimport jax.numpy as jnp\nfrom functools import partial\n\n"
        "def f(x, *, n=2):\n    '''Doc.'''\n    out = {}\n    out['a'] = x\n    a, b = 1, 2\n"
        "    out.update(b=1)\n    np.sort(x).sort()\n"
        "    return jax.jit(lambda y: y * n)(x) + a + b\n\nf_value: int = 3\n"
        "from jax.experimental import pallas as pl\n\n"
        "def kernel(x_ref, o_ref):\n    o_ref[...] = pl.load(x_ref, (slice(None),)) * 2\n"
    )
    assert screen_solution(ok, COURSE, {"f", "f_value", "kernel"}).problems == []


def test_only_the_exercise_that_teaches_it_may_change_the_environment():
    """01.4 switches 64-bit mode on inside its answer (its lesson); no other exercise may, and
    01.4 may not reach the configuration another way."""
    x64 = "import jax\n\ndef f(x):\n    with jax.enable_x64(True):\n        return x\n"
    assert screen_solution(x64, COURSE, {"f"}, "01.4").problems == []
    assert "environment" in screen_solution(x64, COURSE, {"f"}, "01.3").problems[0]
    config = (
        "import jax\n\ndef f(x):\n    jax.config.update('jax_enable_x64', True)\n    return x\n"
    )
    assert screen_solution(config, COURSE, {"f"}, "01.4").problems


def test_an_answer_may_import_the_notebooks_name_by_another_spelling():
    """The common idiom ``from jax.sharding import PartitionSpec as P`` binds the object the
    notebook's ``from jax import P`` binds: an honest answer, not a rebinding (it made every 06
    exercise score wrong)."""
    course = course_names(["import jax\nfrom jax import P\n"], [])
    idiom = "from jax.sharding import PartitionSpec as P\n\ndef f(x):\n    return P('x')\n"
    assert screen_solution(idiom, course, {"f"}).problems == []
    other = "from jax.sharding import NamedSharding as P\n\ndef f(x):\n    return x\n"
    assert "rebinds `P`" in screen_solution(other, course, {"f"}).problems[0]
