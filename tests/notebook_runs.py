"""How the notebook tests run a course notebook: as few executions as the guarantees need.

A run is a list of :class:`Step` (code cells) executed in one fresh kernel by the tools' own
executor (:mod:`aurora_course.execute`). After each step the check log is read, so each check's
status is known per step. Two runs cover every guarantee about executing a notebook:

- :func:`twice_with_variants` (at 8 devices): "Restart & Run All", then "Run All" again in the
  same kernel. Pass 1 is the notebook as written, with each exercise's wrong answers (from the
  notebook's module in ``tests/notebooks/``) put in place of its solution and checked just before
  its check cell: each must be "wrong" (then the solution is restored and must be "solved").
  Pass 2 runs every cell again as the student copy would: after each exercise is solved, its
  stub (what ``aurora student`` writes) is checked, must be "not solved yet", and stays in place,
  so later cells run without the answer.
- :func:`student_run` (at 8 devices in ``make test``; 1, 3, 5, 6 in ``make test-devices``): once,
  in a fresh kernel, each exercise solved and then stubbed as in pass 2: the student copy top to
  bottom, and every solution checked, at that device count.

The twice-with-variants runs compile each program once: their kernel gets a persistent compile
cache of its own (``run_steps(compile_cache=True)``), which turns the same program built again (a
wrong answer's check, pass 2) into a lookup: ``make test-notebooks`` takes 0.83x the time, 0.80x
the CPU. Student runs compile everything, as a learner's kernel does, and so do the notebooks in
:data:`COMPILES_COLD`.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from aurora_course.course_notebook import CourseNotebook, Exercise
from aurora_course.execute import cell_error, execute_notebook
from aurora_course.student import stub_source
from aurora_helpers.contract import CHECK_LOG_ENV_VAR, CheckLogReader, CheckRecord


@dataclass
class Step:
    """One code cell of a run, and what it must do.

    ``may_raise``: a variant's check (a wrong answer's check raises ``ExerciseFailed`` under
    ``AURORA_CHECKS=raise``); every other step must not raise. ``expect``: the status the step's
    checks of ``label`` must report.
    """

    source: str
    what: str
    may_raise: bool = False
    label: str | None = None
    expect: str | None = None
    records: list[CheckRecord] = field(default_factory=list)  # filled by the run


def _checked(model: CourseNotebook) -> dict[int, list[Exercise]]:
    """Code cell index -> the exercises checked there for the last time."""
    last: dict[int, list[Exercise]] = {}
    for exercise in model.exercises:
        if exercise.checks and exercise.solutions:
            last.setdefault(exercise.checks[-1], []).append(exercise)
    return last


def _solve_then_stub(model: CourseNotebook, index: int, where: str) -> list[Step]:
    """The check cell ``index`` as written (its exercises must be solved), then for each of them
    the stubs in place of its solution cells and its check cells again ("not solved yet")."""
    steps = [_cell(model, index, where)]
    for exercise in _checked(model).get(index, []):
        for slot in exercise.solutions:
            stub = stub_source(model.cells[slot].source)
            steps.append(Step(stub, f"{where}: the stub of {exercise.label}"))
        for check in exercise.checks:
            steps.append(
                Step(
                    model.cells[check].source,
                    f"{where}: {exercise.label}'s check of the stub",
                    label=exercise.label,
                    expect="not solved yet",
                )
            )
    return steps


def _cell(model: CourseNotebook, index: int, where: str) -> Step:
    """Cell ``index`` as written; a check cell's exercises must be solved."""
    labels = [e.label for e in model.exercises if index in e.checks]
    return Step(
        model.cells[index].source,
        f"{where}: cell {index}",
        label=labels[0] if len(labels) == 1 else None,
        expect="solved" if len(labels) == 1 else None,
    )


def student_run(model: CourseNotebook, where: str = "the run") -> list[Step]:
    """The notebook once, each exercise solved and then left stubbed (see the module's doc)."""
    steps: list[Step] = []
    for cell in model.cells:
        if cell.is_code:
            steps += _solve_then_stub(model, cell.index, where)
    return steps


def with_wrong_answers(
    model: CourseNotebook,
    wrong: Mapping[str, Mapping[str, str]],
    where: str = "pass 1",
    right: Mapping[str, Mapping[str, str | tuple[str, ...]]] | None = None,
) -> list[Step]:
    """The notebook as written, each exercise's wrong answers (each must be "wrong") and right
    answers (each must be "solved") checked before its check cell, then its solution restored."""
    steps: list[Step] = []
    for cell in model.cells:
        if not cell.is_code:
            continue
        for exercise in model.exercises:
            if cell.index != (exercise.checks or (None,))[0]:
                continue
            label = exercise.label
            solution = "\n\n".join(model.cells[i].source for i in exercise.solutions)
            tables = (("wrong", wrong.get(label, {})), ("solved", (right or {}).get(label, {})))
            for verdict, table in tables:
                for name, answer in table.items():
                    steps.append(Step(solution, f"{where}: {label}'s solution, again"))
                    sources = (answer,) if isinstance(answer, str) else answer
                    steps += [
                        Step(source, f"{where}: {label} {verdict} answer {name!r}")
                        for source in sources
                    ]
                    steps += [
                        Step(
                            model.cells[check].source,
                            f"{where}: {label}'s check of the {verdict} answer {name!r}",
                            may_raise=verdict == "wrong",
                            label=label,
                            expect=verdict,
                        )
                        for check in exercise.checks
                    ]
            if any(table for _, table in tables):
                steps.append(Step(solution, f"{where}: {label}'s solution, restored"))
        steps.append(_cell(model, cell.index, where))
    return steps


def twice_with_variants(
    model: CourseNotebook,
    wrong: Mapping[str, Mapping[str, str]],
    right: Mapping[str, Mapping[str, str | tuple[str, ...]]] | None = None,
) -> list[Step]:
    """Pass 1 with wrong and right answers, then pass 2 as the student copy (see the module's
    doc)."""
    return with_wrong_answers(model, wrong, "pass 1", right) + student_run(model, "pass 2")


#: Notebooks whose claims are about compiling itself: their runs never use the tests' compile
#: cache (``run_steps``), as a learner's kernel does not. 02 checks that the kernel has no
#: persistent cache configured (JAX's defaults) before it teaches one; 05 times a fresh
#: function's first call against later calls, and the cache would make it a lookup.
COMPILES_COLD = frozenset({"02_transformations", "05_async"})

_COMPILE_CACHE = """\
import jax as _aurora_test_jax  # the test's compile cache (tests/notebook_runs.py); not the notebook's

for _name, _value in {{
    "jax_compilation_cache_dir": {path!r},
    "jax_persistent_cache_min_compile_time_secs": 0,
    "jax_persistent_cache_min_entry_size_bytes": 0,
}}.items():
    _aurora_test_jax.config.update(_name, _value)
del _aurora_test_jax, _name, _value
"""


def run_steps(
    steps: list[Step],
    *,
    cwd: Path,
    env: Mapping[str, str],
    leftovers: bool = True,
    compile_cache: bool = False,
) -> list[str]:
    """Execute ``steps`` in one fresh kernel; every way they failed their expectations, in words.

    The kernel gets ``AURORA_STRICT=1``, ``AURORA_CHECKS=raise``, a check log, and (with
    ``leftovers``) a fresh ``TMPDIR`` that must be empty afterwards: learners share a machine's
    temporary folder.

    ``compile_cache``: before the first step, the kernel (not the processes it starts) gets JAX's
    persistent compilation cache in a folder of this run alone, so a program compiled once is not
    compiled again when a later step builds it anew (a wrong answer's check, pass 2). A learner's
    kernel has none; JAX still reports each lookup as a compilation (``ah.count_compilations``
    counts the same), only faster. The first run of each program is compiled as usual.
    """
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="aurora-test-run-") as scratch:
        work = Path(scratch)
        if compile_cache:
            source = _COMPILE_CACHE.format(path=str(work / "jax-cache"))
            steps = [Step(source, "the test's compile cache"), *steps]
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s.source) for s in steps])
        nb.metadata["kernelspec"] = {
            "name": "python3",
            "display_name": "Python 3",
            "language": "python",
        }
        (work / "tmp").mkdir()
        reader = CheckLogReader(work / "checks.jsonl")
        kernel_env = {
            "AURORA_STRICT": "1",
            "AURORA_CHECKS": "raise",
            CHECK_LOG_ENV_VAR: str(reader.path),
            **({"TMPDIR": str(work / "tmp")} if leftovers else {}),
            **env,
        }

        def read_log(index: int) -> None:
            steps[index].records = reader.new()

        run = execute_notebook(nb, cwd=cwd, env=kernel_env, cell_timeout_s=300, after_cell=read_log)
        if run.failure:
            at = steps[run.stopped_at].what if run.stopped_at is not None else "?"
            problems.append(f"{run.detail} (at {at})")
        left = sorted(p.name for p in (work / "tmp").iterdir())
        if leftovers and left:
            problems.append(
                f"the notebook left {left} in its temporary folder: use "
                "tempfile.TemporaryDirectory() (removed on exit) or write under its own folder"
            )
    for index, step in enumerate(steps):
        if index not in run.executed:
            continue
        error = cell_error(nb.cells[index])
        if error is not None and not step.may_raise:
            problems.append(f"{step.what} raised {error.gist}")
        if step.expect is not None:
            mine = [r for r in step.records if r.exercise == step.label]
            got = mine[-1].status if mine else "no check ran"
            if got != step.expect or (
                step.expect == "solved" and any(r.status != "solved" for r in mine)
            ):
                detail = f" ({mine[-1].detail[:300]})" if mine and mine[-1].detail else ""
                problems.append(f"{step.what}: {got}, expected {step.expect}{detail}")
    return problems
