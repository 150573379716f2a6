"""No answer survives in a student copy: pasted hints, docstrings, markdown and decorators are
found and named by exercise; ordinary lesson code and names are not."""

import nbformat
import pytest

from aurora_course import student as student_module
from aurora_course.answer_leaks import find_leaks, normalise, solution_answers
from aurora_course.course import find_notebooks
from aurora_course.student import make_student_notebook, write_student_copies

from .conftest import NOTEBOOKS

SOLUTION = '''# @title Solution (double-click to show)
@partial(jax.jit, static_argnames="length")
def pad_to(x, length):
    """Zero-pad x at the end to `length` elements."""
    missing = length - x.shape[0]
    return jnp.pad(x, (0, missing))
'''
LESSON = """from functools import partial
import jax
import jax.numpy as jnp

grow = jax.jit(lambda x, n: jnp.concatenate([x, x]), static_argnames="n")
y = jnp.pad(x, (1, 1))
"""
CHECK = 'ah.check("42.1", lambda: pad_to(x, 8), expected=reference, hint={hint!r})'


def course_notebook(
    *,
    task="Write `pad_to(x, length)`.",
    hint="static arguments set shapes",
    solution=SOLUTION,
    lesson=LESSON,
):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# 42 · Leaks\n\nStatic arguments: `static_argnames`."),
        nbformat.v4.new_code_cell(lesson),
        nbformat.v4.new_markdown_cell(f"### Exercise 42.1: padding\n\n{task}"),
        nbformat.v4.new_code_cell(solution, metadata={"tags": ["solution"], "cellView": "form"}),
        nbformat.v4.new_code_cell(CHECK.format(hint=hint)),
    ]
    return nb


def leaks_of(nb):
    return find_leaks(nb, make_student_notebook(nb))


def test_a_clean_notebook_has_no_leaks():
    assert leaks_of(course_notebook()) == []


def test_what_counts_as_the_answer():
    (answer,) = solution_answers(course_notebook())
    assert answer.exercise == "42.1"
    pieces = set(answer.pieces.values())
    assert 'partial(jax.jit, static_argnames="length")' in pieces  # the decorator
    assert "missing = length - x.shape[0]" in pieces and "jnp.pad(x, (0, missing))" in pieces
    assert "x.shape[0]" in pieces  # not in the lesson's code
    # Not the answer: the signature and docstring (the task), a tool applied to one variable,
    # and names the lesson uses too.
    assert not any("Zero-pad" in p or p.startswith("def") for p in pieces)
    # A local name and an attribute the lesson never uses; every other name occurs outside too.
    assert answer.names == {"missing", "shape"}


@pytest.mark.parametrize(
    ("where", "changes", "pasted"),
    [
        ("the hint", {"hint": "@partial(jax.jit, static_argnames='length')"}, "static_argnames"),
        ("the task", {"task": "Return `jnp.pad(x, (0, missing))`."}, "jnp.pad(x, (0, missing))"),
        ("a fenced block", {"task": "```python\nmissing = length - x.shape[0]\n```"}, "missing ="),
    ],
)
def test_pasted_answers_are_found_and_named(where, changes, pasted):
    leaks = leaks_of(course_notebook(**changes))
    assert leaks, f"an answer pasted into {where} went unnoticed"
    assert all(leak.exercise == "42.1" for leak in leaks)
    assert any(pasted in leak.answer for leak in leaks), [str(x) for x in leaks]
    assert pasted.split()[0] in str(leaks[0]) and "exercise 42.1" in str(leaks[0])


def test_an_answer_in_the_stubs_docstring_is_found():
    solution = SOLUTION.replace(
        "elements.", "elements: missing = length - x.shape[0], then jnp.pad."
    )
    (leak,) = leaks_of(course_notebook(solution=solution))
    assert leak.answer == "missing = length - x.shape[0]" and leak.where.endswith("(the stub)")


def test_a_stubber_that_kept_decorators_would_be_caught(monkeypatch):
    original = student_module._stub_statement

    def keeps_decorators(node):
        stub = original(node)
        if hasattr(node, "decorator_list"):
            stub.decorator_list = node.decorator_list
        return stub

    monkeypatch.setattr(student_module, "_stub_statement", keeps_decorators)
    leaks = leaks_of(course_notebook())
    assert [leak.answer for leak in leaks] == ['partial(jax.jit, static_argnames="length")']
    assert leaks[0].where == "code cell 3 (the stub)"


def test_names_used_only_by_the_solution_are_answers():
    solution = SOLUTION.replace("jnp.pad(x, (0, missing))", "jnp.pad(x, (0, missing), mode=edge)")
    nb = course_notebook(solution=solution)
    (answer,) = solution_answers(nb)
    assert answer.names == {"missing", "shape", "mode", "edge"}
    copy = make_student_notebook(nb)
    assert find_leaks(nb, copy) == []
    copy.cells[1].outputs = [nbformat.v4.new_output("stream", text="padded with mode edge\n")]
    leaks = find_leaks(nb, copy)  # e.g. an executed notebook given out by mistake
    assert {(leak.kind, leak.answer, leak.where) for leak in leaks} == {
        ("name", "edge", "code cell 1, outputs"),
        ("name", "mode", "code cell 1, outputs"),
    }


def test_matching_ignores_spacing_and_quotes_but_not_word_edges():
    assert normalise('f( a ,  "b" )\n') == "f(a,'b')"
    assert normalise("return  x") == "return x"
    lesson = LESSON + "z = total_length - x.shape[0] + 1\n"  # contains the text, not the piece
    nb = course_notebook(lesson=lesson, solution=SOLUTION.replace("missing = ", "gap = "))
    assert leaks_of(nb) == []


def test_instructor_cells_neither_hide_nor_leak_answers():
    nb = course_notebook()
    nb.cells.insert(
        2,
        nbformat.v4.new_code_cell(
            "missing = length - x.shape[0]", metadata={"tags": ["instructor"]}
        ),
    )
    nb.cells.append(nbformat.v4.new_markdown_cell("Hint: `missing = length - x.shape[0]`"))
    (leak,) = leaks_of(nb)  # the instructor's code did not make the hint's line ordinary
    assert leak.where == "markdown cell 5"


@pytest.mark.parametrize("path", find_notebooks(NOTEBOOKS), ids=lambda p: p.stem)
def test_no_answer_survives_in_the_student_copy(path, tmp_path):
    (copy,) = write_student_copies([path], tmp_path)  # the file `aurora student` writes
    leaks = find_leaks(path, copy)
    assert not leaks, f"{path.name}'s student copy gives answers away:\n" + "\n".join(
        f"  - {leak}" for leak in leaks
    )


def test_aurora_student_warns_about_each_leak(tmp_path, capsys):
    from aurora_course.cli import main

    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    nbformat.write(course_notebook(hint="jnp.pad(x, (0, missing))"), notebooks / "42_leaks.ipynb")
    out = tmp_path / "student"
    assert main(["student", "--notebooks", str(notebooks), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.out.split() == [str(out / "42_leaks.ipynb")]
    (warning,) = captured.err.splitlines()
    assert warning.startswith("aurora student: warning: 42_leaks.ipynb: exercise 42.1: its code")
    assert "jnp.pad(x, (0, missing))" in warning and "code cell 4" in warning
