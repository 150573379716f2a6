"""The course's one-place facts: the repository slug, the README's notebook table and links."""

import re
import tomllib

import pytest

from aurora_course import course
from aurora_course.course import colab_url, find_notebooks, select_notebooks

from .conftest import NOTEBOOKS, ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_links_every_notebook_to_colab():
    for path in find_notebooks(NOTEBOOKS):
        assert colab_url(path.name) in README, f"README lacks the Colab link of {path.name}"
        assert re.search(rf"\|\s*\[?{path.stem[:2]}\b.*\|.*\d+\s*min", README), (
            f"README lacks a row with a time for {path.stem}"
        )


def test_one_repository_slug_everywhere():
    slugs = set(re.findall(r"colab\.research\.google\.com/github/([\w.-]+/[\w.-]+)/", README))
    slugs |= set(re.findall(r"github\.com/([\w.-]+/[\w.-]+?)(?:\.git|/|\)|\s|$)", README, re.M))
    for md in NOTEBOOKS.glob("*.md"):
        slugs |= set(
            re.findall(r"git\+https://github\.com/([\w.-]+/[\w.-]+?)\.git", md.read_text())
        )
    homepage = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]["Homepage"]
    assert slugs == {course.REPOSITORY_SLUG}
    assert homepage.endswith(course.REPOSITORY_SLUG)


def test_select_notebooks():
    paths = [
        ROOT / "notebooks" / n for n in ("00_a.ipynb", "01_b.ipynb", "03_c.ipynb", "A1_d.ipynb")
    ]
    assert select_notebooks(paths, None) == paths
    assert select_notebooks(paths, ["3", "01"]) == [paths[1], paths[2]]
    assert select_notebooks(paths, ["a1"]) == [paths[3]]
    with pytest.raises(ValueError, match="no notebook numbered 07; the course has 00, 01, 03, A1"):
        select_notebooks(paths, ["07"])


def test_appendices_sort_after_the_numbered_notebooks(tmp_path):
    for name in ("A1_custom_kernels", "09_layouts", "00_welcome", "08_multi_host"):
        (tmp_path / f"{name}.ipynb").write_text("{}")
    found = [p.stem[:2] for p in find_notebooks(tmp_path)]
    assert found == ["00", "08", "09", "A1"]
