"""The wrong answers (``tests/notebooks/``, one module per notebook) cover every exercise of the
course (the notebook runs check them: ``tests/test_notebook_runs.py`` requires each one's check to
report "wrong"), and each notebook's module lists that notebook's exercises and no other's."""

from __future__ import annotations

from aurora_course.course import find_notebooks
from aurora_course.course_notebook import CourseNotebook

from .conftest import NOTEBOOKS
from .notebooks import (
    BY_NOTEBOOK,
    CLASSES,
    COVERAGE,
    NOT_APPLICABLE,
    PREFIX,
    RIGHT_ANSWERS,
    WRONG_ANSWERS,
)

MODELS = [CourseNotebook.read(p) for p in find_notebooks(NOTEBOOKS)]


def test_every_exercise_has_at_least_two_wrong_answers():
    everywhere = {label for model in MODELS for label in model.labels}
    too_few = sorted(label for label in everywhere if len(WRONG_ANSWERS.get(label, {})) < 2)
    assert not too_few, (
        f"exercises with fewer than two wrong answers in tests/notebooks/: {too_few}"
    )
    unknown = sorted(set(WRONG_ANSWERS) - everywhere)
    assert not unknown, (
        f"tests/notebooks/ lists wrong answers of exercises no notebook checks: {unknown}"
    )


def test_every_exercise_has_a_right_answer_in_another_style():
    """Honest answers in ordinary styles (a helper function, a ``lax`` spelling, the ``P`` alias,
    a trial print, an answer over two cells) must score "solved": each exercise names at least
    one besides its solution, and the notebook runs require it (issue 38)."""
    everywhere = {label for model in MODELS for label in model.labels}
    missing = sorted(everywhere - {label for label, answers in RIGHT_ANSWERS.items() if answers})
    assert not missing, f"exercises with no RIGHT_ANSWERS in tests/notebooks/: {missing}"
    unknown = sorted(set(RIGHT_ANSWERS) - everywhere)
    assert not unknown, f"RIGHT_ANSWERS of exercises no notebook checks: {unknown}"
    for label, answers in RIGHT_ANSWERS.items():
        for name, cells in answers.items():
            for source in (cells,) if isinstance(cells, str) else cells:
                compile(source, f"{label} {name}", "exec")


def test_every_notebook_has_its_module_with_its_own_exercises():
    """One module per notebook, named after it, so an exercise's answers are found beside it (and
    a label copied into another notebook's module is caught, not merged silently)."""
    names = {m.name for m in MODELS}
    assert sorted(names - set(BY_NOTEBOOK)) == [], f"add tests/notebooks/{PREFIX}<stem>.py"
    assert sorted(set(BY_NOTEBOOK) - names) == [], "modules in tests/notebooks/ of no notebook"
    for model in MODELS:
        module = BY_NOTEBOOK[model.name]
        for table in ("WRONG_ANSWERS", "COVERAGE", "RIGHT_ANSWERS"):
            others = sorted(set(getattr(module, table, {})) - set(model.labels))
            assert not others, (
                f"{module.__name__}.{table} lists other notebooks' exercises: {others}"
            )


def test_every_notebook_has_three_exercises():
    few = {m.name: m.labels for m in MODELS if len(m.labels) < 3}
    assert not few, f"notebooks with fewer than three exercises: {few}"


def test_every_wrong_answer_is_python():
    for label, answers in WRONG_ANSWERS.items():
        for name, source in answers.items():
            compile(source, f"{label} {name}", "exec")


def test_every_exercise_names_a_wrong_answer_of_every_kind():
    """Each of the seven kinds of lazy answer (tests.notebooks.CLASSES) has, for every
    exercise, a wrong answer of that kind in the table, or a stated reason it cannot occur."""
    everywhere = sorted({label for model in MODELS for label in model.labels})
    problems = []
    for label in everywhere:
        kinds = COVERAGE.get(label)
        if kinds is None:
            problems.append(f"{label}: no COVERAGE in its notebook's module")
            continue
        missing = [kind for kind in CLASSES if kind not in kinds]
        unknown = [kind for kind in kinds if kind not in CLASSES]
        if missing or unknown:
            problems.append(f"{label}: kinds missing {missing}, unknown {unknown}")
        for kind, entry in kinds.items():
            if entry.startswith(NOT_APPLICABLE):
                reason = entry[len(NOT_APPLICABLE) :].strip()
                if len(reason.split()) < 6:
                    problems.append(f"{label} {kind}: say why in a sentence, not {reason!r}")
            elif entry not in WRONG_ANSWERS.get(label, {}):
                problems.append(f"{label} {kind}: no wrong answer named {entry!r}")
    stale = sorted(set(COVERAGE) - set(everywhere))
    if stale:
        problems.append(f"COVERAGE lists exercises no notebook checks: {stale}")
    assert not problems, "\n".join(problems)
