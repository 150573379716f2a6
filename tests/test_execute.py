"""The one way the tools and the tests execute a notebook (``aurora_course.execute``)."""

from __future__ import annotations

import nbformat
import pytest

from aurora_course.execute import declared_parameters, execute_notebook, inject_parameters


def _notebook(*sources: str, tags: dict[int, list[str]] | None = None):
    cells = [
        nbformat.v4.new_code_cell(s, metadata={"tags": (tags or {}).get(i, [])})
        for i, s in enumerate(sources)
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# title"), *cells])
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return nb


@pytest.mark.slow
def test_cells_run_in_order_in_one_kernel_with_the_environment_given(tmp_path):
    seen: list[int] = []
    nb = _notebook(
        "import os\norder = ['a']",
        "order.append('b')",
        "1 / 0",
        "order.append('c')\nprint(''.join(order), os.environ['AURORA_TEST_VALUE'], os.getcwd())",
    )
    run = execute_notebook(
        nb, cwd=tmp_path, env={"AURORA_TEST_VALUE": "42"}, after_cell=seen.append
    )
    assert seen == run.executed == [1, 2, 3, 4] and run.failure is None
    assert [str(e) for e in run.errors] == ["cell [3] raised ZeroDivisionError: division by zero"]
    assert nb.cells[4].outputs[0]["text"] == f"abc 42 {tmp_path}\n"
    stopped = execute_notebook(
        _notebook("x = 1", "1 / 0", "x = 2"), cwd=tmp_path, stop_on_error=True
    )
    assert stopped.executed == [1, 2] and stopped.nb.cells[3].execution_count is None


@pytest.mark.slow
def test_a_hang_times_out_and_a_dead_kernel_is_reported(tmp_path):
    hang = execute_notebook(
        _notebook("x = 1", "while True:\n    pass", "y = 2"), cwd=tmp_path, timeout_s=8
    )
    assert hang.failure == "timed out" and hang.stopped_at == 2 and 3 not in hang.executed
    assert not hang.cell_timed_out  # the notebook's own 8 s ran out, not a cell's limit
    cell = execute_notebook(
        _notebook("x = 1", "while True:\n    pass", "y = 2"),
        cwd=tmp_path,
        timeout_s=60,
        cell_timeout_s=3,
    )
    assert cell.failure == "timed out" and cell.stopped_at == 2 and cell.cell_timed_out
    # A limit for one cell (aurora grade: an exercise's cells) leaves the others theirs.
    limited = execute_notebook(
        _notebook("import time\ntime.sleep(4)", "while True:\n    pass"),
        cwd=tmp_path,
        timeout_s=60,
        cell_limits={2: 2},
    )
    assert limited.executed == [1, 2] and limited.stopped_at == 2 and limited.cell_timed_out
    assert "after 2 s" in limited.detail
    dead = execute_notebook(_notebook("import os\nos._exit(3)", "y = 2"), cwd=tmp_path)
    assert dead.failure == "kernel died" and dead.stopped_at == 1
    assert dead.problems()[0].startswith("the kernel died")


def test_parameters_are_declared_and_injected_after_the_parameters_cell():
    nb = _notebook("size = 4\nname: str = 'a'", "print(size)", tags={0: ["parameters"]})
    assert declared_parameters(nb) == {"size", "name"}
    injected = inject_parameters(nb, {"size": 7})
    assert [c.metadata.get("tags") for c in injected.cells[1:3]] == [
        ["parameters"],
        ["injected-parameters"],
    ]
    assert "size = 7" in injected.cells[2].source
    assert inject_parameters(nb, {}) is nb


def test_an_error_without_a_message_is_named_by_the_line_that_raised():
    from aurora_course.execute import CellError, cell_error

    cell = nbformat.v4.new_code_cell("x = 1\nassert x == 2")
    cell.execution_count = 19
    cell.outputs = [
        nbformat.v4.new_output(
            "error",
            ename="AssertionError",
            evalue="",
            traceback=[
                "\x1b[31mAssertionError\x1b[39m   Traceback (most recent call last)",
                "Cell \x1b[32mIn[19], line 2\x1b[39m\n\x1b[32m      1\x1b[39m x = 1\n"
                "\x1b[32m----> \x1b[39m\x1b[32m2\x1b[39m \x1b[38;5;28;01massert\x1b[39;00m x == 2\n",
                "\x1b[31mAssertionError\x1b[39m: ",
            ],
        )
    ]
    assert str(cell_error(cell)) == "cell [19] raised AssertionError at assert x == 2"
    assert CellError(0, 3, "ValueError", "bad shape\nmore").gist == "ValueError: bad shape"
    assert CellError(0, 3, "KeyError", "").gist == "KeyError (no message)"
