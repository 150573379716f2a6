"""The grader's side inside a learner's kernel: seal the grade log so a learner cannot forge it.

``aurora grade`` (:mod:`aurora_course.grading`) runs the course's own notebook with the learner's
solution cells in it. It inserts three kinds of cells of its own:

* first, ``_aurora_grade_seal = make_seal()``: reads the run's secret token from the file named by
  ``$AURORA_GRADE_TOKEN``, deletes that file, removes the variable from the environment, and
  remembers the checking code as it is now (:func:`snapshot`);
* after every course code cell, ``_aurora_grade_seal(index)``: reads the grade-log lines written
  since the previous seal, notes whether the checking code is still the original and whether the
  log's earlier lines are unchanged, and displays that record with an HMAC of it under
  :data:`SEAL_MIME`;
* last, ``_aurora_grade_seal(-1)``: the same, at the end of the run.

The grader accepts a record only with a valid HMAC, so a line a learner prints or displays cannot
pass for one. Names starting with ``_aurora`` are reserved: the grader rejects learner cells that
use them.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib
import json
import os
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aurora_helpers.contract import CHECK_LOG_ENV_VAR, MIME_PREFIX

#: Environment variable naming the file that holds the run's secret token (deleted once read).
TOKEN_ENV_VAR = "AURORA_GRADE_TOKEN"
#: Environment variable naming the grade log, one JSON line per ``ah.check`` call.
LOG_ENV_VAR = CHECK_LOG_ENV_VAR
#: MIME type of a seal record in the executed notebook.
SEAL_MIME = f"{MIME_PREFIX}grade-seal+json"
#: The modules whose functions and classes must stay as they were when the seal was made.
WATCHED_MODULES = (
    "aurora_helpers",
    "aurora_helpers.contract",
    "aurora_helpers.checks.exercises",
    "aurora_helpers.checks.routes",
)

Snapshot = dict[tuple[str, str], tuple[Any, ...]]


def _fingerprint(obj: Any) -> tuple[Any, ...]:
    """What must not change about a function or class: identity, code, defaults, members."""
    if isinstance(obj, types.FunctionType):
        code = obj.__code__
        return (
            id(obj),
            id(code),
            code.co_code,
            repr(code.co_consts),
            code.co_names,
            repr(obj.__defaults__),
            repr(obj.__kwdefaults__),
            id(obj.__globals__),
        )
    members = tuple(sorted((k, id(v)) for k, v in vars(obj).items()))
    return (id(obj), members)


def snapshot() -> Snapshot:
    """Fingerprints of every function and class in :data:`WATCHED_MODULES`, and of ``ah.check``."""
    import aurora_helpers
    import aurora_helpers.checks.exercises

    taken: Snapshot = {
        ("sys.modules", name): (id(module),)
        for name in WATCHED_MODULES
        if (module := sys.modules.get(name)) is not None
    }
    for name in WATCHED_MODULES:
        module = sys.modules.get(name)
        if module is None:
            continue
        for attr, value in list(vars(module).items()):
            if isinstance(value, (types.FunctionType, type)):
                taken[(name, attr)] = _fingerprint(value)
    # ``ah.check`` must be the exercises module's check, and that one the original.
    taken[("aurora_helpers", "check")] = _fingerprint(aurora_helpers.check)
    taken[("aurora_helpers.checks.exercises", "check")] = _fingerprint(
        aurora_helpers.checks.exercises.check
    )
    return taken


def changed(before: Snapshot) -> list[str]:
    """The watched names whose object or code differs from ``before``."""
    now = snapshot()
    return sorted(
        f"{module}.{name}"
        for key in before
        if now.get(key) != before[key]
        for module, name in [key]
    )


def sign(token: bytes, body: str) -> str:
    """The HMAC-SHA256 of ``body`` under ``token``, in hex."""
    return hmac.new(token, body.encode("utf-8"), hashlib.sha256).hexdigest()


class _Seal:
    """Seals the grade log after a cell: new lines, integrity of the checking code, an HMAC."""

    def __init__(self, token: bytes, log: Path) -> None:
        self._token, self._log = token, log
        self._before = snapshot()
        self._offset, self._digest, self._seq = 0, hashlib.sha256(b"").hexdigest(), 0

    def record(self, cell: int) -> dict[str, Any]:
        """The lines written since the last record, whether anything was tampered with."""
        data = self._log.read_bytes() if self._log.exists() else b""
        prefix_ok = hashlib.sha256(data[: self._offset]).hexdigest() == self._digest
        end = max(data.rfind(b"\n") + 1, self._offset)  # whole lines only
        record = {
            "cell": cell,
            "seq": self._seq,
            "lines": data[self._offset : end].decode("utf-8", "replace").splitlines(),
            "changed": changed(self._before),
            "prefix_ok": prefix_ok,
        }
        self._offset, self._digest = end, hashlib.sha256(data[:end]).hexdigest()
        self._seq += 1
        return record

    def __call__(self, cell: int) -> None:
        from IPython.display import display

        body = json.dumps(self.record(cell), sort_keys=True)
        display({SEAL_MIME: {"body": body, "mac": sign(self._token, body)}}, raw=True)


def make_seal() -> Callable[[int], None]:
    """Read and delete the run's token; return the function that seals the log after a cell.

    Raises:
        RuntimeError: ``$AURORA_GRADE_TOKEN`` or ``$AURORA_GRADE_LOG`` is not set (not under
            ``aurora grade``).
    """
    token_file = os.environ.pop(TOKEN_ENV_VAR, None)
    log_name = os.environ.get(LOG_ENV_VAR)
    if not token_file or not log_name:
        raise RuntimeError(
            f"the grade seal runs only under `aurora grade` (${TOKEN_ENV_VAR} unset)"
        )
    token = Path(token_file).read_bytes()
    Path(token_file).unlink()
    for name in WATCHED_MODULES:  # watch them from now on, even those a later cell would import
        importlib.import_module(name)
    return _Seal(token, Path(log_name))
