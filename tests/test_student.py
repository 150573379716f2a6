"""Student copies: stubs that run, no answer, no instructor note, never written over the course.

That every course notebook's student copy runs top to bottom is checked by the notebook runs
(``tests/test_notebook_runs.py``); here, the copies themselves."""

import nbformat
import pytest

from aurora_course.course_notebook import is_solution
from aurora_course.student import (
    SolutionCellError,
    StudentCopyError,
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
    # Decorators go with the body: a decorator can be the answer (static_argnames, donation).
    assert "def helper(x, *, k=2):\n    raise NotImplementedError('your answer here')" in stub
    assert "@" not in stub
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


def test_student_command_writes_stubbed_copies(tmp_path, capsys):
    from aurora_course.cli import main

    assert (
        main(["student", "--notebooks", str(NOTEBOOKS), "--out", str(tmp_path), "--only", "00"])
        == 0
    )
    written = tmp_path / "00_welcome.ipynb"
    assert str(written) in capsys.readouterr().out
    cells = [c for c in nbformat.read(written, as_version=4).cells if is_solution(c)]
    assert cells and all("NotImplementedError" in c.source or "= ..." in c.source for c in cells)


def _classroom_notebook():
    """A course-like notebook: a hidden Colab-form solution, an instructor note, stale outputs."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["jupytext"] = {"formats": "ipynb,md:myst"}
    solution = nbformat.v4.new_code_cell(
        "# @title Solution (double-click to show)\n"
        '@partial(jax.jit, static_argnames="n")\n'
        "def pad_to(x, n):\n"
        '    """Zero-pad x to n elements."""\n'
        "    return jnp.pad(x, (0, n - x.shape[0]))\n",
        metadata={"tags": ["solution"], "jupyter": {"source_hidden": True}, "cellView": "form"},
    )
    solution.outputs = [nbformat.v4.new_output("stream", text="traced with n=8\n")]
    solution.execution_count = 3
    lesson = nbformat.v4.new_code_cell("y = 2 * x", execution_count=2)
    lesson.outputs = [nbformat.v4.new_output("execute_result", data={"text/plain": "42"})]
    nb.cells = [
        nbformat.v4.new_markdown_cell("# 99 · Test"),
        lesson,
        nbformat.v4.new_markdown_cell(
            "**Instructor note: timing.** Learners forget `static_argnames`.",
            metadata={"tags": ["instructor"]},
        ),
        nbformat.v4.new_markdown_cell("### Exercise 99.1: pad"),
        solution,
        nbformat.v4.new_code_cell('ah.check("99.1", pad_to, args=(x, 8))'),
    ]
    return nb


def test_student_copy_keeps_no_answer_no_note_and_no_output():
    student = make_student_notebook(_classroom_notebook())
    assert [c.cell_type for c in student.cells] == ["markdown", "code", "markdown", "code", "code"]
    assert not any("Instructor note" in c.source for c in student.cells)
    stub = student.cells[3]
    assert is_solution(stub)
    assert stub.source.endswith(
        'def pad_to(x, n):\n    """Zero-pad x to n elements."""\n'
        "    raise NotImplementedError('your answer here')\n"
    )
    for gone in ("@title", "static_argnames", "partial", "jnp.pad"):
        assert gone not in stub.source, gone
    assert stub.metadata == {"tags": ["solution"]}  # no cellView, no source_hidden: shown
    code = [c for c in student.cells if c.cell_type == "code"]
    assert all(c.outputs == [] and c.execution_count is None for c in code)
    assert "jupytext" not in student.metadata  # not half of a pair: `make sync` cannot touch it


def test_an_instructor_cell_that_is_a_solution_is_dropped_not_checked():
    nb = _classroom_notebook()
    nb.cells.append(
        nbformat.v4.new_code_cell("print('answers')", metadata={"tags": ["solution", "instructor"]})
    )
    assert len(make_student_notebook(nb).cells) == 5


def _course(tmp_path):
    """A folder of course notebooks (a real one from the course) and a place for copies."""
    notebooks = tmp_path / "course" / "notebooks"
    notebooks.mkdir(parents=True)
    nbformat.write(_classroom_notebook(), notebooks / "99_test.ipynb")
    return notebooks


@pytest.mark.parametrize("inside", ["", "student", "a/b"])
def test_refuses_to_write_into_the_source_notebooks(tmp_path, inside, capsys):
    from aurora_course.cli import main

    notebooks = _course(tmp_path)
    before = (notebooks / "99_test.ipynb").read_bytes()
    out = notebooks / inside if inside else notebooks
    assert main(["student", "--notebooks", str(notebooks), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "refusing to write student copies into" in err and "source notebooks folder" in err
    assert (notebooks / "99_test.ipynb").read_bytes() == before
    assert sorted(p.name for p in notebooks.iterdir()) == ["99_test.ipynb"]


def test_refuses_a_symlink_that_leads_into_the_source_notebooks(tmp_path, capsys):
    from aurora_course.cli import main

    notebooks = _course(tmp_path)
    (tmp_path / "looks-elsewhere").symlink_to(notebooks)
    out = tmp_path / "looks-elsewhere" / "student"
    assert main(["student", "--notebooks", str(notebooks), "--out", str(out)]) == 2
    assert "source notebooks folder" in capsys.readouterr().err
    assert not (notebooks / "student").exists()
    with pytest.raises(StudentCopyError, match="the source notebooks folder"):
        write_student_copies([notebooks / "99_test.ipynb"], tmp_path / "looks-elsewhere")


def test_outside_the_repository_it_fails_clearly(tmp_path, monkeypatch, capsys):
    """No ./notebooks and helpers not installed from a checkout: an error, not silence."""
    from aurora_course import course
    from aurora_course.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(course, "__file__", str(tmp_path / "site" / "aurora_course" / "course.py"))
    assert main(["student", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "no course notebooks found" in err and "--notebooks" in err
    assert not (tmp_path / "out").exists()
    assert main(["student", "--notebooks", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    assert f"no course notebooks (NN_name.ipynb) in {tmp_path}" in capsys.readouterr().err


def test_elsewhere_it_uses_the_checkout_the_helpers_came_from(tmp_path, monkeypatch, capsys):
    from aurora_course import course
    from aurora_course.cli import main

    notebooks = _course(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(course, "__file__", str(notebooks.parent / "aurora_helpers" / "course.py"))
    assert main(["student", "--out", "copies"]) == 0
    assert (tmp_path / "copies" / "99_test.ipynb").is_file()


def test_check_cells_are_stored_collapsed_with_their_source():
    nb = _classroom_notebook()
    teaching = nbformat.v4.new_code_cell("y = x * 2\ny")
    checks = nbformat.v4.new_code_cell("assert y.shape == x.shape, 'y keeps the shape'")
    nb.cells += [nbformat.v4.new_markdown_cell("More."), teaching, checks]
    student = make_student_notebook(nb)
    hidden = [c for c in student.cells if c.metadata.get("jupyter", {}).get("source_hidden")]
    assert [c.source for c in hidden] == ['ah.check("99.1", pad_to, args=(x, 8))', checks.source]
    assert all(c.metadata["cellView"] == "form" for c in hidden)  # Colab's collapsed view
    assert not nb.cells[-1].metadata.get("jupyter")  # the course notebook is not changed
