"""Shared test set-up: 8 simulated CPU devices for in-process tests, a fresh-JAX runner, and the
order in which pytest-xdist's workers take the tests (the longest notebook runs first)."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import pytest

import aurora_helpers as ah

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"

# In-process tests share one JAX backend. Give it 8 CPU devices and start it here, so that every
# test file sees the same backend whichever file runs first, alone or in any order (a backend that
# is configured but not started would take the count of the first test that calls setup_devices).
ah.setup_devices(8)
IN_PROCESS_DEVICES = len(jax.devices("cpu"))
assert IN_PROCESS_DEVICES == 8, f"the test process started JAX with {IN_PROCESS_DEVICES} devices"


def run_python(
    code: str,
    env: dict[str, str] | None = None,
    timeout: float = 120,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter (a fresh JAX backend) and capture its output."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=cwd,
    )


def load_script(name: str):
    """scripts/NAME (a Python program without the .py suffix) imported as a module."""
    loader = importlib.machinery.SourceFileLoader(
        f"script_{name.replace('-', '_')}", str(ROOT / "scripts" / name)
    )
    spec = importlib.util.spec_from_loader(loader.name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[loader.name] = module  # dataclasses look their module up there
    loader.exec_module(module)
    return module


@pytest.fixture
def fresh_python():
    return run_python


@pytest.fixture(scope="session")
def retargeted_checkout(tmp_path_factory):
    """A copy of this checkout after `aurora retarget`: every link and Colab install cell as
    `aurora_course/course.py` says they must be (the real files may lag until someone runs it)."""
    import shutil

    from aurora_course.cli import main
    from aurora_course.retarget import course_files

    copy = tmp_path_factory.mktemp("checkout")
    for path in course_files(ROOT):
        if path.is_file():
            (copy / path.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, copy / path.relative_to(ROOT))
    assert main(["retarget", "--root", str(copy)]) == 0
    return copy


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Notebook runs first, longest first: two workers then finish together instead of one of
    them starting a minute-long notebook when the other has nothing left (after pytest-randomly
    shuffled the rest, which it does before this hook runs)."""

    def weight(item: pytest.Item) -> tuple[int, str]:
        if item.get_closest_marker("notebooks") is None:
            return (0, "")
        family = 2 if item.name.startswith("test_twice") else 1
        path = getattr(item, "callspec", None) and item.callspec.params.get("path")
        # The course's later notebooks are its longest (08, 09, 10, A1: 30 s budgets).
        return (family, Path(path).name if path else "")

    items.sort(key=weight, reverse=True)
