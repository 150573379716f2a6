"""The contract between the helpers and the course's tools: names and formats, in one place.

Notebooks run the helpers; the course's tools (``aurora_course``: ``aurora run``, ``aurora grade``,
the tests) run notebooks and read what they leave. What passes between the two is defined here
and nowhere else:

- the environment variables a tool sets for a notebook (:data:`DEVICES_ENV_VAR`,
  :data:`STRICT_ENV_VAR`, :data:`CHECKS_ENV_VAR`, :data:`CHECK_LOG_ENV_VAR`) and how they are read;
- the MIME types of outputs meant for tools, not readers (:data:`SETUP_MIME`, under
  :data:`MIME_PREFIX`, which the website drops);
- the check log: one JSON line per ``ah.check`` call (:class:`CheckRecord`), written by
  :func:`log_check` and read by :class:`CheckLogReader` or :func:`read_check_log`.

It imports nothing heavy (no JAX), so that the tools and ``python -m aurora_helpers.colab`` can
use it before JAX is imported.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

#: Simulated CPU devices for every notebook, whether it runs under ``aurora run``, ``aurora
#: grade``, the tests or a user's JupyterLab.
DEVICES_ENV_VAR = "AURORA_DEVICES"
#: Device count used when neither an argument nor the environment variable gives one.
DEFAULT_SIMULATED_DEVICES = 8
#: When set (and not ``0`` or ``false``), deprecation warnings raised by notebook code or by the
#: helpers become errors (the tests set it), so the course cannot silently teach a deprecated API.
STRICT_ENV_VAR = "AURORA_STRICT"
#: ``raise``: a wrong exercise answer raises ``ExerciseFailed`` (the course's own tests, so a broken
#: solution fails them). Anything else, ``report`` included: it is reported as a "wrong" result.
CHECKS_ENV_VAR = "AURORA_CHECKS"
#: A file to which every ``ah.check`` appends its result as one JSON line (:class:`CheckRecord`).
CHECK_LOG_ENV_VAR = "AURORA_GRADE_LOG"

#: Outputs whose MIME type starts with this are for the tools; the website drops them.
MIME_PREFIX = "application/vnd.aurora."
#: The set-up cell's summary (``ah.setup_notebook()``), which ``aurora run`` reads back.
SETUP_MIME = f"{MIME_PREFIX}setup+json"

Status = Literal["solved", "not solved yet", "wrong"]
#: Every status a check can report, best first.
STATUSES: tuple[Status, ...] = get_args(Status)


class DeviceSetupError(RuntimeError):
    """The requested device count cannot be applied (bad value, or JAX has already started)."""


def requested_device_count(n: int | None = None) -> int:
    """The device count to simulate: ``n`` if given, else ``$AURORA_DEVICES``, else 8.

    Raises:
        DeviceSetupError: the count is not a positive whole number; the message says how to set it.
    """
    source = "argument"
    if n is None:
        raw = os.environ.get(DEVICES_ENV_VAR, "").strip()
        if not raw:
            return DEFAULT_SIMULATED_DEVICES
        source = f"${DEVICES_ENV_VAR}"
        try:
            n = int(raw)
        except ValueError:
            raise DeviceSetupError(
                f"{source}={raw!r} is not a whole number. Set it to a positive integer, "
                f"for example `export {DEVICES_ENV_VAR}=8`."
            ) from None
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise DeviceSetupError(
            f"the device count from the {source} must be a positive integer, got {n!r}."
        )
    return n


def strict_mode() -> bool:
    """Whether ``$AURORA_STRICT`` asks for strict mode (set, and not ``0`` or ``false``)."""
    return os.environ.get(STRICT_ENV_VAR, "").strip() not in ("", "0", "false", "False")


def checks_raise() -> bool:
    """Whether ``$AURORA_CHECKS`` asks a wrong answer to raise (``raise``)."""
    return os.environ.get(CHECKS_ENV_VAR, "").strip().lower() == "raise"


@dataclass(frozen=True)
class CheckRecord:
    """One line of the check log: which exercise, its status, and what was wrong."""

    exercise: str
    status: Status
    detail: str = ""

    def to_line(self) -> str:
        """The record as one JSON line (no newline)."""
        return json.dumps({"exercise": self.exercise, "status": self.status, "detail": self.detail})

    @classmethod
    def from_line(cls, line: str) -> CheckRecord:
        """Parse one line of the log.

        Raises:
            ValueError: the line is not a record :meth:`to_line` could have written.
        """
        try:
            data = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"not JSON: {line[:80]!r}") from err
        if not isinstance(data, dict) or set(data) != {"exercise", "status", "detail"}:
            raise ValueError(f"not a check record: {line[:80]!r}")
        exercise, status, detail = data["exercise"], data["status"], data["detail"]
        if not isinstance(exercise, str) or not isinstance(detail, str) or status not in STATUSES:
            raise ValueError(f"not a check record: {line[:80]!r}")
        return cls(exercise, status, detail)


def log_check(record: CheckRecord) -> None:
    """Append ``record`` to the check log named by ``$AURORA_GRADE_LOG``; nothing when it is unset."""
    path = os.environ.get(CHECK_LOG_ENV_VAR)
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(record.to_line() + "\n")


class CheckLogReader:
    """Reads a check log as it grows: each :meth:`new` returns the records since the last call.

    Only whole lines count (a check writing its line at that moment is read next time); lines
    that are not records are skipped.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0

    def new(self) -> list[CheckRecord]:
        data = self.path.read_bytes() if self.path.exists() else b""
        end = max(data.rfind(b"\n") + 1, self.offset)
        lines = data[self.offset : end].decode("utf-8", "replace").splitlines()
        self.offset = end
        records = []
        for line in lines:
            try:
                records.append(CheckRecord.from_line(line))
            except ValueError:
                continue
        return records


def read_check_log(path: Path) -> list[CheckRecord]:
    """Every record of the check log at ``path``, in order (none when it does not exist)."""
    return CheckLogReader(path).new()


def latest_by_exercise(records: list[CheckRecord]) -> dict[str, CheckRecord]:
    """The last record of each exercise, in the order the exercises were first checked."""
    latest: dict[str, CheckRecord] = {}
    for record in records:
        latest[record.exercise] = record
    return latest
