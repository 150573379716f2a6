"""`aurora retarget`: the repository slug and the ref live in course.py, and every Colab install
cell, Colab link and mention of the repository agrees with them."""

import json
import re
import shutil
import subprocess
import tomllib

import jupytext
import nbformat
import pytest

import aurora_helpers as ah
from aurora_course import course
from aurora_course.cli import main
from aurora_course.course import find_notebooks
from aurora_course.retarget import (
    FROZEN_EXTRA,
    RetargetError,
    Target,
    course_files,
    current_target,
    find_root,
    pins_of_tested,
    retarget,
)
from aurora_helpers._tested import TESTED

from .conftest import NOTEBOOKS, ROOT

# Built from parts: this file is in the copies it retargets, and must not name the fork itself.
FORK = Target("/".join(("someone-else", "aurora-fork")), "0123abcd")
INSTALLS = re.compile(
    r"aurora-helpers(?:\[[\w,-]+\])? @ git\+https://github\.com/[\w.-]+/[\w.-]+?\.git@[\w.+-]*\w"
)
COLAB_LINKS = re.compile(
    r"colab\.research\.google\.com/github/([\w.-]+/[\w.-]+)/blob/([^ )]+?)/(?:notebooks|student)/"
    r"[0-9A-Z]\d_"
)


def texts(root):
    """``{relative path: text}`` of every text file of a checkout."""
    found = {}
    for path in course_files(root):
        try:
            found[str(path.relative_to(root))] = path.read_bytes().decode("utf-8")
        except (UnicodeDecodeError, OSError):
            continue
    return found


def assert_agrees(root, target):
    """Every install cell, Colab link and repository link in ``root`` names ``target``."""
    assert current_target(root) == target
    notebooks = find_notebooks(root / "notebooks")
    assert notebooks
    readme = (root / "README.md").read_text()
    for path in notebooks:
        ipynb = nbformat.read(path, as_version=4)
        md = jupytext.read(path.with_suffix(".md"))
        for nb in (ipynb, md):
            colab = next(c for c in nb.cells if c.cell_type == "code")
            assert target.install() in colab.source, path.name
        assert [c.source for c in ipynb.cells] == [c.source for c in md.cells], path.name
        assert target.colab_prefix() + path.name in readme, f"README: no Colab link to {path.name}"
        student = target.colab_prefix("student") + path.name
        assert student in readme, f"README: no Colab link to the student copy of {path.name}"
    for name, text in texts(root).items():
        for install in INSTALLS.findall(text):
            assert install == target.install(), f"{name}: {install}"
        for slug, ref in COLAB_LINKS.findall(text):
            assert (slug, ref) == (target.slug, target.ref), f"{name}: Colab link at {slug}@{ref}"
    homepage = tomllib.loads((root / "pyproject.toml").read_text())["project"]["urls"]["Homepage"]
    assert homepage == f"https://github.com/{target.slug}"


def test_after_retarget_everything_agrees_with_course_py(retargeted_checkout):
    assert_agrees(retargeted_checkout, Target(course.REPOSITORY_SLUG, course.REF))
    assert course.pip_install_target() == Target(course.REPOSITORY_SLUG, course.REF).install()
    assert retarget(retargeted_checkout, write=False) == []  # at rest: nothing left to do


@pytest.fixture
def checkout(retargeted_checkout, tmp_path):
    copy = tmp_path / "checkout"
    shutil.copytree(retargeted_checkout, copy)
    return copy


def test_retarget_to_a_fork_and_back(checkout, retargeted_checkout, capsys):
    old = current_target(checkout)
    argv = ["retarget", "--root", str(checkout), "--slug", FORK.slug, "--ref", FORK.ref]
    assert main(argv) == 0
    changed = capsys.readouterr().out.split()
    assert {"aurora_course/course.py", "README.md", "pyproject.toml"} <= set(changed)
    for path in find_notebooks(checkout / "notebooks"):
        assert f"notebooks/{path.name}" in changed and f"notebooks/{path.stem}.md" in changed
        json.loads(path.read_text())  # still a notebook
    assert_agrees(checkout, FORK)
    leftovers = [name for name, text in texts(checkout).items() if old.slug in text]
    assert leftovers == [], f"still naming {old.slug}: {leftovers}"
    assert main(["retarget", "--root", str(checkout)]) == 0
    assert "already agrees" in capsys.readouterr().out
    # Back again: byte for byte the checkout it started from.
    assert main(["retarget", "--root", str(checkout), "--slug", old.slug, "--ref", old.ref]) == 0
    assert texts(checkout) == texts(retargeted_checkout)


def test_links_to_other_projects_are_left_alone(checkout):
    other = (
        "https://colab.research.google.com/github/jax-ml/jax/blob/main/docs/notebooks/x.ipynb\n"
        "https://colab.research.google.com/github/jax-ml/jax/blob/main/notebooks/Intro.ipynb\n"
        "aurora-helpers-extra @ git+https://github.com/jax-ml/jax.git@main\n"
        "https://github.com/jax-ml/jax and https://github.com/jax-ml/jax.git\n"
    )
    (checkout / "notes.md").write_text(other)
    argv = ["retarget", "--root", str(checkout), "--slug", FORK.slug, "--ref", FORK.ref]
    assert main(argv) == 0
    assert (checkout / "notes.md").read_text() == other


def test_check_lists_what_disagrees_and_changes_nothing(checkout, capsys):
    md = checkout / "notebooks" / "00_welcome.md"
    pinned = f"{course.REPOSITORY_SLUG}.git@{course.REF}"
    md.write_text(md.read_text().replace(pinned, f"{course.REPOSITORY_SLUG}.git@v0.0.1"))
    before = md.read_text()
    assert "@v0.0.1" in before
    assert main(["retarget", "--root", str(checkout), "--check"]) == 1
    captured = capsys.readouterr()
    assert captured.out.split() == ["notebooks/00_welcome.md"]
    assert "disagree with aurora_course/course.py" in captured.err
    assert md.read_text() == before


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--ref", "main branch", "not a git branch, tag or commit"),
        ("--ref", "v1.2; rm -rf", "not a git branch, tag or commit"),
        ("--ref", "a..b", "not a git branch, tag or commit"),
        ("--slug", "no-slash", "owner/name"),
        ("--slug", "a/b/c", "owner/name"),
    ],
)
def test_refuses_moving_or_malformed_targets(checkout, option, value, message, capsys):
    before = texts(checkout)
    assert main(["retarget", "--root", str(checkout), option, value]) == 2
    assert message in capsys.readouterr().err
    assert texts(checkout) == before


def test_outside_a_checkout_it_says_where_to_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["retarget"]) == 2
    assert "not inside a checkout of the course" in capsys.readouterr().err
    assert main(["retarget", "--root", str(tmp_path)]) == 2
    assert "holds no aurora_course/course.py" in capsys.readouterr().err
    with pytest.raises(RetargetError):
        find_root(tmp_path)
    assert find_root(NOTEBOOKS) == ROOT


def test_the_ref_exists():
    """Colab opens the notebooks and installs the helpers at course.REF: a branch, tag or commit
    this checkout has (issue 28: links at a tag the repository lacked opened nothing). Retarget to
    a workshop's tag only after creating it (`git tag workshop-2026-11`)."""
    assert (
        ah.__version__ == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    ), "pyproject.toml and aurora_helpers.__version__ differ"
    git = shutil.which("git")
    inside = git and subprocess.run(
        [git, "-C", str(ROOT), "rev-parse", "--git-dir"], capture_output=True
    )
    if not inside or inside.returncode != 0:
        pytest.skip("not a git checkout: cannot look the ref up")
    refs = (course.REF, f"refs/remotes/origin/{course.REF}", f"refs/tags/{course.REF}")
    found = [
        ref
        for ref in refs
        if subprocess.run(
            [git, "-C", str(ROOT), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
            capture_output=True,
        ).returncode
        == 0
    ]
    assert found, (
        f"course.REF is {course.REF!r}, which this checkout has neither as a branch, a tag nor a "
        "commit: create it (git tag) or run `aurora retarget --ref main`"
    )


def test_this_checkout_is_retargeted():
    """Every install cell, Colab link and slug mention agrees with aurora_course/course.py."""
    stale = [str(p.relative_to(ROOT)) for p in retarget(ROOT, write=False)]
    assert stale == [], f"run `aurora retarget`: {stale}"


def _git(root, *args):
    command = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args]
    return subprocess.run(command, cwd=root, capture_output=True, text=True, check=True).stdout


def test_a_frozen_workshop_tag_installs_itself_with_the_tested_jax(checkout, retargeted_checkout):
    """CONTRIBUTING's order: retarget with --freeze, commit, tag. Read back from the tag (what
    Colab and pip fetch), every install cell names the tag and asks for the pinned extra, which
    pins JAX to the release the workshop was tested with; --follow undoes it."""
    tag = "workshop-2099-01"
    _git(checkout, "init", "-q", "-b", "main")
    _git(checkout, "add", "-A")
    _git(checkout, "commit", "-q", "-m", "the course")
    assert main(["retarget", "--root", str(checkout), "--ref", tag, "--freeze"]) == 0
    _git(checkout, "commit", "-q", "-am", f"freeze the workshop at {tag}")
    _git(checkout, "tag", tag)
    frozen = Target(course.REPOSITORY_SLUG, tag, FROZEN_EXTRA)
    assert frozen.install().startswith("aurora-helpers[tested] @ git+https://github.com/")
    assert frozen.install().endswith(f".git@{tag}")

    def at_tag(path):
        return _git(checkout, "show", f"{tag}:{path}")

    tagged = _git(checkout, "ls-tree", "-r", "--name-only", tag).split()
    cells = [p for p in tagged if re.fullmatch(r"(notebooks|student)/[0-9A-Z]\d_\w+\.ipynb", p)]
    assert len(cells) == 2 * len(find_notebooks(NOTEBOOKS))
    for path in cells:
        first = next(c for c in nbformat.reads(at_tag(path), 4).cells if c.cell_type == "code")
        assert INSTALLS.findall(first.source) == [frozen.install()], path
    pyproject = tomllib.loads(at_tag("pyproject.toml"))
    pins = pyproject["project"]["optional-dependencies"][FROZEN_EXTRA]
    assert pins == pins_of_tested(checkout) and f"jax=={TESTED['jax']}" in pins
    assert f"jaxlib=={TESTED['jaxlib']}" in pins
    assert f'REF = "{tag}"' in at_tag("aurora_course/course.py")
    assert f"/blob/{tag}/student/" in at_tag("README.md")
    assert_agrees(checkout, frozen)
    # Following main again gives back the checkout as it was, the extra gone.
    assert main(["retarget", "--root", str(checkout), "--ref", course.REF, "--follow"]) == 0
    assert texts(checkout) == texts(retargeted_checkout)
