"""Shared test set-up: 8 simulated CPU devices for in-process tests, and a fresh-JAX runner."""

from __future__ import annotations

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


def execute_notebook(nb, folder: Path):
    """Execute ``nb`` in place in a fresh python3 kernel started in ``folder``; errors become outputs."""
    from nbclient import NotebookClient

    NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(folder)}},
    ).execute()
    return nb


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
