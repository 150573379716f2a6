"""Who handed a file in, read the way learning-management systems name their downloads.

An instructor grades what Canvas's or Moodle's "Download all submissions" gives, or a folder per
learner, or files named ``alice_06_sharding.ipynb``. The gradebook needs one row per learner,
keyed as the LMS will import it, so the name must be read, not guessed from the file name:

- **Canvas**: ``smithbob_340934_208490284_06_sharding.ipynb`` (the sortable name squeezed to
  lowercase letters, the user's Canvas ID, the file's attachment ID, the uploaded file name),
  with ``_LATE_`` after the name for a late one and ``-1``, ``-2`` added to the uploaded name when
  a learner hands in a file of the same name again. The user ID is what Canvas's gradebook import
  matches on; a larger attachment ID is a later upload.
- **Moodle**: ``John Smith_123456_assignsubmission_file_06_sharding.ipynb``, or a folder
  ``John Smith_123456_assignsubmission_file_`` holding ``06_sharding.ipynb`` ("download
  submissions in folders"): the full name and the participant number, which Moodle's grading
  worksheet names ``Participant 123456``.
- **Otherwise**: the folder the file was collected in, else the file name without the course
  notebook's name or number and without a browser's copy suffix (``alice_06 (1).ipynb``:
  ``alice``, the second copy).

:func:`identify` returns an :class:`Identity`: the key rows merge on, the name to show, the LMS's
ID, and :attr:`Identity.newness`, which orders two copies of one notebook from one learner (the
LMS's upload order, then the file's modification time, then the copy number): the newest counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Source = Literal["canvas", "moodle", "folder", "file"]

_MOODLE = re.compile(r"^(?P<name>.+?)_(?P<id>\d+)_assignsubmission_[a-z]+_?(?P<rest>.*)$")
_CANVAS = re.compile(
    r"^(?P<name>[a-z0-9-]+?)_(?:(?P<late>LATE)_)?(?P<id>\d+)_(?P<attachment>\d+)_(?P<rest>.+)$"
)
#: A browser's or a file manager's copy: ``name (1)``, ``name(2)``, ``name - Copy``.
_COPY = re.compile(r"\s*(?:\((?P<n>\d+)\)|- Copy(?: \((?P<m>\d+)\))?)$")
#: Canvas's suffix on a re-uploaded file of the same name: ``06_sharding-1``.
_CANVAS_AGAIN = re.compile(r"-(?P<n>\d+)$")


@dataclass(frozen=True)
class Identity:
    """One learner as read from a submission's path."""

    key: str  # what the gradebook's rows merge on: ``canvas:340934``, ``moodle:123456``, ``alice``
    name: str  # what to show: ``smithbob``, ``John Smith``, ``alice``
    source: Source
    lms_id: str = ""  # Canvas's user ID or Moodle's participant number
    late: bool = False  # Canvas marked the upload late
    #: Orders copies of one notebook by one learner: (LMS upload order, mtime, copy number).
    newness: tuple[int, float, int] = (0, 0.0, 0)


def _copy_number(stem: str) -> tuple[str, int]:
    """``("alice_06", 1)`` for ``alice_06 (1)``; ``(stem, 0)`` when it is no copy."""
    found = _COPY.search(stem)
    if not found:
        return stem, 0
    return stem[: found.start()], int(found.group("n") or found.group("m") or 1)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _without_notebook(stem: str, notebook: str | None) -> str:
    """``alice`` from ``alice_06_sharding``, ``alice_06`` or ``06-alice``: the file name less the
    course notebook's name or its number, and the separators around it."""
    if notebook:
        number = notebook.split("_", 1)[0]
        for token in (notebook, number):
            pattern = rf"(?:^|(?<=[\s_.()-])){re.escape(token)}(?=$|[\s_.()-])"
            if re.search(pattern, stem):
                stem = re.sub(pattern, " ", stem, count=1)
                break
    return re.sub(r"[\s_.()-]+", " ", stem).strip().replace(" ", "_")


def identify(path: Path, folder: str, notebook: str | None) -> Identity:
    """Who handed ``path`` in (``folder``: the first folder below the one given to ``aurora
    grade``, ``""`` for none; ``notebook``: the course notebook it was matched to, if any)."""
    mtime = _mtime(path)
    for name in (folder, path.name):
        moodle = _MOODLE.match(name) if name else None
        if moodle:
            copy = _copy_number(path.stem)[1]
            return Identity(
                f"moodle:{moodle['id']}",
                moodle["name"].strip(),
                "moodle",
                moodle["id"],
                newness=(0, mtime, copy),
            )
    canvas = _CANVAS.match(path.name)
    if canvas:
        uploaded, copy = _copy_number(Path(canvas["rest"]).stem)
        again = _CANVAS_AGAIN.search(uploaded)
        return Identity(
            f"canvas:{canvas['id']}",
            canvas["name"],
            "canvas",
            canvas["id"],
            late=bool(canvas["late"]),
            newness=(int(canvas["attachment"]), mtime, copy + (int(again["n"]) if again else 0)),
        )
    if folder:
        return Identity(folder, folder, "folder", newness=(0, mtime, _copy_number(path.stem)[1]))
    stem, copy = _copy_number(path.stem)
    name = _without_notebook(stem, notebook) or stem
    return Identity(name, name, "file", newness=(0, mtime, copy))
