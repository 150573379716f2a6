"""The table of wrong answers covers every exercise of the course (the notebook runs check them:
``tests/test_notebook_runs.py`` requires each one's check to report "wrong")."""

from __future__ import annotations

from aurora_course.course import find_notebooks
from aurora_course.course_notebook import CourseNotebook

from .conftest import NOTEBOOKS
from .wrong_answers import WRONG_ANSWERS

MODELS = [CourseNotebook.read(p) for p in find_notebooks(NOTEBOOKS)]


def test_every_exercise_has_at_least_two_wrong_answers():
    everywhere = {label for model in MODELS for label in model.labels}
    too_few = sorted(label for label in everywhere if len(WRONG_ANSWERS.get(label, {})) < 2)
    assert not too_few, (
        f"exercises with fewer than two wrong answers in wrong_answers.py: {too_few}"
    )
    unknown = sorted(set(WRONG_ANSWERS) - everywhere)
    assert not unknown, f"wrong_answers.py lists exercises no notebook checks: {unknown}"


def test_every_notebook_has_three_exercises():
    few = {m.name: m.labels for m in MODELS if len(m.labels) < 3}
    assert not few, f"notebooks with fewer than three exercises: {few}"


def test_every_wrong_answer_is_python():
    for label, answers in WRONG_ANSWERS.items():
        for name, source in answers.items():
            compile(source, f"{label} {name}", "exec")
