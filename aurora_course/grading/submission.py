"""The submission's side of ``aurora grade``: find the files, read them (never write), tell which
course notebook each one is, and take the learner's answer cells by exercise (the cells
:func:`aurora_helpers.checks.answer_cells.answer_cell_indexes` says are the answer, as the notebook's own
check reads them)."""

from __future__ import annotations

import ast
import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from aurora_helpers.checks.answer_cells import answer_cell_indexes

from ..course_notebook import (
    LABEL,
    CourseNotebook,
    NotebookNode,
    number_in_file_name,
    parse_python,
)


def find_submissions(paths: Iterable[Path]) -> list[tuple[Path, str]]:
    """Files named on the command line, and every ``*.ipynb`` under folders (recursively), each
    with the name of the first folder between the folder given and the file (``""``: none).

    Jupyter's ``.ipynb_checkpoints`` folders are skipped. A path that does not exist is kept, so
    that it is reported as unreadable.
    """
    found: list[tuple[Path, str]] = []
    for path in paths:
        if path.is_dir():
            found.extend(
                (p, p.relative_to(path).parts[0] if len(p.relative_to(path).parts) > 1 else "")
                for p in sorted(path.rglob("*.ipynb"))
                if p.is_file() and ".ipynb_checkpoints" not in p.parts
            )
        else:
            found.append((path, ""))
    return found


def read_submission(path: Path) -> tuple[NotebookNode | None, str]:
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
        return nbformat.reads(raw.decode("utf-8"), as_version=4), ""
    except Exception as err:  # nbformat raises many kinds on a malformed notebook
        return None, f"not a notebook nbformat can read ({type(err).__name__}: {str(err)[:120]})"


def which_course_notebook(
    submission: CourseNotebook, path: Path, course: Iterable[str]
) -> str | None:
    """The course number of a submission: from its exercise headings, else its file name."""
    numbers = set(course)
    headed = Counter(
        match.group("number")
        for exercise in submission.exercises
        if exercise.heading is not None
        for match in [LABEL.fullmatch(exercise.label)]
        if match
    )
    for number, _ in headed.most_common():
        if number in numbers:
            return number
    number = number_in_file_name(path.name)
    return number if number in numbers else None


def _normal(source: str) -> str:
    """A cell's code with blank lines and trailing spaces ignored (a re-saved notebook's cell
    still matches the course's)."""
    return "\n".join(line.rstrip() for line in source.strip().splitlines() if line.strip())


def _calls_check(node: ast.AST) -> bool:
    """Whether a statement calls ``ah.check`` (or a bare ``check``), whatever its label."""
    for call in ast.walk(node):
        func = call.func if isinstance(call, ast.Call) else None
        if (isinstance(func, ast.Name) and func.id == "check") or (
            isinstance(func, ast.Attribute)
            and func.attr == "check"
            and isinstance(func.value, ast.Name)
            and func.value.id in ("ah", "aurora_helpers")
        ):
            return True
    return False


def _added_to_check_cell(source: str, course_checks: set[str]) -> str:
    """What a learner wrote into a check cell: its statements that are not the course's and do not
    call the checks (the course's own check cell runs in the grader)."""
    tree = parse_python(source)
    if tree is None:
        return source
    kept = [
        ast.get_source_segment(source, node) or ast.unparse(node)
        for node in tree.body
        if ast.dump(node) not in course_checks and not _calls_check(node)
    ]
    return "\n".join(kept)


def learner_cells(submission: CourseNotebook, course: CourseNotebook) -> dict[str, list[str]]:
    """The learner's code by exercise label: every cell of the exercise's answer
    (:func:`~aurora_helpers.checks.answer_cells.answer_cell_indexes`: its heading's section, or without
    the heading from the answer cell to the check) that is not one of the course's other cells
    unchanged (the solution cell, new cells written under the stub, trial cells, and what the
    learner added to a check cell), in order."""
    labels = [e.label for e in course.exercises if e.solutions]
    course_code = {_normal(c.source) for c in course.cells if c.is_code and not c.is_solution}
    course_checks = {
        ast.dump(node)
        for index in course.checks
        for tree in [parse_python(course.cells[index].source)]
        if tree is not None
        for node in tree.body
    }
    by_label: dict[str, list[str]] = {}
    for label in labels:
        for index in answer_cell_indexes(submission.cells, label):
            cell = submission.cells[index]
            if _normal(cell.source) in course_code or not cell.source.strip():
                continue
            source = cell.source
            if index in submission.checks:
                source = _added_to_check_cell(source, course_checks)
            if source.strip():
                by_label.setdefault(label, []).append(source)
    return by_label
