"""``aurora grade``: grade learners' notebooks by running their answers in the course's own notebook.

How a submission is graded:

1. The file is read (never written). Not JSON, not a notebook, or not one of the course's notebooks
   (no ``### Exercise NN.k`` heading and no ``NN_`` file name matching a course notebook): one row
   saying so, and the class goes on.
2. Only the learner's ``solution``-tagged cells are taken (:mod:`.submission`). Each belongs to
   the exercise of the nearest ``### Exercise NN.k`` heading above it (in order, when the learner
   removed the headings); both notebooks are read through :mod:`aurora_course.course_notebook`. Everything else in the submission, its check cells and its outputs included, is
   ignored.
3. Each learner cell is screened statically (:mod:`aurora_helpers.answer_screen`): imports,
   function definitions and assignments to names only; no patching of the checking code, no
   reaching into the interpreter, no rebinding of names the course's cells use. A rejected cell
   scores "wrong" with the reason, and the course's stub runs in its place.
4. The course's own copy of the notebook is executed (:mod:`aurora_course.execute`) with the
   learner's cells in place of its solution cells (the student stub where the learner has none;
   :mod:`.assemble`), with the course's own check
   cells, in a fresh kernel, in a temporary folder, under a time limit, with
   ``AURORA_CHECKS=report`` (a wrong answer is reported, not raised, so every exercise gets a
   status) and ``AURORA_GRADE_LOG`` (each ``ah.check`` call appends a JSON line).
5. The grader's own cells seal the log (:mod:`aurora_course.grading.seal`): after every code cell
   they display the new log lines with an HMAC under a per-run secret, and whether the checking
   code is still the original. Only sealed lines count (:mod:`.verdict`); :mod:`.report` holds
   the grades.

Threat model, honestly. The aim is that a learner cannot get "solved" without solving, by
accident or by a simple trick: editing a check cell to print a pass (ignored: the course's check
cells run), pasting a fake ``ah.check`` into an answer cell (rejected by the screen; if it got
through, the seal sees the changed code and nothing in the submission scores), or appending
"solved" lines to the log (the per-run token is read from a file the grader deletes before any
learner code runs; the token signs the seal records, not the log lines, so the log lines are
attributed to the cell during which they appeared: lines written by an answer cell, or more lines
than a check cell's checks write, score "wrong"). The grader does not defend against a determined
attacker: learner code runs with the kernel's full rights, and a static screen of Python cannot
be complete (it rejects changing a course value in place by its name, not through an alias; a
thread started by a learner's function could still write after a check; the token sits in the
kernel's memory, out of the screen's reach but not of every trick). Grade untrusted work in a
disposable container or account, as you would run any untrusted code.
"""

from __future__ import annotations

import secrets
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from aurora_helpers._checks import positive_float
from aurora_helpers.contract import (
    CHECK_LOG_ENV_VAR,
    CHECKS_ENV_VAR,
    DEVICES_ENV_VAR,
    requested_device_count,
)

from ..course import find_notebooks, locate_notebooks, notebook_number
from ..course_notebook import CourseNotebook
from ..execute import cell_error, execute_notebook
from .assemble import FINAL, graded_notebook
from .report import (
    ClassGrades,
    ExerciseGrade,
    SubmissionGrade,
    print_progress,
    write_report,
)
from .seal import TOKEN_ENV_VAR
from .submission import find_submissions, learner_cells, read_submission, which_course_notebook
from .verdict import grade_cells, read_seals

#: Seconds one submission may run, all cells together, unless ``--timeout`` says otherwise.
DEFAULT_TIMEOUT_S = 300.0


class GradingError(RuntimeError):
    """Grading itself cannot proceed (no course notebooks, no submissions); the message says why."""


def find_course(notebooks_dir: Path | None = None) -> dict[str, Path]:
    """The course notebooks by number: ``--notebooks``, else ``./notebooks``, else the package's.

    Raises:
        GradingError: no course notebooks there, with a hint.
    """
    try:
        folder = locate_notebooks(notebooks_dir)
    except ValueError as error:
        raise GradingError(str(error)) from None
    return {notebook_number(p): p for p in find_notebooks(folder)}


def grade_notebook(
    path: Path,
    course: CourseNotebook,
    submission: CourseNotebook,
    *,
    devices: int,
    timeout_s: float,
) -> SubmissionGrade:
    """Grade one readable submission (read from ``path``) of the course notebook ``course``."""
    start = time.perf_counter()
    graded = graded_notebook(course, learner_cells(submission, course))
    token = secrets.token_bytes(32)
    with tempfile.TemporaryDirectory(prefix="aurora-grade-", ignore_cleanup_errors=True) as tmp:
        work = Path(tmp)
        (work / "tmp").mkdir()
        token_file = work / "token"
        token_file.write_bytes(token)
        token_file.chmod(0o600)
        env = {
            DEVICES_ENV_VAR: str(devices),
            CHECKS_ENV_VAR: "report",
            CHECK_LOG_ENV_VAR: str(work / "grade-log.jsonl"),
            TOKEN_ENV_VAR: str(token_file),
            "TMPDIR": str(work / "tmp"),  # whatever the notebook leaves there goes too
        }
        run = execute_notebook(
            graded.nb, cwd=work, env=env, timeout_s=timeout_s, kernel_log=work / "kernel.log"
        )
    setup_error = cell_error(graded.nb.cells[0])
    if setup_error and 0 in run.executed:
        raise GradingError(
            f"the grader's set-up cell failed in the kernel ({setup_error.gist}). Is the "
            "`python3` Jupyter kernel the Python environment with the course (aurora-helpers) "
            "installed?"
        )
    records, tampered = read_seals(graded.nb, token)
    result = SubmissionGrade(
        str(path), run.failure or "graded", notebook=course.name, detail=run.detail
    )
    if not tampered and run.failure is None and FINAL not in records:
        tampered = "the grader's final check did not run"
    attempts = [f"{label}: {v.attempts[0]}" for label, v in graded.rejected.items() if v.tampering]
    if not tampered and attempts:
        tampered = "an answer cell reaches for the checking code (" + "; ".join(attempts) + ")"
    if tampered:
        result.status, result.detail = "tampered", f"nothing scores: {tampered}"
        result.exercises = [ExerciseGrade(e.label, "wrong", tampered) for e in course.exercises]
    else:
        solutions = {e.label: e.solutions for e in course.exercises}
        grades = grade_cells(run, records, dict(course.checks), solutions, graded.where, timeout_s)
        for exercise in course.exercises:
            rejected = graded.rejected.get(exercise.label)
            if rejected is not None:
                reasons = "; ".join(rejected.problems[:3])
                grade = ExerciseGrade(
                    exercise.label, "wrong", f"the answer cell was not run: {reasons}"
                )
            else:
                grade = grades.get(exercise.label) or ExerciseGrade(
                    exercise.label, "not run", "no check cell names it"
                )
            result.exercises.append(grade)
    result.seconds = time.perf_counter() - start
    return result


def grade(
    paths: Sequence[Path],
    *,
    notebooks_dir: Path | None = None,
    devices: int | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    progress: Callable[[int, int, SubmissionGrade], None] | None = None,
) -> ClassGrades:
    """Grade every submission under ``paths`` (files, or folders searched for ``*.ipynb``).

    One submission that cannot be read, is not a course notebook, hangs or crashes is reported on
    its row, and the class goes on.

    Args:
        notebooks_dir: the course's notebooks (default: ``./notebooks``, else the package's).
        devices: simulated CPU devices, as ``aurora run --devices`` (default ``$AURORA_DEVICES``
            or 8).
        timeout_s: seconds each submission may run in all.
        progress: called after each submission with its position, the total and its grade.

    Raises:
        GradingError: no course notebooks, or no submission files under ``paths``.
    """
    timeout_s = positive_float("timeout", timeout_s)
    n_devices = requested_device_count(devices)
    course_paths = find_course(notebooks_dir)
    submissions = find_submissions(paths)
    if not submissions:
        raise GradingError(
            f"no notebooks (*.ipynb) found in {', '.join(map(str, paths))}; pass the learners' "
            "notebook files or the folders that hold them"
        )
    courses: dict[str, CourseNotebook] = {}
    grades = ClassGrades([], str(next(iter(course_paths.values())).parent), n_devices, timeout_s)
    for position, path in enumerate(submissions, start=1):
        nb, problem = read_submission(path)
        submission = CourseNotebook.from_nb(nb, path.stem) if nb is not None else None
        number = which_course_notebook(submission, path, course_paths) if submission else None
        if submission is None:
            grades.submissions.append(SubmissionGrade(str(path), "unreadable", detail=problem))
        elif number is None:
            grades.submissions.append(
                SubmissionGrade(
                    str(path),
                    "not a course notebook",
                    detail="no `### Exercise NN.k` heading and no NN_ file name of a course notebook",
                )
            )
        else:
            if number not in courses:
                courses[number] = CourseNotebook.read(course_paths[number])
            grades.submissions.append(
                grade_notebook(
                    path, courses[number], submission, devices=n_devices, timeout_s=timeout_s
                )
            )
        if progress is not None:
            progress(position, len(submissions), grades.submissions[-1])
    return grades


__all__ = [
    "ClassGrades",
    "ExerciseGrade",
    "GradingError",
    "SubmissionGrade",
    "find_course",
    "find_submissions",
    "grade",
    "grade_notebook",
    "print_progress",
    "write_report",
]
