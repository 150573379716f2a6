"""Find answers that survive in a student copy: a hint, a docstring, a decorator or a markdown
cell that pastes what the hidden solution does.

What counts as an answer is defined against the course notebook itself, so that ordinary code
(the lesson's own examples) never counts:

- **pieces** of a solution: every simple statement (imports aside), call (except a tool applied
  to one variable, ``jax.vmap(f)``, which names the tool), keyword argument, arithmetic,
  comparison, subscript, comprehension or lambda inside a solution function's
  decorators and body (not its signature or docstring, which state the task and stay in the
  stub) or inside the value of a solution assignment. A piece is *distinctive* when at least
  ``MIN_CHARS`` long (whitespace removed) and when the same expression (compared as Python, not
  as text) occurs in no other code of the notebook: not in the lesson's cells, not in the check
  cells. Strings and comments do not count as code, so a hint that quotes the answer does not
  make it ordinary.
- **names** a solution uses (variables, attributes, keyword names) that appear nowhere else in
  the notebook (no cell outside the solutions, no docstring of the solution): the stub keeps
  function names, parameters and imported names, so these can only arrive through a leak
  (searched in sources and outputs; metadata is searched for pieces only).

A distinctive piece or name found anywhere in the student copy (a cell's source, outputs or
metadata; whitespace and quote style ignored) is a leak. Cells tagged ``instructor`` are removed
from student copies, so they count neither as "elsewhere" nor as places to search.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .course_notebook import CourseNotebook, NotebookNode, is_instructor, is_solution, parse_python
from .student import STUB_TEXT

#: Shorter pieces (``x * k``, ``a[0]``) are too generic to call a pasted answer.
MIN_CHARS = 8

_PIECES = (
    ast.Call,
    ast.keyword,
    ast.BinOp,
    ast.BoolOp,
    ast.Compare,
    ast.Subscript,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.IfExp,
    ast.Dict,
)
_COMPOUND = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.If,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.Match,
)


@dataclass(frozen=True)
class Leak:
    """One distinctive piece of a solution found in a student copy."""

    exercise: str  # "02.2", or "solution cell 14" when no check names it
    kind: str  # "code" (a piece of the solution) or "name"
    answer: str  # the piece as the solution writes it
    where: str  # "markdown cell 12", "code cell 15 (the stub)", ...
    context: str  # the student copy's text around it

    def __str__(self) -> str:
        return (
            f"exercise {self.exercise}: {'its name' if self.kind == 'name' else 'its code'} "
            f"`{self.answer}` appears in {self.where}: ...{self.context}..."
        )


def normalise(text: str) -> str:
    """``text`` with one quote style and whitespace only between two word characters (one space
    there), so that neither spacing nor quoting hides a match and ``return x`` stays two words."""
    text = re.sub(r"(?<=\w)\s+(?=\w)", " ", text.replace('"', "'"))
    return re.sub(r"(?<!\w)\s+|\s+(?!\w)", "", text)


def _occurs(needle: str, haystack: str) -> bool:
    """Whether normalised ``needle`` occurs in normalised ``haystack`` as a whole: ``tp`` is not in
    ``tp_size``, ``shape[0]`` is not in ``x.shape[0]``."""
    before = r"(?<![\w.])" if needle[:1].isalnum() or needle[:1] == "_" else ""
    after = r"(?!\w)" if needle[-1:].isalnum() or needle[-1:] == "_" else ""
    return re.search(before + re.escape(needle) + after, haystack) is not None


def _names_a_tool(node: ast.AST) -> bool:
    """``jax.vmap(f)``, ``jnp.ones_like(a)``: a tool applied to one variable names the tool, as a
    task or a lesson may; the answer is how it is used (its statement, its other arguments)."""
    return (
        isinstance(node, ast.Call)
        and not node.keywords
        and len(node.args) <= 1
        and all(isinstance(a, (ast.Name, ast.Constant)) for a in node.args)
        and all(isinstance(n, (ast.Name, ast.Attribute, ast.Load)) for n in ast.walk(node.func))
    )


def _piece_key(node: ast.AST) -> str:
    return normalise(ast.unparse(node))


def _docstring(node: ast.AST) -> str:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
        return ast.get_docstring(node, clean=False) or ""
    return ""


def _answer_roots(tree: ast.Module) -> Iterator[ast.AST]:
    """The parts of a solution cell that the stub removes: decorators, bodies, assigned values."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from node.decorator_list
            body = node.body[1:] if _docstring(node) else node.body
            yield from body
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            yield node.value


def _kept_names(tree: ast.Module) -> set[str]:
    """Names the stub keeps: functions, parameters, assigned names, imports, docstring words."""
    kept = set(re.findall(r"\w+", STUB_TEXT))  # what every stub says
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            kept.add(node.name)
            kept.update(a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg))
            kept.update(re.findall(r"\w+", _docstring(node)))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            kept.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                kept.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return kept


def _names(node: ast.AST) -> set[str]:
    found = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            found.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            found.add(sub.attr)
        elif isinstance(sub, ast.keyword) and sub.arg:
            found.add(sub.arg)
    return found


@dataclass(frozen=True)
class _Answer:
    exercise: str
    pieces: dict[str, str]  # normalised -> as written in the solution
    names: frozenset[str]


def _ordinary_code(cells: list[NotebookNode]) -> set[str]:
    """Every expression and statement of the notebook's code outside solutions, normalised."""
    keys: set[str] = set()
    for cell in cells:
        if cell.get("cell_type") != "code" or is_solution(cell) or is_instructor(cell):
            continue
        tree = parse_python(cell.source)
        if tree is not None:
            keys.update(
                _piece_key(n)
                for n in ast.walk(tree)
                if isinstance(n, (ast.expr, ast.stmt, ast.keyword))
            )
    return keys


def _ordinary_words(cells: list[NotebookNode]) -> set[str]:
    return {
        word
        for cell in cells
        if not is_solution(cell) and not is_instructor(cell)
        for word in re.findall(r"\w+", cell.source)
    }


def solution_answers(nb: NotebookNode) -> list[_Answer]:
    """What each solution cell of the course notebook ``nb`` gives away, if pasted elsewhere."""
    notebook = CourseNotebook.from_nb(nb)
    cells = list(nb.cells)
    ordinary, words = _ordinary_code(cells), _ordinary_words(cells)
    answers = []
    for index, cell in enumerate(cells):
        if not is_solution(cell) or is_instructor(cell):
            continue
        tree = parse_python(cell.source)
        if tree is None:
            continue
        pieces: dict[str, str] = {}
        names: set[str] = set()
        for root in _answer_roots(tree):
            names |= _names(root)
            for node in ast.walk(root):
                simple = isinstance(node, ast.stmt) and not isinstance(
                    node,
                    (*_COMPOUND, ast.Import, ast.ImportFrom),  # imports name tools only
                )
                if not (simple or isinstance(node, _PIECES)) or _names_a_tool(node):
                    continue
                key = _piece_key(node)
                if len(key) >= MIN_CHARS and key not in ordinary:
                    written = ast.get_source_segment(cell.source, node) or ast.unparse(node)
                    pieces.setdefault(key, " ".join(written.split()))
                    if written and normalise(written) != key:
                        pieces.setdefault(normalise(written), " ".join(written.split()))
        distinctive_names = names - words - _kept_names(tree)
        exercise = notebook.exercise_of(index)
        label = exercise.label if exercise else f"solution cell {index}"
        answers.append(_Answer(label, pieces, frozenset(distinctive_names)))
    return answers


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _places(nb: NotebookNode) -> Iterator[tuple[str, str]]:
    """``(where, text)`` for every text of the student copy: sources, outputs, metadata."""
    yield "the notebook's metadata", json.dumps(nb.metadata, ensure_ascii=False)
    for index, cell in enumerate(nb.cells):
        label = f"{cell.get('cell_type', 'a')} cell {index}"
        if is_solution(cell):
            label += " (the stub)"
        yield label, cell.get("source", "")
        outputs = "\n".join(_strings(cell.get("outputs", [])))
        if outputs:
            yield f"{label}, outputs", outputs
        meta = "\n".join(_strings(dict(cell.get("metadata", {}))))
        if meta:
            yield f"{label}, metadata", meta


def _context(text: str, needle_normalised: str, width: int = 40) -> str:
    """The stretch of ``text`` where ``needle_normalised`` occurs, with some text around it."""
    flat = " ".join(text.split())
    # Find the needle's first non-space character in the readable text by counting them.
    target = re.sub(r"\s", "", needle_normalised)
    at = re.sub(r"\s", "", flat.replace('"', "'")).find(target)
    if at < 0:
        return flat[: width * 2]
    start = [i for i, ch in enumerate(flat) if not ch.isspace()][at]
    return flat[max(0, start - width) : start + len(needle_normalised) + width]


def _leaks(answers: list[_Answer], student: NotebookNode) -> list[Leak]:
    found: list[Leak] = []
    for where, text in _places(student):
        squeezed = normalise(text)
        words = set(re.findall(r"\w+", text))
        for answer in answers:
            here = [key for key in answer.pieces if _occurs(key, squeezed)]
            # Report the largest pieces only: a whole line, not also each call inside it.
            here = [k for k in here if not any(k != o and k in o for o in here)]
            for key in sorted(here):
                found.append(
                    Leak(answer.exercise, "code", answer.pieces[key], where, _context(text, key))
                )
            if where.endswith("metadata"):
                continue  # metadata holds the kernel's and the tags' words, not prose or code
            for name in sorted(answer.names & words):
                found.append(Leak(answer.exercise, "name", name, where, _context(text, name)))
    return found


def find_leaks(original: NotebookNode | Path, student: NotebookNode | Path) -> list[Leak]:
    """The leaks of the course notebook ``original`` into its student copy ``student``.

    Each argument is an nbformat notebook or the path of one.
    """
    import nbformat

    if isinstance(original, (str, Path)):
        original = nbformat.read(original, as_version=4)
    if isinstance(student, (str, Path)):
        student = nbformat.read(student, as_version=4)
    return _leaks(solution_answers(original), student)
