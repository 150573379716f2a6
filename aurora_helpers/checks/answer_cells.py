"""The learner's answer cells as the running kernel saw them, so that ``ah.check`` screens them with
the rules ``aurora grade`` applies (:mod:`aurora_helpers.checks.answer_screen`) and the notebook and the
grader never disagree about an answer.

The kernel knows no cell tags, only the code it ran, in order (IPython's input history). An
exercise's answer there is what ran since its answer cell: the last cell before the check that
starts like one (``# @title Solution`` in the course's notebooks, ``# Your answer`` in student
copies and in what ``aurora grade`` runs), the cells run after it (new cells written under the
stub), and in the check cell itself any statement that binds the answer's names. As in
``aurora grade``, only cells that bind a name count, and a cell whose names a later one binds
again is superseded. Without such a start (the learner deleted the first line) nothing is
screened here; ``aurora grade`` still screens the file.

Everything here is a guess about history that must never break a check: any failure means "no
answer cells found".
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from .answer_screen import CourseNames, Screening, bindings, imported_packages, screen_answer

#: How the first line of an answer cell starts: the course's solution cells (Colab's form title),
#: student copies' stubs and the cells ``aurora grade`` assembles.
ANSWER_CELL_STARTS = ("# @title Solution", "# Your answer")
#: An exercise label (``06.1``, ``A1.2``); checks with other labels (``00.demo``) are not screened.
_LABEL = re.compile(r"[0-9A-Z][0-9]\.[0-9]+")
_CHECK_OWNERS = frozenset({"ah", "aurora_helpers"})


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
    first = next((line.strip() for line in source.splitlines() if line.strip()), "")
    starts = first.startswith(ANSWER_CELL_STARTS)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return _Cell(source, None, starts, ())
    bound = bindings(tree)
    defined = frozenset(name for name, how in bound.items() if not how)
    return _Cell(source, tree, starts, tuple(_check_labels(tree)), frozenset(bound), defined)


def _check_labels(tree: ast.AST) -> list[str]:
    """The literal labels of ``ah.check("label", ...)`` (or ``check(...)``) calls."""
    labels = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func, first = node.func, node.args[0]
        named = (isinstance(func, ast.Name) and func.id == "check") or (
            isinstance(func, ast.Attribute)
            and func.attr == "check"
            and isinstance(func.value, ast.Name)
            and func.value.id in _CHECK_OWNERS
        )
        if named and isinstance(first, ast.Constant) and isinstance(first.value, str):
            labels.append(first.value)
    return labels


@dataclass(frozen=True)
class Answer:
    """The answer to one exercise as the kernel ran it: its cells, in order, and the names around
    them (what the rest of the notebook binds; what the answer's own cell binds)."""

    cells: list[str]
    course: CourseNames = field(default_factory=CourseNames)
    own: frozenset[str] = frozenset()

    def screen(self) -> Screening:
        return screen_answer(self.cells, self.course, self.own)


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


def _start(cells: list[_Cell], label: str) -> int | None:
    """Where the answer to ``label`` starts: the last cell that starts like an answer since
    another exercise was last checked; else (its first line was deleted) the last cell to bind
    a name the check reads that no cell bound before that other check."""
    k = len(cells) - 1
    floor = max((i + 1 for i in range(k) if set(cells[i].checks) - {label}), default=0)
    starts = [i for i in range(floor, k) if cells[i].starts_answer]
    if starts:
        return starts[-1]
    tree = cells[k].tree
    assert tree is not None
    older = set().union(*(c.bound for c in cells[:floor]))
    wanted = _free_names(tree) - older
    return next((i for i in range(k - 1, floor - 1, -1) if cells[i].bound & wanted), None)


def find_answer(history: Sequence[str], label: str) -> Answer | None:
    """The answer to exercise ``label`` in a kernel's history (cell sources in the order they
    ran, the running check cell last), or ``None`` when none can be told apart."""
    if not history or not _LABEL.fullmatch(label):
        return None
    cells = [_read(source) for source in history]
    current = cells[-1]
    if label not in current.checks or current.tree is None:
        return None
    start = _start(cells, label)
    if start is None or cells[start].tree is None:
        return None
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
    return Answer(live_cells(pieces), course, frozenset(cells[start].bound - set(bound)))


def kernel_history() -> list[str] | None:
    """The sources of the cells this IPython kernel ran, in order (``None`` outside IPython)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    if shell is None:
        return None
    return [str(s) for s in shell.history_manager.input_hist_raw[1:]]


def answer_problems(label: str) -> list[str]:
    """What the learner's answer to ``label``, as this kernel ran it, does that an answer may not
    do (empty: nothing, or the answer cannot be told apart in this kernel's history)."""
    try:
        history = kernel_history()
        answer = find_answer(history, label) if history else None
        return answer.screen().problems if answer is not None else []
    except Exception:  # a guess about history must never break a check
        return []
