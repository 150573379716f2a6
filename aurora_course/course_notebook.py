"""One model of a course notebook, which every tool reads: number, title, time line, cells and tags,
exercises (heading, solution cells, check cells), quick-reference tables and instructor notes.

The conventions it reads are CONTRIBUTING's notebook template; the patterns below (and, for the
exercise, :mod:`aurora_helpers.checks.answer_cells`, which the notebooks' own checks read too) are their
only definition in the tools:

- the file: ``NN_name.ipynb``, ``NN`` two digits or a capital and a digit (``00``, ``10``, ``A1``);
- the title cell: ``# NN · Title`` and ``**Time:** about N minutes (T teaching, E exercises).``;
- an exercise: a markdown heading ``### Exercise NN.k: title``, a code cell tagged ``solution``
  in its section (before the next heading), and a code cell calling ``ah.check("NN.k", ...)``
  with the label as a string literal. Its solution cells are the tagged cells of the answer
  :func:`~aurora_helpers.checks.answer_cells.answer_cell_indexes` finds, the cells a student copy stubs
  and the grader replaces.
  A label is the notebook's number, a dot and the exercise's number (``07.1``, ``A1.2``); checks
  with other labels (``"00.demo"``) are checks but not exercises;
- check cells (:func:`check_cell_indexes`): a code cell that calls ``ah.check(...)``, one whose
  first line is a ``# Check`` comment, or one that only asserts and follows a code cell (the checks
  of the teaching cell before it); the website and the student copies show them collapsed;
- cells tagged ``instructor`` (notes), ``quickref`` (a table that starts with ``**Quick reference:
  <title>.**``, checked by the next code cell) and ``parameters`` (papermill's).

Reading never fails on a notebook that breaks a convention: what is missing is ``None`` or empty,
and the tools (and ``tests/test_notebooks.py``) say what is wrong.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

from aurora_helpers.checks.answer_cells import ANY_HEADING, answer_cell_indexes
from aurora_helpers.checks.answer_cells import EXERCISE_HEADING as EXERCISE_HEADING
from aurora_helpers.checks.answer_cells import LABEL as LABEL
from aurora_helpers.checks.answer_cells import SOLUTION_TAG as SOLUTION_TAG
from aurora_helpers.checks.answer_cells import check_labels as check_labels
from aurora_helpers.checks.answer_cells import is_label as is_label
from aurora_helpers.checks.answer_cells import parse_python as parse_python

#: An nbformat notebook (or cell): a dict with attribute access. nbformat ships no type hints.
NotebookNode: TypeAlias = Any

INSTRUCTOR_TAG = "instructor"
QUICKREF_TAG = "quickref"
PARAMETERS_TAG = "parameters"

#: A course notebook's file name; ``number`` is what ``aurora run --only`` selects.
NOTEBOOK_NAME = re.compile(r"^(?P<number>[0-9A-Z][0-9])_(?P<slug>[a-z0-9_]+)\.ipynb$")
#: The title cell's time line: total, teaching and exercise minutes.
TIME_LINE = re.compile(
    r"\*\*Time:\*\*\s*about\s+(?P<total>\d+)\s+minutes\s*"
    r"\((?P<teaching>\d+)\s+teaching,\s*(?P<exercises>\d+)\s+exercises\)\."
)
_TITLE = re.compile(r"^#\s+(?:(?P<number>[0-9A-Z][0-9])\s*·\s*)?(?P<title>.+?)\s*$", re.M)
_FILE_NUMBER = re.compile(r"(?<![0-9A-Za-z])(?P<number>[0-9A-Z][0-9])_")
_QUICKREF_HEAD = re.compile(r"^\s*\*\*Quick reference:\s*(?P<title>[^*]+?)\.?\*\*\s*", re.I)


def cell_tags(cell: NotebookNode) -> list[str]:
    """The tags of an nbformat cell."""
    return list(cell.get("metadata", {}).get("tags", []))


def is_solution(cell: NotebookNode) -> bool:
    """Whether an nbformat cell is a code cell tagged ``solution``."""
    return cell.get("cell_type") == "code" and SOLUTION_TAG in cell_tags(cell)


def is_instructor(cell: NotebookNode) -> bool:
    """Whether an nbformat cell is tagged ``instructor``."""
    return INSTRUCTOR_TAG in cell_tags(cell)


def number_in_file_name(name: str) -> str | None:
    """The notebook number a file name carries anywhere (``homework_07_shard_map.ipynb``: ``07``)."""
    found = _FILE_NUMBER.search(name)
    return found.group("number") if found else None


@dataclass(frozen=True)
class Cell:
    """One cell as the tools read it."""

    index: int
    kind: str  # "code", "markdown" or "raw"
    source: str
    tags: tuple[str, ...] = ()

    @property
    def is_code(self) -> bool:
        return self.kind == "code"

    @property
    def is_markdown(self) -> bool:
        return self.kind == "markdown"

    @property
    def is_solution(self) -> bool:
        return self.is_code and SOLUTION_TAG in self.tags

    @property
    def is_instructor(self) -> bool:
        return INSTRUCTOR_TAG in self.tags


@dataclass(frozen=True)
class TimeLine:
    """The minutes the title cell announces."""

    total: int
    teaching: int
    exercises: int

    @property
    def consistent(self) -> bool:
        return self.teaching + self.exercises == self.total


@dataclass(frozen=True)
class Exercise:
    """One exercise: its label, title, and the cells that make it (indices into the notebook)."""

    label: str
    title: str = ""
    heading: int | None = None  # the markdown cell with ``### Exercise NN.k``
    solutions: tuple[int, ...] = ()
    checks: tuple[int, ...] = ()  # the code cells whose check calls name this label


@dataclass(frozen=True)
class QuickrefTable:
    """A markdown cell tagged ``quickref``: its title (None: the opening line is missing), the
    table below the opening line, and the code cell that checks it (None: none before the next
    heading)."""

    cell: int
    title: str | None
    body: str
    check: int | None
    markdown: bool = True


@dataclass(frozen=True)
class CourseNotebook:
    """What the tools read from one notebook. ``nb`` is the nbformat notebook it was read from."""

    name: str  # the file's stem, e.g. "07_shard_map"
    nb: NotebookNode
    cells: tuple[Cell, ...]
    number: str | None  # from the title heading, else from the file name
    title: str  # the title heading without its number, else the file's stem
    heading: str  # the whole title heading ("07 · shard_map and collectives"), else the stem
    numbered_title: bool  # whether the heading reads "# NN · Title"
    time: TimeLine | None
    exercises: tuple[Exercise, ...]
    checks: Mapping[int, tuple[str, ...]] = field(default_factory=dict)  # every check call
    quickrefs: tuple[QuickrefTable, ...] = ()

    @classmethod
    def read(cls, path: Path | str) -> CourseNotebook:
        """Read the notebook file at ``path``."""
        import nbformat

        path = Path(path)
        return cls.from_nb(nbformat.read(path, as_version=4), path.stem)

    @classmethod
    def from_nb(cls, nb: NotebookNode, name: str = "notebook") -> CourseNotebook:
        """Read an nbformat notebook; ``name`` is its file's stem (where its number may come from)."""
        cells = tuple(
            Cell(i, str(c.get("cell_type", "")), str(c.get("source", "")), tuple(cell_tags(c)))
            for i, c in enumerate(nb.cells)
        )
        title = next(
            (m for c in cells if c.is_markdown for m in [_TITLE.search(c.source)] if m), None
        )
        time = next(
            (m for c in cells if c.is_markdown for m in [TIME_LINE.search(c.source)] if m), None
        )
        file_number = NOTEBOOK_NAME.match(f"{name}.ipynb")
        number = (title.group("number") if title else None) or (
            file_number.group("number") if file_number else None
        )
        found = {c.index: tuple(check_labels(c.source)) for c in cells if c.is_code}
        checks = {index: labels for index, labels in found.items() if labels}
        return cls(
            name=name,
            nb=nb,
            cells=cells,
            number=number,
            title=title.group("title") if title else name,
            heading=title.group(0).lstrip("#").strip() if title else name,
            numbered_title=bool(title and title.group("number")),
            time=TimeLine(*(int(time.group(k)) for k in ("total", "teaching", "exercises")))
            if time
            else None,
            exercises=_exercises(cells, checks),
            checks=checks,
            quickrefs=tuple(_quickrefs(cells)),
        )

    @property
    def check_cells(self) -> tuple[int, ...]:
        """The indexes of the check cells (:func:`check_cell_indexes`)."""
        return check_cell_indexes(self.nb)

    @property
    def instructor_notes(self) -> tuple[Cell, ...]:
        return tuple(c for c in self.cells if c.is_instructor)

    @property
    def solutions(self) -> tuple[Cell, ...]:
        return tuple(c for c in self.cells if c.is_solution)

    @property
    def labels(self) -> list[str]:
        return [e.label for e in self.exercises]

    def exercise(self, label: str) -> Exercise:
        """The exercise labelled ``label``.

        Raises:
            KeyError: the notebook has no such exercise.
        """
        for exercise in self.exercises:
            if exercise.label == label:
                return exercise
        raise KeyError(f"{self.name} has no exercise {label}")

    def exercise_of(self, index: int) -> Exercise | None:
        """The exercise whose solution cell is cell ``index`` (None if it is none's)."""
        return next((e for e in self.exercises if index in e.solutions), None)


#: Calls that only check: ``ah.assert_matches(...)``, ``np.testing.assert_allclose(...)``, ...
_ASSERTING_CALL = re.compile(r"(^|\.)assert_\w+$")
#: A check cell's optional first line, where the cell needs more than asserts: ``# Check: ...``.
CHECK_MARK = re.compile(r"^#\s*checks?\b", re.I)


def _only_checks(statements: list[ast.stmt]) -> bool:
    """Whether ``statements`` do nothing but assert: ``assert``, ``assert_*`` calls, ``pass``, and
    ``for``/``with``/``if`` blocks of those (loops over cases)."""
    for node in statements:
        if isinstance(node, (ast.Assert, ast.Pass)):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            if _ASSERTING_CALL.search(ast.unparse(node.value.func)):
                continue
            return False
        orelse = getattr(node, "orelse", [])
        blocks = isinstance(node, (ast.For, ast.With, ast.If)) and _only_checks(node.body)
        if blocks and (not orelse or _only_checks(orelse)):
            continue
        return False
    return bool(statements)


def is_check_source(source: str) -> bool:
    """Whether a code cell's source is checks only: it calls ``ah.check(...)`` (an exercise's check
    cell), its first line is a ``# Check`` comment, or every statement asserts (:func:`_only_checks`)."""
    if check_labels(source) or CHECK_MARK.match(source.lstrip()):
        return True
    tree = parse_python(source)
    return tree is not None and _only_checks(tree.body)


def check_cell_indexes(nb: NotebookNode) -> tuple[int, ...]:
    """The check cells of ``nb``: code cells that call ``ah.check(...)`` or start with a ``# Check``
    comment, and code cells that only assert right after another code cell (the checks of the
    teaching cell they follow).

    A cell of asserts right under prose is the lesson itself and stays a teaching cell. Solution
    and parameters cells never are check cells. The website collapses check cells behind a toggle
    and student copies store them hidden (``jupyter.source_hidden``), their source still there.
    """
    found = []
    previous = ""
    for index, cell in enumerate(nb.cells):
        kind = str(cell.get("cell_type", ""))
        tags = cell_tags(cell)
        if kind == "code" and SOLUTION_TAG not in tags and PARAMETERS_TAG not in tags:
            source = str(cell.get("source", ""))
            marked = check_labels(source) or CHECK_MARK.match(source.lstrip())
            if marked or (previous == "code" and is_check_source(source)):
                found.append(index)
        if kind != "raw":
            previous = kind
    return tuple(found)


def _exercise_headings(cell: Cell) -> Iterator[tuple[str, str]]:
    if cell.is_markdown:
        for found in EXERCISE_HEADING.finditer(cell.source):
            if is_label(found.group("label")):
                yield found.group("label"), found.group("title")


def _exercises(cells: tuple[Cell, ...], checks: dict[int, tuple[str, ...]]) -> tuple[Exercise, ...]:
    """Exercises from their headings, then labels that only checks name; an exercise's solution
    cells are the ``solution``-tagged cells of its answer, as the notebook's check and the grader
    read it (:func:`aurora_helpers.checks.answer_cells.answer_cell_indexes`)."""
    titles: dict[str, str] = {}
    headings: dict[str, int] = {}
    for cell in cells:
        for label, title in _exercise_headings(cell):
            headings.setdefault(label, cell.index)
            titles.setdefault(label, title)
    order = list(headings)
    order += [x for i in sorted(checks) for x in checks[i] if is_label(x) and x not in headings]
    return tuple(
        Exercise(
            label,
            titles.get(label, ""),
            headings.get(label),
            tuple(i for i in answer_cell_indexes(cells, label) if cells[i].is_solution),
            tuple(i for i in sorted(checks) if label in checks[i]),
        )
        for label in dict.fromkeys(order)
    )


def _quickrefs(cells: tuple[Cell, ...]) -> Iterator[QuickrefTable]:
    for cell in cells:
        if QUICKREF_TAG not in cell.tags:
            continue
        head = _QUICKREF_HEAD.match(cell.source)
        check = None
        for later in cells[cell.index + 1 :]:
            if later.is_code:
                check = later.index
                break
            if ANY_HEADING.search(later.source):
                break
        yield QuickrefTable(
            cell=cell.index,
            title=head.group("title").strip() if head else None,
            body=cell.source[head.end() :].strip() if head else cell.source.strip(),
            check=check,
            markdown=cell.is_markdown,
        )
