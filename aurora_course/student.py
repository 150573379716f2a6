"""Student copies of notebooks: every solution replaced by a stub that still runs.

A solution cell is a code cell tagged ``solution``
(:data:`aurora_helpers.checks.answer_cells.SOLUTION_TAG`: where an exercise's answer starts, for the
notebook's check and the grader alike; its stub's first line, ``# Your answer``, tells the kernel
so where tags do not reach). It may hold imports (kept), function definitions (decorators dropped,
since a decorator can be the answer; body replaced by ``raise NotImplementedError``; the signature
and the docstring stay) and assignments (value replaced by ``...``). Anything else is rejected,
so that a stubbed cell always executes and the check after it can report "not solved yet". A
student copy also loses every cell tagged
``instructor``, every output, and the Colab form view of its stubs (``cellView`` and the
``# @title`` line, which are comments and so vanish with the solution), so learners see the stub.
Check cells (:func:`~aurora_course.course_notebook.check_cell_indexes`) keep their source but are
stored collapsed (``jupyter.source_hidden`` for JupyterLab, ``cellView: form`` for Colab, which
shows a "Show code" button), so the check code stays out of the learner's way.
Nothing is ever written into the source notebooks' folder (:func:`check_output_folder`).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterable
from pathlib import Path

from aurora_helpers.checks.answer_cells import ANSWER_CELL_STARTS

from .course_notebook import NotebookNode, check_cell_indexes, is_instructor, is_solution

STUB_MESSAGE = "your answer here"
#: A stub's first line: where the kernel sees an answer start (``ANSWER_CELL_STARTS``).
_HEADER = f"{ANSWER_CELL_STARTS[-1]}: replace the stubs below, then run the check cell.\n"
#: Words every stub holds, whatever the solution was.
STUB_TEXT = f"{_HEADER} raise NotImplementedError({STUB_MESSAGE!r})"


class SolutionCellError(ValueError):
    """A solution cell holds a statement that cannot be turned into a stub."""


class StudentCopyError(ValueError):
    """Student copies cannot be written where asked (into the sources, or from no notebooks)."""


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
        stub.decorator_list = []  # a decorator can be the answer: @partial(jax.jit, static_...)
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


def _show(cell: NotebookNode) -> None:
    """Undo what hides a solution: JupyterLab's ``source_hidden`` and Colab's form view."""
    jupyter = cell.metadata.get("jupyter", {})
    jupyter.pop("source_hidden", None)
    if "jupyter" in cell.metadata and not jupyter:
        del cell.metadata["jupyter"]
    cell.metadata.pop("cellView", None)


def make_student_notebook(nb: NotebookNode) -> NotebookNode:
    """A deep copy of the nbformat notebook ``nb`` with every solution cell stubbed and shown,
    every ``instructor`` cell removed, every check cell collapsed and every output cleared."""
    student = copy.deepcopy(nb)
    checks = [student.cells[i] for i in check_cell_indexes(student)]
    for cell in checks:  # collapsed in JupyterLab, and in Colab's form view ("Show code")
        cell.setdefault("metadata", {}).setdefault("jupyter", {})["source_hidden"] = True
        cell.metadata["cellView"] = "form"
    student.cells = [cell for cell in student.cells if not is_instructor(cell)]
    # A student copy is not half of a jupytext pair: `jupytext --sync` must not pair it.
    student.metadata.pop("jupytext", None)
    for index, cell in enumerate(nb.cells):
        if is_solution(cell) and not is_instructor(cell):
            try:
                stub_source(cell.source)
            except (SolutionCellError, SyntaxError) as err:
                raise SolutionCellError(f"cell {index}: {err}") from err
    for cell in student.cells:
        if cell.get("cell_type") == "code":
            cell.outputs = []
            cell.execution_count = None
        if is_solution(cell):
            cell.source = stub_source(cell.source)
            _show(cell)
    return student


def check_output_folder(out_dir: Path, notebooks_dir: Path) -> None:
    """Refuse an output folder that is, or is inside, the source notebooks' folder.

    Student copies written there would overwrite the solutions, and a later ``make sync`` would
    carry the stubs into the ``.md`` twins. Symbolic links are resolved first.
    """
    out, source = out_dir.resolve(), notebooks_dir.resolve()
    if out == source or source in out.parents:
        raise StudentCopyError(
            f"refusing to write student copies into {out_dir}: it is "
            f"{'the' if out == source else 'inside the'} source notebooks folder {notebooks_dir}, "
            "and the stubs would replace the solutions. Choose another --out, e.g. build/student"
        )


def write_student_copies(
    notebooks: Iterable[Path], out_dir: Path, *, notebooks_dir: Path | None = None
) -> list[Path]:
    """Write a student copy of each notebook into ``out_dir``; returns the paths written.

    Raises:
        StudentCopyError: ``out_dir`` is, or is inside, ``notebooks_dir``; is the folder of one of
            the notebooks (the copy would overwrite it); or is not a folder.
    """
    import nbformat

    notebooks = list(notebooks)
    if notebooks_dir is not None:
        check_output_folder(out_dir, notebooks_dir)
    for folder in {p.parent.resolve() for p in notebooks}:
        if out_dir.resolve() == folder:
            check_output_folder(out_dir, folder)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError) as err:
        raise StudentCopyError(f"cannot write student copies into {out_dir}: {err}") from err
    written = []
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        target = out_dir / path.name
        nbformat.write(make_student_notebook(nb), target)
        written.append(target)
    return written
