import json

import nbformat
import pytest

from aurora_course import peak_memory
from aurora_course.cli import main
from aurora_course.execute import Execution, cell_errors
from aurora_course.records import NotebookRun, read_summary
from aurora_course.runner import parse_parameters, run_course


def test_parse_parameters():
    assert parse_parameters(["n=4096", "name=mlp", "sizes=[1, 2]", "x=1.5", "s='q'"]) == {
        "n": 4096,
        "name": "mlp",
        "sizes": [1, 2],
        "x": 1.5,
        "s": "q",
    }
    for bad in ["n", "=3", "2x=1"]:
        with pytest.raises(ValueError, match="name=value"):
            parse_parameters([bad])


def _executed(cells):
    nb = nbformat.v4.new_notebook()
    for i, (tags, outputs) in enumerate(cells, start=1):
        cell = nbformat.v4.new_code_cell("pass", metadata={"tags": tags})
        cell.execution_count = i
        cell.outputs = [
            nbformat.v4.new_output("error", ename=e, evalue="boom", traceback=[]) for e in outputs
        ]
        nb.cells.append(cell)
    return nb


def test_execution_problems_name_each_cell_that_raised():
    nb = _executed([([], []), ([], ["KeyError"]), ([], ["ValueError", "TypeError"])])
    assert [str(e) for e in cell_errors(nb)] == [
        "cell [2] raised KeyError: boom",
        "cell [3] raised ValueError: boom",
    ]
    run = Execution(nb, failure="timed out", detail="stopped after 5 s")
    assert run.problems() == ["stopped after 5 s", *map(str, cell_errors(nb))]


def _write(folder, name, cells):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = cells
    nbformat.write(nb, folder / name)


@pytest.mark.slow
def test_run_course_keeps_going_and_reports(tmp_path, capsys):
    src = tmp_path / "nb"
    src.mkdir()
    params = nbformat.v4.new_code_cell("size = 1", metadata={"tags": ["parameters"]})
    setup = nbformat.v4.new_code_cell(
        "import aurora_helpers as ah\nsetup = ah.setup_notebook()\nsetup"
    )
    _write(
        src,
        "00_ok.ipynb",
        [
            params,
            setup,
            nbformat.v4.new_code_cell("assert size == 7"),
        ],
    )
    _write(
        src,
        "01_bad.ipynb",
        [
            nbformat.v4.new_code_cell("raise KeyError('missing')"),
            nbformat.v4.new_code_cell("x = 1"),
        ],
    )
    _write(src, "02_ok.ipynb", [setup])
    _write(
        src,
        "03_exercises.ipynb",
        [
            setup,
            nbformat.v4.new_code_cell('ah.check("t.1", 2, expected=2)'),
            nbformat.v4.new_code_cell('ah.check("t.2", 3, expected=2, hint="count again")'),
        ],
    )
    build = tmp_path / "build"
    course = run_course(src, build, devices=3, parameters={"size": 7}, progress=False)
    assert [(r.notebook, r.status) for r in course.runs] == [
        ("00_ok", "ok"),
        ("01_bad", "failed"),
        ("02_ok", "ok"),
        ("03_exercises", "failed"),
    ]
    # A wrong answer does not stop the notebook, but the run reports it (the course's own
    # solutions must all pass); the table counts solved exercises.
    assert course.runs[3].exercises == {"t.1": "solved", "t.2": "wrong"}
    assert "exercise t.2 is wrong: got 3, expected 2; Hint: count again" in course.runs[3].error
    assert course.runs[3].exercises_solved == "1/2" and course.runs[0].exercises_solved == "-"
    assert course.runs[0].device_count == 3 and course.runs[0].backend == "cpu"
    if peak_memory.supported():  # the kernel's memory and CPU time, measured (aurora run's table)
        assert course.runs[0].peak_memory_mib > 50 and course.runs[0].cpu_seconds > 0.1
        assert "peak MiB" in course.table()
    assert course.runs[1].error.startswith("cell [1] raised KeyError")
    assert not course.ok and "01_bad failed: cell [1] raised KeyError" in course.table()
    assert (build / "index.html").read_text().count("<a href='html/") == 4
    # One record for the table, the index page, summary.json and the website.
    assert read_summary(build) == course.runs and len(course.runs) == 4
    assert NotebookRun.from_dict({**json.loads((build / "summary.json").read_text())[0], "x": 1})
    assert course.runs[0].title == "00_ok" and course.runs[0].minutes is None  # no title cell
    # A cell that raises stops its notebook, as Run all would.
    bad = nbformat.read(course.runs[1].output, as_version=4)
    assert [c.execution_count for c in bad.cells] == [1, None]
    # The website, from the same executed notebooks: every one a page, the failed one included.
    assert course.site == str(build / "site" / "index.html") and course.site_error is None
    assert all((build / "site" / f"{r.notebook}.html").exists() for r in course.runs)
    assert "<a href='site/index.html'>" in (build / "index.html").read_text()
    assert course.runs[0].jax_version and course.runs[0].finished.endswith("UTC")
    assert not list(src.glob("*_executed*")) and sorted(p.name for p in src.iterdir()) == [
        "00_ok.ipynb",
        "01_bad.ipynb",
        "02_ok.ipynb",
        "03_exercises.ipynb",
    ]
    # The command line: exit status 1 on failure, 2 on a bad request.
    assert (
        main(
            [
                "run",
                "--notebooks",
                str(src),
                "--build",
                str(build),
                "--only",
                "02",
                "--no-progress",
                "--no-html",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "run",
                "--notebooks",
                str(src),
                "--build",
                str(build),
                "--only",
                "01",
                "--no-progress",
                "--no-html",
            ]
        )
        == 1
    )
    assert main(["run", "--notebooks", str(src), "--build", str(build), "-p", "nope=1"]) == 2
    assert "no selected notebook has a parameter named nope" in capsys.readouterr().err
