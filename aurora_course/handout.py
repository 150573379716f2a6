"""Handing the course out: the committed student copies learners open, and presenter copies.

``student/`` at the repository root holds a student copy of every course notebook
(:func:`aurora_course.student.make_student_notebook`: solutions stubbed, instructor notes and
outputs removed). It is committed so that a JupyterHub (nbgitpuller), Colab and a plain clone can
hand it out as it is; ``make student`` (and ``make sync``) regenerate it, and
``tests/test_handout.py`` fails when it differs from what the notebooks give.

A presenter copy is a course notebook without its instructor notes (solutions kept, hidden as in
the course): what an instructor projects to the room (``make present``).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from pathlib import Path

from .course import STUDENT_FOLDER, find_notebooks
from .course_notebook import NotebookNode, is_instructor
from .student import check_output_folder, make_student_notebook


def notebook_text(nb: NotebookNode) -> str:
    """The file ``nbformat.write`` writes for ``nb``."""
    import nbformat

    text = str(nbformat.writes(nb))
    return text if text.endswith("\n") else text + "\n"


def student_texts(notebooks: Iterable[Path]) -> dict[str, str]:
    """The student copy of each notebook, as the file text, by file name."""
    import nbformat

    return {
        p.name: notebook_text(make_student_notebook(nbformat.read(p, as_version=4)))
        for p in notebooks
    }


def stale_student_copies(notebooks_dir: Path, student_dir: Path) -> list[str]:
    """The file names in ``student_dir`` that differ from (or lack, or outlive) the student copies
    of ``notebooks_dir``'s notebooks; empty when the folder is in sync."""
    wanted = student_texts(find_notebooks(notebooks_dir))
    have = {p.name: p for p in find_notebooks(student_dir)} if student_dir.is_dir() else {}
    stale = [name for name in wanted if name not in have]
    stale += [
        name
        for name, path in have.items()
        if name not in wanted or path.read_text(encoding="utf-8") != wanted[name]
    ]
    return sorted(stale)


def sync_student_folder(notebooks_dir: Path, root: Path | None = None) -> list[Path]:
    """Rewrite ``root/student`` (default: next to ``notebooks_dir``) so it holds exactly the
    student copies of ``notebooks_dir``; returns the files written or removed."""
    student_dir = (root if root is not None else notebooks_dir.parent) / STUDENT_FOLDER
    check_output_folder(student_dir, notebooks_dir)
    student_dir.mkdir(exist_ok=True)
    wanted = student_texts(find_notebooks(notebooks_dir))
    changed = []
    for name, text in wanted.items():
        path = student_dir / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    for path in find_notebooks(student_dir):
        if path.name not in wanted:
            path.unlink()
            changed.append(path)
    return changed


def make_presenter_notebook(nb: NotebookNode) -> NotebookNode:
    """A deep copy of ``nb`` without its ``instructor`` cells and outputs; solutions stay (hidden
    as in the course), so the room sees the notebook and the answers when the presenter opens
    them, and never the notes."""
    presenter = copy.deepcopy(nb)
    presenter.cells = [cell for cell in presenter.cells if not is_instructor(cell)]
    presenter.metadata.pop("jupytext", None)  # not half of a jupytext pair
    for cell in presenter.cells:
        if cell.get("cell_type") == "code":
            cell.outputs = []
            cell.execution_count = None
    return presenter


def write_presenter_copies(
    notebooks: Iterable[Path], out_dir: Path, *, notebooks_dir: Path | None = None
) -> list[Path]:
    """Write a presenter copy of each notebook into ``out_dir`` (never the notebooks' folder)."""
    import nbformat

    notebooks = list(notebooks)
    for folder in {p.parent for p in notebooks} | ({notebooks_dir} if notebooks_dir else set()):
        check_output_folder(out_dir, folder)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for path in notebooks:
        target = out_dir / path.name
        target.write_text(notebook_text(make_presenter_notebook(nbformat.read(path, 4))))
        written.append(target)
    return written
