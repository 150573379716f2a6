"""``aurora grade``: grade learners' notebooks by running their answers in the course's own notebook.

How a submission is graded:

1. The file is read (never written). Not JSON, not a notebook, or not one of the course's notebooks
   (no ``### Exercise NN.k`` heading and no ``NN_`` file name matching a course notebook): one row
   saying so, and the class goes on.
2. Only the learner's ``solution``-tagged cells are taken. Each belongs to the exercise of the
   nearest ``### Exercise NN.k`` heading above it (in order, when the learner removed the
   headings). Everything else in the submission, its check cells and its outputs included, is
   ignored.
3. Each learner cell is screened statically (:mod:`aurora_helpers.answer_screen`): imports,
   function definitions and assignments to names only; no patching of the checking code, no
   reaching into the interpreter, no rebinding of names the course's cells use. A rejected cell
   scores "wrong" with the reason, and the course's stub runs in its place.
4. The course's own copy of the notebook is executed with the learner's cells in place of its
   solution cells (the student stub where the learner has none), with the course's own check
   cells, in a fresh kernel, in a temporary folder, under a time limit, with
   ``AURORA_CHECKS=report`` (a wrong answer is reported, not raised, so every exercise gets a
   status) and ``AURORA_GRADE_LOG`` (each ``ah.check`` call appends a JSON line).
5. The grader's own cells seal the log (:mod:`aurora_course.grading.seal`): after every code cell
   they display the new log lines with an HMAC under a per-run secret, and whether the checking
   code is still the original. Only sealed lines count.

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
kernel's memory, out of the screen's reach but not of every trick). Grade untrusted work in a disposable container or account, as you would
run any untrusted code.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import math
import os
import re
import secrets
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from aurora_helpers._checks import positive_float
from aurora_helpers._display import text_table
from aurora_helpers.answer_screen import CourseNames, Screening, course_names, screen_solution
from aurora_helpers.contract import (
    CHECK_LOG_ENV_VAR,
    CHECKS_ENV_VAR,
    DEVICES_ENV_VAR,
    requested_device_count,
)

from ..course import find_notebooks, locate_notebooks, notebook_number
from ..student import is_solution, stub_source
from .seal import SEAL_MIME, TOKEN_ENV_VAR, sign

#: Seconds one submission may run, all cells together, unless ``--timeout`` says otherwise.
DEFAULT_TIMEOUT_S = 300.0

ExerciseStatus = Literal["solved", "not solved yet", "wrong", "not run"]
SubmissionStatus = Literal[
    "graded", "timed out", "kernel died", "tampered", "unreadable", "not a course notebook"
]

_HEADING = re.compile(r"^#{1,6}\s*Exercise\s+([0-9A-Z][0-9]\.[0-9A-Za-z]+)\b", re.MULTILINE)
_CHECK_CALL = re.compile(r"\bcheck\(\s*(['\"])([^'\"]+)\1")
_FILE_NUMBER = re.compile(r"(?<![0-9A-Za-z])([0-9A-Z][0-9])_")
_GRADER_TAG = "aurora-grade"
_SEAL_CALL = "_aurora_grade_seal({index})"
_SEAL_SETUP = (
    "# Added by `aurora grade`: seal the grade log (see aurora_course.grading).\n"
    "from aurora_course.grading.seal import make_seal as _aurora_grade_make_seal\n\n"
    "_aurora_grade_seal = _aurora_grade_make_seal()\n"
    "del _aurora_grade_make_seal"
)
_SEVERITY = {"wrong": 3, "not run": 2, "not solved yet": 1, "solved": 0}


class GradingError(RuntimeError):
    """Grading itself cannot proceed (no course notebooks, no submissions); the message says why."""


@dataclass
class ExerciseGrade:
    """One exercise of one submission."""

    exercise: str
    status: ExerciseStatus
    detail: str = ""


@dataclass
class SubmissionGrade:
    """One submitted file: which course notebook it is, how the run went, every exercise."""

    submission: str
    status: SubmissionStatus
    notebook: str | None = None
    detail: str = ""
    seconds: float = 0.0
    exercises: list[ExerciseGrade] = field(default_factory=list)

    @property
    def solved(self) -> int:
        return sum(e.status == "solved" for e in self.exercises)

    def summary(self) -> str:
        """``"2 of 3 solved"``, or the status when the file was not graded."""
        if self.status in ("unreadable", "not a course notebook"):
            return self.status
        tail = "" if self.status == "graded" else f" ({self.status})"
        return f"{self.solved} of {len(self.exercises)} solved{tail}"


_MARKS = {"solved": "✓", "wrong": "✗", "not solved yet": "·", "not run": "-"}


@dataclass
class ClassGrades:
    """Every submission's grades, in the order the files were found."""

    submissions: list[SubmissionGrade]
    course: str
    devices: int
    timeout_s: float

    def table(self) -> str:
        """A terminal table (one row per submission), then the details of what is not solved."""
        rows = [
            (
                s.submission,
                s.notebook or "-",
                s.summary(),
                " ".join(f"{e.exercise} {_MARKS[e.status]}" for e in s.exercises),
            )
            for s in self.submissions
        ]
        text = text_table(("submission", "notebook", "result", "exercises"), rows)
        text += "\n\n✓ solved   ✗ wrong   · not solved yet   - not run"
        notes = []
        for s in self.submissions:
            if s.detail:
                notes.append(f"{s.submission}: {s.status}: {s.detail}")
            for e in s.exercises:
                if e.status in ("wrong", "not run") and e.detail:
                    notes.append(f"{s.submission} {e.exercise} {e.status}: {e.detail}")
        if notes:
            text += "\n\n" + "\n".join(notes)
        return text

    def to_json(self) -> str:
        return json.dumps(
            {
                "course": self.course,
                "devices": self.devices,
                "timeout_s": self.timeout_s,
                "submissions": [
                    {**asdict(s), "solved": s.solved, "exercise_count": len(s.exercises)}
                    for s in self.submissions
                ],
            },
            indent=2,
            ensure_ascii=False,
        )

    def to_csv(self) -> str:
        """One row per submission and exercise (one row with an empty exercise when none ran)."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(
            ["submission", "notebook", "submission_status", "exercise", "status", "detail"]
        )
        for s in self.submissions:
            for e in s.exercises or [ExerciseGrade("", "not run", s.detail)]:
                writer.writerow(
                    [s.submission, s.notebook or "", s.status, e.exercise, e.status, e.detail]
                )
        return out.getvalue()


# --- The course's side ------------------------------------------------------------------------


@dataclass
class _CourseNotebook:
    """A course notebook, read for grading."""

    path: Path
    nb: Any
    exercises: list[str]  # labels, in order
    solution_cells: dict[str, list[int]]  # label -> indices of its solution cells
    check_cells: dict[int, list[str]]  # index -> the labels its ah.check calls name (repeated)
    names: CourseNames


def _headings(cell: Any) -> list[str]:
    return _HEADING.findall(cell.source) if cell.cell_type == "markdown" else []


def _read_course(path: Path) -> _CourseNotebook:
    import nbformat

    nb = nbformat.read(path, as_version=4)
    exercises: list[str] = []
    solutions: dict[str, list[int]] = {}
    checks: dict[int, list[str]] = {}
    current: str | None = None
    for index, cell in enumerate(nb.cells):
        for label in _headings(cell):
            current = label
            if label not in exercises:
                exercises.append(label)
        if is_solution(cell):
            label = current or f"{path.name[:2]}.solution{len(solutions) + 1}"
            if label not in exercises:
                exercises.append(label)
            solutions.setdefault(label, []).append(index)
        elif cell.cell_type == "code":
            labels = [m.group(2) for m in _CHECK_CALL.finditer(cell.source)]
            if labels:
                checks[index] = labels
    others = [c.source for c in nb.cells if c.cell_type == "code" and not is_solution(c)]
    mine = [c.source for c in nb.cells if is_solution(c)]
    return _CourseNotebook(path, nb, exercises, solutions, checks, course_names(others, mine))


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


# --- The submission's side --------------------------------------------------------------------


def find_submissions(paths: Iterable[Path]) -> list[Path]:
    """Files named on the command line, and every ``*.ipynb`` under folders (recursively).

    Jupyter's ``.ipynb_checkpoints`` folders are skipped. A path that does not exist is kept, so
    that it is reported as unreadable.
    """
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(
                sorted(
                    p
                    for p in path.rglob("*.ipynb")
                    if p.is_file() and ".ipynb_checkpoints" not in p.parts
                )
            )
        else:
            found.append(path)
    return found


def _read_submission(path: Path) -> tuple[Any, str | None]:
    """The notebook, or ``None`` and why it cannot be read. Opens the file read-only."""
    import nbformat

    try:
        raw = path.read_bytes()
    except OSError as err:
        return None, f"cannot read the file ({err.strerror or err})"
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        return None, f"not a notebook: not JSON ({type(err).__name__}: {str(err)[:120]})"
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        return None, "not a notebook: JSON without a list of cells"
    try:
        return nbformat.reads(raw.decode("utf-8"), as_version=4), None
    except Exception as err:  # nbformat raises many kinds on a malformed notebook
        return None, f"not a notebook nbformat can read ({type(err).__name__}: {str(err)[:120]})"


def _which_course_notebook(path: Path, nb: Any, course: dict[str, Path]) -> str | None:
    """The course number of a submission: from its exercise headings, else its file name."""
    numbers = Counter(label.split(".")[0] for cell in nb.cells for label in _headings(cell))
    for number, _ in numbers.most_common():
        if number in course:
            return number
    match = _FILE_NUMBER.search(path.name)
    if match and match.group(1) in course:
        return match.group(1)
    return None


def _learner_cells(nb: Any, course: _CourseNotebook) -> dict[str, list[str]]:
    """The learner's solution cells by exercise label (heading above; in order without headings)."""
    labelled: list[tuple[str | None, str]] = []  # (exercise, source)
    current: str | None = None
    for cell in nb.cells:
        for label in _headings(cell):
            current = label
        if is_solution(cell):
            labelled.append((current if current in course.solution_cells else None, cell.source))
    if labelled and all(label is None for label, _ in labelled):
        order = [label for label in course.exercises for _ in course.solution_cells.get(label, [])]
        labelled = [(label, source) for label, (_, source) in zip(order, labelled, strict=False)]
    by_label: dict[str, list[str]] = {}
    for exercise, source in labelled:
        if exercise is not None:
            by_label.setdefault(exercise, []).append(source)
    return by_label


def _own_names(course: _CourseNotebook, label: str) -> set[str]:
    """Names the course's solution cells of ``label`` bind (the learner's to define)."""
    names = course_names([course.nb.cells[i].source for i in course.solution_cells[label]], [])
    return set(names.bound)


def _graded_notebook(
    course: _CourseNotebook, learner: dict[str, list[str]]
) -> tuple[Any, dict[str, Screening], dict[int, int]]:
    """The course notebook with the learner's cells and the grader's seal cells.

    Returns the notebook, the screening of each rejected learner cell by exercise, and, for each
    code cell's index in the course notebook, its index in the graded notebook.
    """
    import nbformat

    nb = copy.deepcopy(course.nb)
    rejected: dict[str, Screening] = {}
    for label, indices in course.solution_cells.items():
        sources = learner.get(label, [])
        if len(sources) > len(indices) or (sources and len(sources) < len(indices)):
            sources = ["\n\n".join(sources)] + ["pass"] * (len(indices) - 1)
        own = _own_names(course, label)
        for slot, index in enumerate(indices):
            cell = nb.cells[index]
            stub = stub_source(cell.source)
            if slot >= len(sources):
                cell.source = stub
                continue
            verdict = screen_solution(sources[slot], course.names, own)
            if verdict.problems:
                rejected[label] = verdict
                cell.source = stub
            else:
                cell.source = sources[slot]
    cells = [nbformat.v4.new_code_cell(_SEAL_SETUP, metadata={"tags": [_GRADER_TAG]})]
    where: dict[int, int] = {}
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        cells.append(cell)
        if cell.cell_type == "code":  # sealed after every code cell: each line has its cell
            where[index] = len(cells) - 1
            seal = nbformat.v4.new_code_cell(
                _SEAL_CALL.format(index=index), metadata={"tags": [_GRADER_TAG]}
            )
            cells.append(seal)
    cells.append(
        nbformat.v4.new_code_cell(_SEAL_CALL.format(index=-1), metadata={"tags": [_GRADER_TAG]})
    )
    nb.cells = cells
    return nb, rejected, where


# --- Running ----------------------------------------------------------------------------------


@dataclass
class _Run:
    """What executing a graded notebook produced."""

    failure: Literal["timed out", "kernel died"] | None
    executed: set[int]  # indices of cells that started
    hung: int | None  # the cell that was running when time ran out
    detail: str = ""


def _execute(nb: Any, workdir: Path, env: dict[str, str], timeout_s: float) -> _Run:
    """Execute ``nb`` in place, cell by cell, within ``timeout_s`` seconds in all.

    The kernel runs in ``workdir``; its own output (warnings, a crash's last words) goes to
    ``workdir/kernel.log``, not to the grader's terminal.
    """
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    client = NotebookClient(
        nb,
        kernel_name="python3",
        allow_errors=True,
        shutdown_kernel="immediate",
        startup_timeout=120,
        resources={"metadata": {"path": str(workdir)}},
    )
    executed: set[int] = set()
    deadline = time.monotonic() + timeout_s
    current: int | None = None
    kernel_log = workdir / "kernel.log"
    try:
        with kernel_log.open("wb") as sink, client.setup_kernel(env=env, stdout=sink, stderr=sink):
            for index, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                left = deadline - time.monotonic()
                if left <= 0:
                    return _Run("timed out", executed, None, f"stopped after {timeout_s:g} s")
                client.timeout = max(1, math.ceil(left))
                current = index
                executed.add(index)
                client.execute_cell(cell, index)
    except CellTimeoutError:
        return _Run(
            "timed out", executed, current, f"a cell was still running after {timeout_s:g} s"
        )
    except DeadKernelError:
        said = (
            kernel_log.read_text("utf-8", "replace").strip().splitlines()
            if kernel_log.exists()
            else []
        )
        last = f": {said[-1][:200]}" if said else ""
        return _Run("kernel died", executed, current, f"the kernel died{last}")
    return _Run(None, executed, None)


def _seals(nb: Any, token: bytes) -> tuple[dict[int, dict[str, Any]], str]:
    """The genuine seal records by course cell index (-1: the final one), and a problem if any."""
    records: dict[int, dict[str, Any]] = {}
    expected_seq = 0
    for cell in nb.cells:
        if _GRADER_TAG not in cell.get("metadata", {}).get("tags", []):
            continue
        for output in cell.get("outputs", []):
            sealed = output.get("data", {}).get(SEAL_MIME)
            if sealed is None:
                continue
            body, mac = sealed.get("body", ""), sealed.get("mac", "")
            if not isinstance(body, str) or sign(token, body) != mac:
                return records, "a seal record does not carry the run's signature"
            record = json.loads(body)
            if record.get("seq") != expected_seq:
                return records, "the seal records are out of order"
            expected_seq += 1
            if record.get("changed"):
                shown = ", ".join(record["changed"][:4])
                return records, f"the checking code was replaced ({shown})"
            if not record.get("prefix_ok", False):
                return records, "earlier lines of the grade log were rewritten"
            records[int(record["cell"])] = record
    return records, ""


def _cell_error(cell: Any) -> str:
    """``"the cell raised NameError: ..."`` for a cell with an error output; ``""`` otherwise."""
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            lines = str(output.get("evalue", "")).strip().splitlines()
            return f"the cell raised {output.get('ename')}: {lines[0][:300] if lines else ''}"
    return ""


def _grade_check_cell(
    labels: list[str], record: dict[str, Any] | None, cell: Any
) -> dict[str, ExerciseGrade]:
    """Each label's grade from one executed check cell's sealed log lines."""
    wanted = Counter(labels)
    if record is None:
        return {
            label: ExerciseGrade(label, "not run", "the check was not sealed") for label in wanted
        }
    results: dict[str, list[dict[str, Any]]] = {label: [] for label in wanted}
    for line in record["lines"]:
        try:
            entry = json.loads(line)
            label = entry["exercise"]
        except (ValueError, KeyError, TypeError):
            label, entry = None, None
        if label not in results or entry is None or len(results[label]) >= wanted[label]:
            forged = "the grade log holds a line that no check in this cell wrote"
            return {label: ExerciseGrade(label, "wrong", forged) for label in wanted}
        results[label].append(entry)
    grades = {}
    for label, entries in results.items():
        if not entries:
            error = _cell_error(cell) or "the check cell wrote no result"
            grades[label] = ExerciseGrade(label, "wrong", error)
            continue
        worst = max(entries, key=lambda e: _SEVERITY.get(str(e.get("status")), 3))
        status = str(worst.get("status"))
        if status not in ("solved", "not solved yet", "wrong"):
            grades[label] = ExerciseGrade(label, "wrong", f"unknown check status {status!r}")
        else:
            detail = "" if status == "solved" else str(worst.get("detail", ""))
            grades[label] = ExerciseGrade(label, status, detail)  # type: ignore[arg-type]
    return grades


def _combine(a: ExerciseGrade | None, b: ExerciseGrade) -> ExerciseGrade:
    if a is None or _SEVERITY[b.status] > _SEVERITY[a.status]:
        return b
    return a


def grade_notebook(
    path: Path,
    course: _CourseNotebook,
    nb: Any,
    *,
    devices: int,
    timeout_s: float,
) -> SubmissionGrade:
    """Grade one readable submission ``nb`` (read from ``path``) of the course notebook ``course``."""
    start = time.perf_counter()
    graded, rejected, where = _graded_notebook(course, _learner_cells(nb, course))
    token = secrets.token_bytes(32)
    with tempfile.TemporaryDirectory(prefix="aurora-grade-", ignore_cleanup_errors=True) as tmp:
        work = Path(tmp)
        (work / "tmp").mkdir()
        token_file = work / "token"
        token_file.write_bytes(token)
        token_file.chmod(0o600)
        env = {
            **os.environ,
            DEVICES_ENV_VAR: str(devices),
            CHECKS_ENV_VAR: "report",
            CHECK_LOG_ENV_VAR: str(work / "grade-log.jsonl"),
            TOKEN_ENV_VAR: str(token_file),
            "TMPDIR": str(work / "tmp"),  # whatever the notebook leaves there goes too
        }
        run = _execute(graded, work, env, timeout_s)
    setup_error = _cell_error(graded.cells[0])
    if setup_error and 0 in run.executed:
        raise GradingError(
            f"the grader's set-up cell failed in the kernel ({setup_error.split(' raised ', 1)[-1]}). "
            "Is the `python3` Jupyter kernel the Python environment with the course (aurora-helpers) installed?"
        )
    records, tampered = _seals(graded, token)
    result = SubmissionGrade(
        submission=str(path),
        status=run.failure or "graded",
        notebook=course.path.stem,
        detail=run.detail,
    )
    if not tampered and run.failure is None and -1 not in records:
        tampered = "the grader's final check did not run"
    attempts = [f"{label}: {v.attempts[0]}" for label, v in rejected.items() if v.tampering]
    if not tampered and attempts:
        tampered = "an answer cell reaches for the checking code (" + "; ".join(attempts) + ")"
    if tampered:
        result.status, result.detail = "tampered", f"nothing scores: {tampered}"
        result.exercises = [ExerciseGrade(label, "wrong", tampered) for label in course.exercises]
        result.seconds = time.perf_counter() - start
        return result
    grades: dict[str, ExerciseGrade] = {}
    for label, indices in course.solution_cells.items():
        if any(records.get(i, {}).get("lines") for i in indices):
            grades[label] = ExerciseGrade(label, "wrong", "the answer cell wrote to the grade log")
    for index, labels in course.check_cells.items():
        at = where[index]
        if at not in run.executed:
            cell_grades = {label: ExerciseGrade(label, "not run", "") for label in labels}
        elif at == run.hung:
            why = f"the check did not finish within the time limit ({timeout_s:g} s)"
            if run.failure == "kernel died":
                why = "the kernel died during the check"
            cell_grades = {label: ExerciseGrade(label, "wrong", why) for label in labels}
        else:
            cell_grades = _grade_check_cell(labels, records.get(index), graded.cells[at])
        for label, grade in cell_grades.items():
            grades[label] = _combine(grades.get(label), grade)
    for label in course.exercises:
        if label in rejected:
            reasons = "; ".join(rejected[label].problems[:3])
            grade = ExerciseGrade(label, "wrong", f"the answer cell was not run: {reasons}")
        else:
            grade = grades.get(label) or ExerciseGrade(label, "not run", "no check cell names it")
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
    courses: dict[str, _CourseNotebook] = {}
    grades = ClassGrades([], str(next(iter(course_paths.values())).parent), n_devices, timeout_s)
    for position, path in enumerate(submissions, start=1):
        nb, problem = _read_submission(path)
        if nb is None:
            grades.submissions.append(
                SubmissionGrade(str(path), "unreadable", detail=problem or "")
            )
        elif (number := _which_course_notebook(path, nb, course_paths)) is None:
            grades.submissions.append(
                SubmissionGrade(
                    str(path),
                    "not a course notebook",
                    detail="no `### Exercise NN.k` heading and no NN_ file name of a course notebook",
                )
            )
        else:
            if number not in courses:
                courses[number] = _read_course(course_paths[number])
            grades.submissions.append(
                grade_notebook(path, courses[number], nb, devices=n_devices, timeout_s=timeout_s)
            )
        if progress is not None:
            progress(position, len(submissions), grades.submissions[-1])
    return grades


def print_progress(position: int, total: int, grade: SubmissionGrade) -> None:
    """One line on standard error per graded submission (``aurora grade``'s progress)."""
    seconds = f" in {grade.seconds:.1f} s" if grade.seconds else ""
    print(f"[{position}/{total}] {grade.submission}: {grade.summary()}{seconds}", file=sys.stderr)


def write_report(text: str, target: str) -> None:
    """Write ``text`` to the file ``target``, or to standard output when it is ``-``."""
    if target == "-":
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        Path(target).write_text(text, encoding="utf-8")


__all__ = [
    "ClassGrades",
    "ExerciseGrade",
    "GradingError",
    "SubmissionGrade",
    "find_course",
    "find_submissions",
    "grade",
    "grade_notebook",
]
