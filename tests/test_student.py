import os

import nbformat
import pytest

from aurora_helpers.course import find_notebooks
from aurora_helpers.runner import execution_problems
from aurora_helpers.student import (
    SolutionCellError,
    is_solution,
    make_student_notebook,
    stub_source,
    write_student_copies,
)

from .conftest import NOTEBOOKS

SOLUTION = '''import numpy as np
from math import pi

def area(r):
    """Area of a circle of radius r."""
    return pi * r ** 2

@staticmethod
def helper(x, *, k=2):
    y = x * k
    return y

answer: int = 3
a, b = 1, 2
'''


def test_stub_source_keeps_signatures_docstrings_and_imports():
    stub = stub_source(SOLUTION)
    assert "import numpy as np" in stub and "from math import pi" in stub
    assert (
        'def area(r):\n    """Area of a circle of radius r."""\n    raise NotImplementedError'
        in stub
    )
    assert (
        "@staticmethod\ndef helper(x, *, k=2):\n    raise NotImplementedError('your answer here')"
        in stub
    )
    assert "answer: int = ..." in stub and "a, b = (..., ...)" in stub
    assert "pi * r" not in stub and "x * k" not in stub
    namespace: dict = {}
    exec(stub, namespace)  # the stub runs
    with pytest.raises(NotImplementedError):
        namespace["area"](1.0)
    assert namespace["answer"] is Ellipsis


@pytest.mark.parametrize(
    "source", ["print('hi')", "for i in range(3):\n    pass", "x += 1", "", "def f(:"]
)
def test_unstubbable_cells_are_rejected(source):
    with pytest.raises((SolutionCellError, SyntaxError)):
        stub_source(source)


def _notebook():
    nb = nbformat.v4.new_notebook()
    solution = nbformat.v4.new_code_cell(
        "x = 41 + 1", metadata={"tags": ["solution"], "jupyter": {"source_hidden": True}}
    )
    nb.cells = [
        nbformat.v4.new_markdown_cell("# t"),
        solution,
        nbformat.v4.new_code_cell("print(x)"),
    ]
    return nb


def test_student_notebook_stubs_and_shows_solutions_only():
    nb = _notebook()
    student = make_student_notebook(nb)
    assert student.cells[1].source.endswith("x = ...\n")
    assert "source_hidden" not in student.cells[1].metadata.get("jupyter", {})
    assert (
        student.cells[2].source == "print(x)" and nb.cells[1].source == "x = 41 + 1"
    )  # original untouched
    assert is_solution(student.cells[1]) and not is_solution(student.cells[2])


def test_bad_solution_cell_names_the_cell():
    nb = _notebook()
    nb.cells[1].source = "print(1)"
    with pytest.raises(SolutionCellError, match="cell 1: line 1"):
        make_student_notebook(nb)


@pytest.mark.slow
@pytest.mark.parametrize("path", find_notebooks(NOTEBOOKS), ids=lambda p: p.stem)
def test_student_copy_runs_top_to_bottom(path, tmp_path, monkeypatch):
    """A student copy executes; every check reports "not solved yet"; tagged cells still raise."""
    from nbclient import NotebookClient

    monkeypatch.setenv("AURORA_STRICT", "1")
    monkeypatch.setenv("AURORA_DEVICES", os.environ.get("AURORA_DEVICES", "8"))
    (copy,) = write_student_copies([path], tmp_path)
    nb = nbformat.read(copy, as_version=4)
    NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    ).execute()
    assert execution_problems(nb) == []
    texts = "".join(
        str(o.get("data", {}).get("text/plain", "")) + str(o.get("text", ""))
        for c in nb.cells
        for o in c.get("outputs", [])
    )
    n_solutions = sum(is_solution(c) for c in nb.cells)
    assert texts.count("not solved yet") == n_solutions


def test_student_command_writes_stubbed_copies(tmp_path, capsys):
    from aurora_helpers.cli import main

    assert (
        main(["student", "--notebooks", str(NOTEBOOKS), "--out", str(tmp_path), "--only", "00"])
        == 0
    )
    written = tmp_path / "00_welcome.ipynb"
    assert str(written) in capsys.readouterr().out
    cells = [c for c in nbformat.read(written, as_version=4).cells if is_solution(c)]
    assert cells and all("NotImplementedError" in c.source or "= ..." in c.source for c in cells)
