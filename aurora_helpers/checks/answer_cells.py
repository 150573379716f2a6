"""What "the learner's answer" to an exercise is: one definition, which ``ah.check`` (screening the
answer as the kernel ran it), ``aurora grade`` (taking the answer out of a handed-in file) and the
course's own tools (which cells of a course notebook are an exercise's solution, and so what a
student copy stubs) all read through :func:`answer_cell_indexes`, so that they never disagree
about which cells are the answer. It lives here, not in ``aurora_course``, because the notebooks
may import only ``aurora_helpers``.

An exercise ``NN.k`` is a markdown heading ``### Exercise NN.k: title``, a code cell tagged
``solution`` under it (its first line ``# @title Solution`` in the course, ``# Your answer`` in a
student copy and in what ``aurora grade`` runs), and a code cell calling ``ah.check("NN.k", ...)``.
The answer is every code cell of the exercise's section: from its heading to the next heading of
any level. Where no heading is known (a kernel's history holds code only; a learner may delete a
heading) the section runs from the last cell that starts an answer to the exercise's check cell,
within what ran since another exercise was checked; if no cell starts one (the learner replaced
its first line), from the last cell that binds a name the check reads.

Each reader then takes what it needs from those cells: the course's tools the ``solution``-tagged
ones; the grader those that are not the course's own cells unchanged; the kernel (below) the
cells that bind names, a cell whose names a later one binds again being superseded.
"""

from __future__ import annotations

import ast
import functools
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..cell_environment import put_back_since
from .answer_screen import CourseNames, Screening, bindings, imported_packages, screen_answer

#: How the first line of an answer cell starts: the course's solution cells (Colab's form title),
#: student copies' stubs and the cells ``aurora grade`` assembles.
ANSWER_CELL_STARTS = ("# @title Solution", "# Your answer")
#: The tag of a course notebook's solution cells (what a student copy stubs).
SOLUTION_TAG = "solution"
#: An exercise label: ``07.1``, ``A1.2``, ``10.3``; checks with other labels (``00.demo``) are
#: checks but not exercises.
LABEL = re.compile(r"(?P<number>[0-9A-Z][0-9])\.(?P<exercise>[0-9]+)")
#: Any heading that names an exercise, well-formed or not (``### Exercise 09.x`` is malformed).
EXERCISE_HEADING = re.compile(
    r"^#{1,6}\s*Exercise\s+(?P<label>[^\s:]+)\s*:?\s*(?P<title>.*?)\s*$", re.M
)
#: A markdown heading of any level: the end of an exercise's section.
ANY_HEADING = re.compile(r"^#{1,6}\s", re.M)
#: How notebooks call the checks (``ah.check``); a bare ``check`` counts too.
_CHECK_OWNERS = frozenset({"ah", "aurora_helpers"})


class SourceCell(Protocol):
    """What the definition reads of a cell: a notebook file's cell, or a kernel's history entry."""

    @property
    def source(self) -> str: ...

    @property
    def kind(self) -> str: ...  # "code", "markdown" or "raw"

    @property
    def tags(self) -> tuple[str, ...]: ...


@dataclass(frozen=True)
class CodeCell:
    """A cell known only by its code: a kernel's history has no markdown and no tags."""

    source: str
    kind: str = "code"
    tags: tuple[str, ...] = ()


def is_label(text: str) -> bool:
    """Whether ``text`` is an exercise label (``07.1``, ``A1.2``), not a demo (``00.demo``)."""
    return LABEL.fullmatch(text) is not None


def parse_python(source: str) -> ast.Module | None:
    """A cell's Python, IPython's magics and shell lines turned into calls; None if it is not Python.

    A cell magic's body (``%%cluster``, ``%%time``) is read as the Python it usually is.
    """
    if source.lstrip().startswith("%%"):
        source = source.lstrip().split("\n", 1)[1] if "\n" in source.lstrip() else ""
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):  # ValueError: a null byte (Python 3.11)
        pass
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        return ast.parse(TransformerManager().transform_cell(source))
    except (ImportError, SyntaxError, ValueError):  # no IPython, or not Python with it either
        return None


@functools.lru_cache(maxsize=4096)
def check_labels(source: str) -> tuple[str, ...]:
    """The labels of the ``ah.check("label", ...)`` calls in a code cell, in order (a label given
    as ``exercise=`` too; a label that is not a string literal cannot be told, so it is left out)."""
    tree = parse_python(source)
    if tree is None:
        return ()
    found: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        named = (isinstance(func, ast.Name) and func.id == "check") or (
            isinstance(func, ast.Attribute)
            and func.attr == "check"
            and isinstance(func.value, ast.Name)
            and func.value.id in _CHECK_OWNERS
        )
        first = node.args[0] if node.args else None
        first = first or next((k.value for k in node.keywords if k.arg == "exercise"), None)
        if named and isinstance(first, ast.Constant) and isinstance(first.value, str):
            found.append((node.lineno, node.col_offset, first.value))
    return tuple(label for _, _, label in sorted(found))


def starts_answer(cell: SourceCell) -> bool:
    """Whether a cell is where an answer starts: a code cell tagged ``solution``, or one whose first
    line is an answer cell's (the tags do not reach the kernel; a learner's copy may lose them)."""
    if cell.kind != "code":
        return False
    first = next((line.strip() for line in cell.source.splitlines() if line.strip()), "")
    return SOLUTION_TAG in cell.tags or first.startswith(ANSWER_CELL_STARTS)


def _heads(cell: SourceCell) -> str | None:
    """The label whose section a markdown cell opens (its last exercise heading's, well-formed or
    not), ``""`` for a heading of another kind (which ends a section), else ``None``."""
    if cell.kind != "markdown":
        return None
    labels = [m.group("label") for m in EXERCISE_HEADING.finditer(cell.source)]
    if labels:
        return labels[-1]
    return "" if ANY_HEADING.search(cell.source) else None


def answer_cell_indexes(cells: Sequence[SourceCell], label: str) -> list[int]:
    """The indexes of the code cells that hold the answer to exercise ``label``, in order (see the
    module's doc): its heading's section where a heading names it, else from where the answer
    starts to the exercise's last check cell. Empty when no answer can be told apart."""
    if not is_label(label):
        return []
    headed: list[int] = []
    current: str | None = None
    has_heading = False
    for index, cell in enumerate(cells):
        opened = _heads(cell)
        if opened is not None:
            current = opened
            has_heading = has_heading or opened == label
        elif cell.kind == "code" and current == label:
            headed.append(index)
    if has_heading:
        return headed
    checked = [
        i for i, c in enumerate(cells) if c.kind == "code" and label in check_labels(c.source)
    ]
    if not checked:
        return []
    end = checked[-1]
    floor = max(
        (
            i + 1
            for i in range(end)
            if cells[i].kind == "code" and set(check_labels(cells[i].source)) - {label}
        ),
        default=0,
    )
    starts = [i for i in range(floor, end) if starts_answer(cells[i])]
    start = starts[-1] if starts else _binding_start(cells, floor, end)
    if start is None:
        return []
    return [i for i in range(start, end + 1) if cells[i].kind == "code"]


def _binding_start(cells: Sequence[SourceCell], floor: int, end: int) -> int | None:
    """Where an answer whose first line was replaced starts: the last code cell since ``floor``
    that binds a name the check cell ``end`` reads and no cell before ``floor`` bound."""
    code = [_read(c.source) if c.kind == "code" else _read("") for c in cells]
    tree = code[end].tree
    if tree is None:
        return None
    older = set().union(*(c.bound for c in code[:floor]))
    wanted = _free_names(tree) - older
    return next((i for i in range(end - 1, floor - 1, -1) if code[i].bound & wanted), None)


@dataclass(frozen=True)
class _Cell:
    """What the screen needs to know about one cell of history."""

    source: str
    tree: ast.Module | None
    starts_answer: bool
    checks: tuple[str, ...]  # labels of the check calls in it
    bound: frozenset[str] = frozenset()
    defined: frozenset[str] = frozenset()  # bound other than by an import


@functools.lru_cache(maxsize=4096)
def _read(source: str) -> _Cell:
    starts = starts_answer(CodeCell(source))
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):  # not Python (a magic, a null byte): the screen says so
        return _Cell(source, None, starts, check_labels(source))
    bound = bindings(tree)
    defined = frozenset(name for name, how in bound.items() if not how)
    return _Cell(source, tree, starts, check_labels(source), frozenset(bound), defined)


@dataclass(frozen=True)
class Answer:
    """The answer to one exercise as the kernel ran it: its cells, in order, and the names around
    them (what the rest of the notebook binds; what the answer's own cell binds)."""

    cells: list[str]
    course: CourseNames = field(default_factory=CourseNames)
    own: frozenset[str] = frozenset()
    exercise: str = ""
    start: int = 0  # where in the history the answer's first cell is

    def screen(self) -> Screening:
        return screen_answer(self.cells, self.course, self.own, self.exercise)


def live_cells(cells: Sequence[str]) -> list[str]:
    """The cells that still count: each binds a name (not only by an import) that no later cell
    binds again. A trial cell binds nothing; an answer cell edited and run again supersedes the
    version run before (the same in a kernel's history and in a notebook file). A cell of
    imports alone counts unless later cells import the same names again."""
    read = [_read(source) for source in cells]
    kept = []
    for i, cell in enumerate(read):
        if cell.tree is None:
            kept.append(cell.source)  # not Python: the screen says so
            continue
        later = frozenset().union(*(c.bound for c in read[i + 1 :]))
        names = {n for n, how in bindings(cell.tree).items() if not how}
        if (names - later) if names else (cell.bound - later):
            kept.append(cell.source)
    return kept


def _free_names(tree: ast.Module) -> set[str]:
    """Names a cell reads but does not bind: at its top level, or in its functions where they are
    not the function's own."""
    free: set[str] = set()

    def walk(node: ast.AST, local: frozenset[str]) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            local = local | _function_locals(node)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in local:
            free.add(node.id)
        for child in ast.iter_child_nodes(node):
            walk(child, local)

    walk(tree, frozenset())
    return free - set(bindings(tree))


def _function_locals(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> frozenset[str]:
    args = node.args
    names = {
        a.arg
        for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        if a
    }
    names |= {
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    return frozenset(names)


def find_answer(history: Sequence[str], label: str) -> Answer | None:
    """The answer to exercise ``label`` in a kernel's history (cell sources in the order they
    ran, the running check cell last), or ``None`` when none can be told apart."""
    if not history or not is_label(label):
        return None
    cells = [_read(source) for source in history]
    current = cells[-1]
    if label not in current.checks or current.tree is None:
        return None  # not the check cell running now: nothing to screen
    section = answer_cell_indexes([CodeCell(source) for source in history], label)
    if not section or cells[section[0]].tree is None:
        return None
    start = section[0]
    between = cells[start + 1 : -1]
    names = set(cells[start].bound)
    pieces = [cells[start].source]
    checked = False
    for cell in between:
        if cell.checks:
            checked = True
        elif cell.tree is not None and (not checked or cell.bound & names):
            pieces.append(cell.source)
            names |= cell.bound
    in_check = [
        node
        for node in current.tree.body
        if set(bindings(ast.Module(body=[node], type_ignores=[]))) & names
    ]
    if in_check:
        segments = [ast.get_source_segment(current.source, node) or "" for node in in_check]
        pieces.append("\n".join(segments))
    # Names answers define (not import: an answer's `import os` does not make the course's
    # import cell an earlier answer, which would hide the course's imports from the screen).
    answer_names = set().union(*(c.defined for c in cells if c.starts_answer), cells[start].defined)
    bound: dict[str, str] = {}
    imports: set[str] = set()
    for cell in cells[:start]:
        if cell.tree is None or cell.starts_answer:
            continue
        if cell.defined & answer_names:
            continue  # an earlier version of some exercise's answer, not the course's code
        imports |= imported_packages(cell.tree)
        for name, description in bindings(cell.tree).items():
            bound[name] = description if bound.get(name, description) == description else ""
    rest = [n for n in current.tree.body if n not in in_check]
    for name, description in bindings(ast.Module(body=rest, type_ignores=[])).items():
        bound.setdefault(name, description)
    course = CourseNames(bound=bound, imports=frozenset(imports))
    own = frozenset(cells[start].bound - set(bound))
    return Answer(live_cells(pieces), course, own, label, start)


def kernel_history() -> list[str] | None:
    """The sources of the cells this IPython kernel ran, in order (``None`` outside IPython, or in
    a shell that keeps no input history)."""
    try:
        from IPython import get_ipython
    except ImportError:  # plain Python: no kernel, no history to screen
        return None
    shell = get_ipython()
    manager = getattr(shell, "history_manager", None) if shell is not None else None
    if manager is None:
        return None
    return [str(s) for s in manager.input_hist_raw[1:]]


def answer_problems(label: str) -> list[str]:
    """What the learner's answer to ``label``, as this kernel ran it, does that an answer may not
    do (empty: nothing, or the answer cannot be told apart in this kernel's history).

    What the answer's cells changed in JAX's configuration or the environment variables is put
    back first, and named (:mod:`aurora_helpers.cell_environment`): the check and the cells
    after it run in the course's environment, whatever the answer did.

    A cell nested too deeply for Python's parser cannot be screened here; the check goes on, says
    so in a warning, and ``aurora grade`` still screens the file. Any other failure is a bug in the
    screen and is raised, not hidden.
    """
    history = kernel_history()
    if not history:
        return []
    try:
        answer = find_answer(history, label)
        if answer is None:
            return []
        # History entry k ran as cell k + 1 (IPython counts from 1).
        return answer.screen().problems + put_back_since(answer.start + 1)
    except RecursionError:
        warnings.warn(
            f"{label}: the answer is nested too deeply to screen in the notebook; "
            "aurora grade screens it when graded",
            stacklevel=2,
        )
        return []
