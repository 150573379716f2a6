"""Point every link and Colab install cell of the course at one repository and one git ref.

Colab opens a notebook straight from GitHub, and the notebook's first cell pip-installs the helpers
from GitHub too. Both must name the same repository and the same ref (``main``, a tag or a commit
that exists there): a notebook opened at one ref that installs the helpers of another breaks as
soon as the two differ. A workshop that must not change under the room freezes a tag and
retargets to it. ``aurora_course/course.py`` holds the slug and the ref
(the one place they are set); :func:`retarget` rewrites those two lines and then every file of the
checkout that names them: each notebook's install cell (the ``.md`` and the ``.ipynb`` of a pair
get the same edit, so they stay in sync), the README's Colab links, ``pyproject.toml``'s homepage,
and any other mention of the old slug. It edits text in place and touches nothing else in a file.

Freezing a workshop (``--freeze``, with a ref that names the workshop's tag) also pins what the
install cells get: ``pyproject.toml`` gains a ``tested`` extra with JAX, jaxlib, Flax, Optax and
Orbax at the releases of ``aurora_helpers/_tested.py``, and every install cell asks for it
(``aurora-helpers[tested] @ git+...@workshop-2026-11``), so Colab and an online install get the
JAX the workshop was tested with, not the newest the range admits. The order is retarget, commit,
tag: the tagged commit must already name the tag (CONTRIBUTING, *Releases and forks*).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .course import colab_url, pip_install_target

#: The module that holds the slug and the ref, relative to the repository root.
COURSE_MODULE = Path("aurora_course") / "course.py"

_SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}$")
#: A branch or tag name (``main``, ``v1.2``, ``workshop-2026-11``) or a commit (7 to 40 hex
#: digits): letters, digits and ``._/-``, as git allows, with no ``..`` and no leading ``-``.
_REF = re.compile(r"^(?!.*\.\.)(?!.*//)[A-Za-z0-9][A-Za-z0-9._/-]{0,99}(?<![./])$")
_SLUG_LINE = re.compile(r'^REPOSITORY_SLUG = "(?P<value>[^"\n]*)"$', re.M)
_REF_LINE = re.compile(r'^REF = "(?P<value>[^"\n]*)"$', re.M)
_EXTRA_LINE = re.compile(r'^INSTALL_EXTRA = "(?P<value>[^"\n]*)"$', re.M)
#: The extra a frozen workshop installs, and the distributions it pins (``_tested.TESTED``).
FROZEN_EXTRA = "tested"
TESTED_MODULE = Path("aurora_helpers") / "_tested.py"
_EXTRA_ENTRY = re.compile(rf"^{FROZEN_EXTRA} = \[[^\]\n]*\]\n", re.M)
#: The install target in a Colab cell, whatever repository, ref and extra it names now.
_INSTALL = re.compile(
    r"aurora-helpers(?:\[[\w,-]+\])? @ git\+https://github\.com/[\w.-]+/[\w.-]+?\.git@[\w.+-]*\w"
)
#: A Colab link to one of the course's notebooks or its student copy
#: (``notebooks/NN_name.ipynb``, ``student/NN_name.ipynb``), whatever repository and ref it names
#: now; links to other projects' notebooks are left alone.
_COLAB = re.compile(
    r"https://colab\.research\.google\.com/github/[\w.-]+/[\w.-]+/blob/[\w.+/-]+?/"
    r"(?P<folder>notebooks|student)/(?=[0-9A-Z]\d_[a-z0-9_]+\.ipynb)"
)
#: Folders never searched when the checkout is not a git repository (or git is missing).
_SKIP_DIRS = {".git", "build", "node_modules", "__pycache__", ".ipynb_checkpoints"}
_SKIP_PREFIXES = (".venv", ".mypy_cache", ".ruff_cache", ".pytest_cache", "wheelhouse")
_MAX_BYTES = 2_000_000  # larger files are data or builds, not course text


class RetargetError(ValueError):
    """The slug or ref is malformed, or the folder is not a checkout of the course."""


@dataclass(frozen=True)
class Target:
    """Where the course points: a GitHub ``owner/name`` and a fixed git ref."""

    slug: str
    ref: str
    extra: str = ""  # FROZEN_EXTRA on a frozen workshop ref

    def install(self) -> str:
        """The requirement the Colab cell installs."""
        return pip_install_target(self.slug, self.ref, self.extra)

    def colab_prefix(self, folder: str = "notebooks") -> str:
        """The start of every Colab link to a notebook of the course (or, with ``folder``
        ``student``, to a student copy)."""
        return colab_url("", self.slug, self.ref, folder)


def validate(slug: str, ref: str, extra: str = "") -> Target:
    """``Target(slug, ref, extra)``, or :class:`RetargetError` saying what a slug and a ref look
    like."""
    if not _SLUG.match(slug):
        raise RetargetError(f"{slug!r} is not a GitHub repository: write it as owner/name")
    if not _REF.match(ref):
        raise RetargetError(
            f"{ref!r} is not a git branch, tag or commit name (letters, digits and ._/-, e.g. "
            "main, v0.2.0, workshop-2026-11 or 7-40 hex digits)"
        )
    if extra not in ("", FROZEN_EXTRA):
        raise RetargetError(f"the install extra must be empty or {FROZEN_EXTRA!r}, not {extra!r}")
    return Target(slug, ref, extra)


def find_root(start: Path) -> Path:
    """The checkout of the course that holds ``start`` (the folder with ``aurora_course/course.py``)."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / COURSE_MODULE).is_file() and (folder / "notebooks").is_dir():
            return folder
    raise RetargetError(
        f"{start} is not inside a checkout of the course (no folder above it holds "
        f"{COURSE_MODULE} and notebooks/): run `aurora retarget` in the repository, or pass --root"
    )


def current_target(root: Path) -> Target:
    """The slug and ref that ``course.py`` in the checkout ``root`` sets now."""
    text = (root / COURSE_MODULE).read_text(encoding="utf-8")
    slug, ref = _SLUG_LINE.findall(text), _REF_LINE.findall(text)
    extra = _EXTRA_LINE.findall(text)
    if len(slug) != 1 or len(ref) != 1 or len(extra) != 1:
        raise RetargetError(
            f'{root / COURSE_MODULE} must set REPOSITORY_SLUG = "owner/name", REF = "..." and '
            'INSTALL_EXTRA = "..." once each, at the start of a line'
        )
    return Target(slug[0], ref[0], extra[0])


def pins_of_tested(root: Path) -> list[str]:
    """``["jax==0.12.1", ...]``: the releases ``aurora_helpers/_tested.py`` of ``root`` records
    (read as text: the checkout's, not the installed package's)."""
    tree = ast.parse((root / TESTED_MODULE).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "TESTED" for t in node.targets
        ):
            tested = ast.literal_eval(node.value)
            return [f"{name}=={version}" for name, version in tested.items()]
    raise RetargetError(f"{root / TESTED_MODULE} sets no TESTED table")


def _pyproject_text(text: str, root: Path, new: Target) -> str:
    """``pyproject.toml`` with the ``tested`` extra when ``new`` is frozen, without it when not."""
    text = _EXTRA_ENTRY.sub("", text)
    if not new.extra:
        return text
    pins = ", ".join(f'"{pin}"' for pin in pins_of_tested(root))
    header = "[project.optional-dependencies]\n"
    if header not in text:
        raise RetargetError("pyproject.toml has no [project.optional-dependencies] table")
    entry = f"{FROZEN_EXTRA} = [{pins}]\n"
    return text.replace(header, header + entry, 1)


def rewrite(text: str, old_slug: str, new: Target) -> str:
    """``text`` with every install target, Colab link and mention of ``old_slug`` pointing at ``new``."""
    text = _INSTALL.sub(lambda _: new.install(), text)
    text = _COLAB.sub(lambda m: new.colab_prefix(m.group("folder")), text)
    if old_slug != new.slug:
        # The old slug as a whole word: not part of a longer name, though ``.git`` may follow it.
        mention = re.compile(rf"(?<![\w.-]){re.escape(old_slug)}(?![\w-]|\.(?!git\b)\w)")
        text = mention.sub(new.slug, text)
    return text


def _course_module_text(text: str, new: Target) -> str:
    text = _SLUG_LINE.sub(f'REPOSITORY_SLUG = "{new.slug}"', text)
    text = _EXTRA_LINE.sub(f'INSTALL_EXTRA = "{new.extra}"', text)
    return _REF_LINE.sub(f'REF = "{new.ref}"', text)


def _skipped(name: str) -> bool:
    return name in _SKIP_DIRS or name.startswith(_SKIP_PREFIXES)


def course_files(root: Path) -> list[Path]:
    """The checkout's files that may name the repository: git's list when ``root`` is a git
    checkout (tracked and untracked, ignored ones left out), else every file outside virtual
    environments, caches and build folders."""
    try:
        listed = subprocess.run(
            [
                "git",
                "-C",
                str(root),
                "ls-files",
                "-z",
                "--cached",
                "--others",
                "--exclude-standard",
            ],
            capture_output=True,
            check=True,
            text=True,
        ).stdout
        inside = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--show-toplevel"],
            capture_output=True,
            check=True,
            text=True,
        ).stdout.strip()
        if Path(inside).resolve() == root.resolve():
            return sorted(root / name for name in listed.split("\0") if name)
    except (OSError, subprocess.CalledProcessError):
        pass  # no git, or not a git checkout: walk the folder
    found: list[Path] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not _skipped(d))
        found.extend(Path(folder) / f for f in files)
    return sorted(found)


def _read_text(path: Path) -> str | None:
    try:
        if not path.is_file() or path.is_symlink() or path.stat().st_size > _MAX_BYTES:
            return None
        return path.read_bytes().decode("utf-8")  # bytes: line endings stay as they are
    except (UnicodeDecodeError, OSError):
        return None  # a binary file (a picture, a wheel) names no repository


def retarget(
    root: Path,
    slug: str | None = None,
    ref: str | None = None,
    *,
    freeze: bool | None = None,
    write: bool = True,
) -> list[Path]:
    """Point the checkout ``root`` at ``slug`` and ``ref`` (each defaults to what ``course.py``
    says now), frozen (``freeze``: install cells ask for the ``tested`` extra, which
    ``pyproject.toml`` gains) or following (``False``) or as it is (``None``); returns the files
    changed, or, with ``write=False``, the files that would change.

    Raises:
        RetargetError: a malformed slug or ref, or ``root`` is not a checkout of the course.
    """
    root = root.resolve()
    if not (root / COURSE_MODULE).is_file():
        raise RetargetError(f"{root} holds no {COURSE_MODULE}: pass the course's repository root")
    old = current_target(root)
    extra = old.extra if freeze is None else (FROZEN_EXTRA if freeze else "")
    new = validate(slug or old.slug, ref or old.ref, extra)
    changed = []
    for path in course_files(root):
        text = _read_text(path)
        if text is None:
            continue
        updated = rewrite(text, old.slug, new)
        if path.resolve() == (root / COURSE_MODULE).resolve():
            updated = _course_module_text(updated, new)
        if path.resolve() == (root / "pyproject.toml").resolve():
            updated = _pyproject_text(updated, root, new)
        if updated != text:
            changed.append(path)
            if write:
                path.write_bytes(updated.encode("utf-8"))
    return changed
