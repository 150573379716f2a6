"""Student copies of notebooks: every solution replaced by a stub that still runs.

A solution cell is a code cell tagged ``solution``. It may hold imports (kept), function
definitions (body replaced by ``raise NotImplementedError``; the docstring stays) and assignments
(value replaced by ``...``). Anything else is rejected, so that a stubbed cell always executes and
the check after it can report "not solved yet".
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterable
from pathlib import Path
from typing import Any

SOLUTION_TAG = "solution"
STUB_MESSAGE = "your answer here"
_HEADER = "# Your answer: replace the stubs below, then run the check cell.\n"


class SolutionCellError(ValueError):
    """A solution cell holds a statement that cannot be turned into a stub."""


def _stub_value(target: ast.expr) -> ast.expr:
    """``...`` for a name, ``..., ...`` for ``a, b = ...`` so that the stub still unpacks."""
    if isinstance(target, (ast.Tuple, ast.List)):
        if any(isinstance(elt, ast.Starred) for elt in target.elts):
            raise SolutionCellError(
                "starred assignment targets cannot be stubbed; assign names one by one"
            )
        return ast.Tuple([_stub_value(elt) for elt in target.elts], ast.Load())
    return ast.Constant(...)


def _stub_statement(node: ast.stmt) -> ast.stmt:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return node
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        stub = copy.deepcopy(node)
        body: list[ast.stmt] = []
        first = node.body[0]
        if (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        ):
            body.append(first)  # keep the docstring: it states the task
        body.append(
            ast.Raise(
                exc=ast.Call(
                    ast.Name("NotImplementedError", ast.Load()), [ast.Constant(STUB_MESSAGE)], []
                )
            )
        )
        stub.body = body
        return stub
    if isinstance(node, ast.Assign):
        return ast.Assign(
            targets=node.targets, value=_stub_value(node.targets[-1]), lineno=node.lineno
        )
    if isinstance(node, ast.AnnAssign) and node.value is not None:
        return ast.AnnAssign(
            target=node.target,
            annotation=node.annotation,
            value=ast.Constant(...),
            simple=node.simple,
        )
    raise SolutionCellError(
        f"line {node.lineno}: a solution cell may hold only imports, function definitions and "
        f"assignments, found {type(node).__name__}. Move other code to the check cell."
    )


def stub_source(source: str) -> str:
    """The student version of one solution cell's source."""
    tree = ast.parse(source)
    if not tree.body:
        raise SolutionCellError("empty solution cell")
    stubs = [ast.unparse(ast.fix_missing_locations(_stub_statement(node))) for node in tree.body]
    return _HEADER + "\n\n".join(stubs) + "\n"


def is_solution(cell: Any) -> bool:
    return cell.get("cell_type") == "code" and SOLUTION_TAG in cell.get("metadata", {}).get(
        "tags", []
    )


def make_student_notebook(nb: Any) -> Any:
    """A deep copy of the nbformat notebook ``nb`` with every solution cell stubbed and shown."""
    student = copy.deepcopy(nb)
    for index, cell in enumerate(student.cells):
        if not is_solution(cell):
            continue
        try:
            cell.source = stub_source(cell.source)
        except (SolutionCellError, SyntaxError) as err:
            raise SolutionCellError(f"cell {index}: {err}") from err
        cell.metadata.get("jupyter", {}).pop("source_hidden", None)
        cell.outputs = []
        cell.execution_count = None
    return student


def write_student_copies(notebooks: Iterable[Path], out_dir: Path) -> list[Path]:
    """Write a student copy of each notebook into ``out_dir``; returns the paths written."""
    import nbformat

    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        target = out_dir / path.name
        nbformat.write(make_student_notebook(nb), target)
        written.append(target)
    return written
