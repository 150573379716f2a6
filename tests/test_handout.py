"""Issue 28, handing the course out: the committed student copies are current, learners are
linked to them (README, Colab, JupyterHub), and presenter copies carry no instructor notes."""

from __future__ import annotations

import re
import shutil

import nbformat

from aurora_course import course
from aurora_course.cli import main
from aurora_course.course import find_notebooks
from aurora_course.course_notebook import is_instructor, is_solution
from aurora_course.handout import (
    make_presenter_notebook,
    stale_student_copies,
    sync_student_folder,
)
from aurora_course.student import STUB_MESSAGE

from .conftest import NOTEBOOKS, ROOT

STUDENT = ROOT / course.STUDENT_FOLDER


def test_the_student_folder_is_the_student_copies_of_the_notebooks():
    stale = stale_student_copies(NOTEBOOKS, STUDENT)
    assert stale == [], f"student/ is out of date, run `make student`: {stale}"


def test_a_changed_notebook_makes_its_copy_stale_and_sync_repairs_it(tmp_path, capsys):
    notebooks = tmp_path / "notebooks"
    shutil.copytree(NOTEBOOKS, notebooks)
    shutil.copytree(STUDENT, tmp_path / "student")
    path = notebooks / "00_welcome.ipynb"
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell("A new paragraph."))
    nbformat.write(nb, path)
    (tmp_path / "student" / "99_gone.ipynb").write_text("{}")
    out = str(tmp_path / "student")
    assert stale_student_copies(notebooks, tmp_path / "student") == [
        "00_welcome.ipynb",
        "99_gone.ipynb",
    ]
    assert main(["student", "--notebooks", str(notebooks), "--out", out, "--check"]) == 1
    assert "differ from the notebooks" in capsys.readouterr().err
    changed = sync_student_folder(notebooks)
    assert {p.name for p in changed} == {"00_welcome.ipynb", "99_gone.ipynb"}
    assert main(["student", "--notebooks", str(notebooks), "--out", out, "--check"]) == 0


def test_student_copies_hold_stubs_and_no_instructor_notes():
    for path in find_notebooks(STUDENT):
        nb = nbformat.read(path, as_version=4)
        assert not any(is_instructor(c) for c in nb.cells), path.name
        stubs = [c for c in nb.cells if is_solution(c)]
        assert stubs and all(STUB_MESSAGE in c.source for c in stubs), path.name


def test_presenter_copies_keep_solutions_and_drop_instructor_notes(tmp_path):
    for path in find_notebooks(NOTEBOOKS)[:3]:
        nb = nbformat.read(path, as_version=4)
        presenter = make_presenter_notebook(nb)
        assert not any(is_instructor(c) for c in presenter.cells)
        solutions = [c.source for c in nb.cells if is_solution(c) and not is_instructor(c)]
        assert [c.source for c in presenter.cells if is_solution(c)] == solutions
        kept = [c for c in nb.cells if not is_instructor(c)]
        assert len(presenter.cells) == len(kept) < len(nb.cells)
    out = tmp_path / "present"
    assert main(["student", "--presenter", "--only", "06", "--out", str(out)]) == 0
    assert [p.name for p in out.iterdir()] == ["06_sharding.ipynb"]


def test_the_readme_starts_learners_on_the_student_copies():
    readme = (ROOT / "README.md").read_text()
    start = readme.index("## Learners: start here")
    section = readme[start : readme.index("\n## ", start + 1)]
    for needed in ("student/", "aurora kernel install", "make learn", "Colab"):
        assert needed in section, needed
    for path in find_notebooks(NOTEBOOKS):
        link = course.colab_url(path.name, folder=course.STUDENT_FOLDER)
        assert link in readme, f"README: no Colab link to student/{path.name}"
    # Every README link into the repository names a file or folder that exists, with its anchor.
    anchors = {
        re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-")
        for h in re.findall(r"^#+ (.+)$", readme, re.M)
    }
    for target in re.findall(r"\]\(#([^)]+)\)", readme):
        assert target in anchors, f"README links to #{target}, which is no heading"


def test_the_jupyterhub_guide_hands_out_student_copies_and_its_links_resolve():
    guide = (ROOT / "docs" / "jupyterhub.md").read_text()
    assert "student" in guide and "nbgitpuller-link" in guide
    readme = (ROOT / "README.md").read_text()
    headings = re.findall(r"^#+ (.+)$", readme, re.M)
    for quoted in re.findall(r"README's \*([^*]+)\*", guide):
        assert any(quoted.lower() in h.lower() for h in headings), (
            f"docs/jupyterhub.md names the README section {quoted!r}, which does not exist"
        )
    for target in re.findall(r"\]\(\.\./([^)#]+)", guide):
        assert (ROOT / target).exists(), target
