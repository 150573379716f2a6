"""Facts about the course itself: where it lives, which notebooks it has, how Colab opens them."""

from __future__ import annotations

import re
from pathlib import Path

#: The course's GitHub repository, ``owner/name``. The one place it is set: the README's Colab
#: links and each notebook's Colab install cell must use it (``tests/test_course.py`` checks).
REPOSITORY_SLUG = "project-aurora/aurora-course"
#: The branch Colab links and the Colab install cell point at.
BRANCH = "main"

_NOTEBOOK_NAME = re.compile(r"^(?P<number>[0-9A-Z]\d)_[a-z0-9_]+\.ipynb$")


def colab_url(notebook: str) -> str:
    """The 'Open in Colab' address of ``notebooks/<notebook>`` on GitHub."""
    return f"https://colab.research.google.com/github/{REPOSITORY_SLUG}/blob/{BRANCH}/notebooks/{notebook}"


def pip_install_target() -> str:
    """What Colab pip-installs to get the helpers from GitHub."""
    return f"aurora-helpers @ git+https://github.com/{REPOSITORY_SLUG}.git@{BRANCH}"


def find_notebooks(directory: Path) -> list[Path]:
    """The course's notebooks in ``directory`` (``NN_name.ipynb``), in course order."""
    return sorted(p for p in directory.glob("*.ipynb") if _NOTEBOOK_NAME.match(p.name))


def notebook_number(path: Path) -> str:
    """``"03"`` for ``03_devices.ipynb``."""
    match = _NOTEBOOK_NAME.match(path.name)
    if match is None:
        raise ValueError(f"{path.name} is not named like a course notebook (NN_name.ipynb)")
    return match.group("number")


def select_notebooks(notebooks: list[Path], only: list[str] | None) -> list[Path]:
    """The notebooks whose number is in ``only`` (``["03", "5"]``); all of them if ``only`` is empty.

    Raises:
        ValueError: a requested number matches no notebook; the message lists those that exist.
    """
    if not only:
        return notebooks
    wanted = {w.zfill(2) if w.isdigit() else w.upper() for w in only}
    numbers = {notebook_number(p): p for p in notebooks}
    missing = sorted(wanted - numbers.keys())
    if missing:
        raise ValueError(
            f"no notebook numbered {', '.join(missing)}; the course has {', '.join(sorted(numbers))}"
        )
    return [p for p in notebooks if notebook_number(p) in wanted]
