"""The submission's side of ``aurora grade``: find the files, read them (never write), tell which
course notebook each one is, and take the learner's answer cells by exercise."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from ..course_notebook import LABEL, CourseNotebook, NotebookNode, number_in_file_name


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


def learner_cells(submission: CourseNotebook, course: CourseNotebook) -> dict[str, list[str]]:
    """The learner's solution cells by exercise label: by the heading above each (or the check
    after it), or, when none of them names an exercise of the course, in order."""
    slots = {e.label: len(e.solutions) for e in course.exercises if e.solutions}
    labelled: list[tuple[str | None, str]] = []
    for cell in submission.solutions:
        exercise = submission.exercise_of(cell.index)
        label = exercise.label if exercise is not None and exercise.label in slots else None
        labelled.append((label, cell.source))
    if labelled and all(label is None for label, _ in labelled):
        order = [label for label, count in slots.items() for _ in range(count)]
        labelled = [(label, source) for label, (_, source) in zip(order, labelled, strict=False)]
    by_label: dict[str, list[str]] = {}
    for label, source in labelled:
        if label is not None:
            by_label.setdefault(label, []).append(source)
    return by_label
