"""The Python versions the project declares, and the ones its runs use, kept in step.

pyproject.toml declares the oldest Python (requires-python); `make test-oldest` must run the
oldest JAX on exactly that Python, in CI and in the GitHub workflow, and ruff must check the code
against it. The newest JAX (and so the pins) needs Python 3.12.
"""

from __future__ import annotations

import re
import tomllib

from .conftest import ROOT


def _declared_minor() -> int:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    match = re.fullmatch(r">=3\.(\d+)", project["project"]["requires-python"])
    assert match, "requires-python must read '>=3.N'"
    return int(match[1])


def test_oldest_run_uses_the_declared_oldest_python():
    minor = _declared_minor()
    makefile = (ROOT / "Makefile").read_text()
    assert f"OLDEST_PYTHON_MINOR := {minor}\n" in makefile
    assert "PYTHON_MINOR=$(OLDEST_PYTHON_MINOR) scripts/make-venv $(OLD_VENV)" in makefile


def test_ruff_checks_for_the_declared_oldest_python():
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]
    assert tool["ruff"]["target-version"] == f"py3{_declared_minor()}"


def test_the_workflow_has_that_python_for_the_oldest_run():
    """Every job gets the declared oldest Python and 3.12 (make test-oldest picks the first)."""
    workflow = (ROOT / ".github" / "workflows" / "ci.yml").read_text()
    versions = re.search(r"python-version: \|\n((?:\s+3\.\d+\n)+)", workflow)
    assert versions and f"3.{_declared_minor()}" in versions[1].split() and "3.12" in versions[1]


def test_readme_names_the_same_pythons():
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert f"`jax>=0.9.0,<0.13`, on Python 3.{_declared_minor()} and newer" in readme
    assert f"0.9.0 on Python 3.{_declared_minor()} (`make test-oldest`)" in readme


def test_the_pins_are_for_the_python_that_make_setup_picks_first():
    pins = (ROOT / "ci" / "tested.txt").read_text()
    assert "on Python 3.12:" in pins.splitlines()[0]
    find_python = (ROOT / "scripts" / "find-python").read_text()
    assert 'python3.12 python3.13 python3"' in find_python  # 3.12 is tried before any other
    assert '[ "$minor" = 11 ]' in (ROOT / "scripts" / "make-venv").read_text()
