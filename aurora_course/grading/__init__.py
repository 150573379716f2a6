"""``aurora grade``: grade learners' notebooks by running their answers in the course's own notebook.

How a submission is graded:

1. The file is read (never written). Not JSON, not a notebook, or not one of the course's notebooks
   (no ``### Exercise NN.k`` heading and no ``NN_`` file name matching a course notebook): one row
   saying so, and the class goes on.
2. An exercise's answer is the learner's code in its section (:mod:`.submission`), as the
   notebook's own check reads it (:func:`aurora_helpers.checks.answer_cells.answer_cell_indexes`):
   every code cell from the ``### Exercise NN.k`` heading to the next heading (without the
   heading, from the answer cell to the check cell) that is not one of the course's other cells
   unchanged (the solution cell, new cells written under an untouched stub, what the learner
   added to a check cell). Of those, the cells that bind a name no later one binds again
   run (:func:`aurora_helpers.checks.answer_cells.live_cells`: a trial cell binds none). Both notebooks
   are read through :mod:`aurora_course.course_notebook`; outputs and check cells are ignored.
3. The answer is screened statically (:mod:`aurora_helpers.checks.answer_screen`) with the rules a
   notebook's own ``ah.check`` applies in the learner's kernel: no patching or calling of the
   checking code, no reaching into the interpreter, no rebinding of names the course's cells use,
   no files. A rejected answer scores "wrong" with the reason, and the course's stub runs in its
   place.
4. The course's own copy of the notebook is executed (:mod:`aurora_course.execute`) with the
   learner's cells in place of its solution cells (the student stub where the learner has none;
   :mod:`.assemble`), with the course's own check
   cells, in a fresh kernel, in a temporary folder, under a time limit per notebook and one per
   cell of an exercise, with
   ``AURORA_CHECKS=report`` (a wrong answer is reported, not raised, so every exercise gets a
   status) and ``AURORA_GRADE_LOG`` (each ``ah.check`` call appends a JSON line).
5. The grader's own cells seal the log (:mod:`aurora_course.grading.seal`): after every code cell
   they display the new log lines with an HMAC under a per-run secret, and whether the checking
   code is still the original. Only sealed lines count (:mod:`.verdict`); :mod:`.report` holds
   the grades. An exercise whose cell runs past its limit scores "wrong", and the notebook runs
   again with that exercise's stub, so a hanging answer costs only its own exercise.
6. Submissions are graded in parallel (``jobs`` kernels at once); each row names its learner,
   from the folder under the one given (``class/alice/06_sharding.ipynb``) or the file name
   (``alice_06_sharding.ipynb``), and :meth:`.report.ClassGrades.to_csv` is the gradebook.

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

import os
import secrets
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from aurora_helpers._checks import positive_float
from aurora_helpers.contract import (
    CHECK_LOG_ENV_VAR,
    CHECKS_ENV_VAR,
    DEVICES_ENV_VAR,
    requested_device_count,
)

from ..course import find_notebooks, locate_notebooks, notebook_number
from ..course_notebook import CourseNotebook
from ..execute import Execution, cell_error, execute_notebook
from .assemble import FINAL, Graded, graded_notebook
from .identity import identify
from .report import (
    ClassGrades,
    ExerciseGrade,
    Progress,
    SubmissionGrade,
    print_progress,
    write_report,
)
from .seal import TOKEN_ENV_VAR
from .submission import (
    find_submissions,
    learner_cells,
    read_submission,
    which_course_notebook,
)
from .verdict import grade_cells, read_seals

#: Seconds one run of a submission may take, all cells together, unless ``--timeout`` says
#: otherwise.
DEFAULT_TIMEOUT_S = 300.0
#: Seconds any one cell of an exercise (its answer cells and its check cells) may run unless
#: ``--exercise-timeout`` says otherwise: past it the exercise scores "wrong". The course's other
#: cells have the executor's own limit (:data:`aurora_course.execute.CELL_TIMEOUT_S`) within
#: ``--timeout``: a slow machine must not turn a long course cell into a wrong exercise.
DEFAULT_EXERCISE_TIMEOUT_S = 120.0


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


@dataclass
class _Run:
    """One execution of the graded notebook and what its seals say."""

    graded: Graded
    run: Execution
    records: dict[int, dict[str, Any]]
    tampered: str


def _execute(
    graded: Graded, *, devices: int, timeout_s: float, exercise_cells: dict[int, float]
) -> _Run:
    """Run the graded notebook in a fresh kernel in a temporary folder; read its seals."""
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
            graded.nb,
            cwd=work,
            env=env,
            timeout_s=timeout_s,
            cell_limits=exercise_cells,
            kernel_log=work / "kernel.log",
        )
    setup_error = cell_error(graded.nb.cells[0])
    if setup_error and 0 in run.executed:
        raise GradingError(
            f"the grader's set-up cell failed in the kernel ({setup_error.gist}). Is the "
            "`python3` Jupyter kernel the Python environment with the course (aurora-helpers) "
            "installed?"
        )
    records, tampered = read_seals(graded.nb, token)
    return _Run(graded, run, records, tampered)


def _hung(course: CourseNotebook, attempt: _Run) -> str | None:
    """The exercise whose cell ran past the per-cell limit and stopped the run, if one did (not
    when the notebook's own time ran out first: a slow machine, not a hanging answer)."""
    run = attempt.run
    if run.failure != "timed out" or not run.cell_timed_out or run.stopped_at is None:
        return None
    return attempt.graded.exercise_at(course, run.stopped_at)


def grade_notebook(
    path: Path,
    course: CourseNotebook,
    submission: CourseNotebook,
    *,
    devices: int,
    timeout_s: float,
    exercise_timeout_s: float = DEFAULT_EXERCISE_TIMEOUT_S,
) -> SubmissionGrade:
    """Grade one readable submission (read from ``path``) of the course notebook ``course``.

    A cell of an exercise that runs past ``exercise_timeout_s`` makes that exercise "wrong"; the
    notebook then runs again with its stub, so the later exercises are graded too.
    """
    start = time.perf_counter()
    answers = learner_cells(submission, course)
    hung: dict[str, ExerciseGrade] = {}
    while True:
        graded = graded_notebook(course, answers, frozenset(hung))
        limits = {
            graded.where[i]: exercise_timeout_s
            for e in course.exercises
            for i in (*e.solutions, *e.checks)
            if i in graded.where
        }
        attempt = _execute(graded, devices=devices, timeout_s=timeout_s, exercise_cells=limits)
        label = _hung(course, attempt)
        if label is None or label in hung:
            break
        why = f"a cell of the exercise did not finish within {exercise_timeout_s:g} s"
        hung[label] = ExerciseGrade(label, "wrong", why)
    result = _grades(path, course, attempt, timeout_s)
    result.exercises = [hung.get(e.exercise, e) for e in result.exercises]
    if hung and result.status == "graded":
        result.detail = (
            f"graded again without {', '.join(hung)} (a cell ran past {exercise_timeout_s:g} s)"
        )
    result.seconds = time.perf_counter() - start
    return result


def _grades(path: Path, course: CourseNotebook, attempt: _Run, timeout_s: float) -> SubmissionGrade:
    """Every exercise's grade from one run of the graded notebook."""
    graded, run, records, tampered = attempt.graded, attempt.run, attempt.records, attempt.tampered
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
        return result
    solutions = {e.label: e.solutions for e in course.exercises}
    grades = grade_cells(run, records, dict(course.checks), solutions, graded.where, timeout_s)
    for exercise in course.exercises:
        rejected = graded.rejected.get(exercise.label)
        if rejected is not None:
            reasons = "; ".join(rejected.problems[:3])
            grade = ExerciseGrade(exercise.label, "wrong", f"the answer was not run: {reasons}")
        else:
            grade = grades.get(exercise.label) or ExerciseGrade(
                exercise.label, "not run", "no check cell names it"
            )
        result.exercises.append(grade)
    return result


_COURSES: dict[Path, CourseNotebook] = {}


def _grade_one(
    path: Path, learner: str, course_paths: dict[str, Path], options: dict[str, float | int]
) -> SubmissionGrade:
    """Grade one file (in this process or a worker): read, match, run."""
    nb, problem = read_submission(path)
    submission = CourseNotebook.from_nb(nb, path.stem) if nb is not None else None
    number = which_course_notebook(submission, path, course_paths) if submission else None
    if submission is None:
        result = SubmissionGrade(str(path), "unreadable", detail=problem)
    elif number is None:
        result = SubmissionGrade(
            str(path),
            "not a course notebook",
            detail="no `### Exercise NN.k` heading and no NN_ file name of a course notebook",
        )
    else:
        course_path = course_paths[number]
        if course_path not in _COURSES:
            _COURSES[course_path] = CourseNotebook.read(course_path)
        result = grade_notebook(
            path,
            _COURSES[course_path],
            submission,
            devices=int(options["devices"]),
            timeout_s=float(options["timeout_s"]),
            exercise_timeout_s=float(options["exercise_timeout_s"]),
        )
    result.identity = identify(path, learner, result.notebook)
    result.learner = result.identity.key
    return result


def grade(
    paths: Sequence[Path],
    *,
    notebooks_dir: Path | None = None,
    devices: int | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    exercise_timeout_s: float = DEFAULT_EXERCISE_TIMEOUT_S,
    jobs: int = 1,
    progress: Callable[[int, int, SubmissionGrade], None] | None = None,
) -> ClassGrades:
    """Grade every submission under ``paths`` (files, or folders searched for ``*.ipynb``).

    One submission that cannot be read, is not a course notebook, hangs or crashes is reported on
    its row, and the class goes on.

    Args:
        notebooks_dir: the course's notebooks (default: ``./notebooks``, else the package's).
        devices: simulated CPU devices, as ``aurora run --devices`` (default ``$AURORA_DEVICES``
            or 8).
        timeout_s: seconds each run of a submission may take in all.
        exercise_timeout_s: seconds any one cell may take; past it, its exercise scores "wrong".
        jobs: submissions graded at once, each in its own process and kernel (``aurora grade``
            uses every core).
        progress: called after each submission with how many are done, the total and its grade.

    Raises:
        GradingError: no course notebooks, or no submission files under ``paths``.
    """
    options: dict[str, float | int] = {
        "timeout_s": positive_float("timeout", timeout_s),
        "exercise_timeout_s": positive_float("exercise timeout", exercise_timeout_s),
        "devices": requested_device_count(devices),
    }
    course_paths = find_course(notebooks_dir)
    submissions = find_submissions(paths)
    if not submissions:
        raise GradingError(
            f"no notebooks (*.ipynb) found in {', '.join(map(str, paths))}; pass the learners' "
            "notebook files or the folders that hold them"
        )
    grades = ClassGrades(
        [], str(next(iter(course_paths.values())).parent), int(options["devices"]), timeout_s
    )
    results: list[SubmissionGrade | None] = [None] * len(submissions)
    work = [(path, learner, course_paths, options) for path, learner in submissions]
    if jobs <= 1 or len(work) == 1:
        for done, item in enumerate(work, start=1):
            results[done - 1] = _grade_one(*item)
            if progress is not None:
                progress(done, len(work), results[done - 1])  # type: ignore[arg-type]
    else:
        workers = min(jobs, len(work))
        with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
            futures = {pool.submit(_grade_one, *item): i for i, item in enumerate(work)}
            for done, future in enumerate(as_completed(futures), start=1):
                results[futures[future]] = future.result()
                if progress is not None:
                    progress(done, len(work), future.result())
    grades.submissions = [r for r in results if r is not None]
    return grades


def default_jobs() -> int:
    """Submissions ``aurora grade`` runs at once: one per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


__all__ = [
    "ClassGrades",
    "ExerciseGrade",
    "GradingError",
    "Progress",
    "SubmissionGrade",
    "default_jobs",
    "find_course",
    "find_submissions",
    "grade",
    "grade_notebook",
    "print_progress",
    "write_report",
]
