"""The run record: what executing one notebook gave, as ``aurora run`` writes it to
``build/summary.json`` and as its table, the index page, the website and the memory report read it."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from aurora_helpers._display import text_table


@dataclass
class NotebookRun:
    """The outcome of executing one notebook, and what the notebook is."""

    notebook: str  # the file's stem, e.g. "06_sharding"
    status: Literal["ok", "failed"]
    seconds: float
    output: str  # the executed copy
    title: str | None = None  # the title heading, e.g. "06 · Sharding"
    minutes: int | None = None  # from the notebook's time line
    html: str | None = None
    backend: str | None = None
    device_count: int | None = None
    error: str | None = None
    jax_version: str | None = None
    finished: str | None = None  # when execution ended, UTC, e.g. "2026-11-23 20:41 UTC"
    # The kernel and every process it started (notebook 08's workers), summed RSS, sampled
    # (aurora_course.peak_memory); None where /proc cannot be read.
    peak_memory_mib: float | None = None
    peak_processes: int | None = None
    cpu_seconds: float | None = None  # user + system time of the kernel and its children
    # Every exercise check the notebook ran: label -> "solved" / "not solved yet" / "wrong".
    exercises: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NotebookRun:
        """A record from its ``summary.json`` form (keys it does not know are ignored)."""
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    @property
    def peak_memory(self) -> str:
        """The peak in whole MiB for a table; ``"?"`` where it was not measured."""
        return "?" if self.peak_memory_mib is None else f"{self.peak_memory_mib:.0f}"

    @property
    def exercises_solved(self) -> str:
        """``"3/4"``: solved exercises out of those checked; ``"-"`` when none was checked."""
        if not self.exercises:
            return "-"
        solved = sum(status == "solved" for status in self.exercises.values())
        return f"{solved}/{len(self.exercises)}"

    def ran_on(self) -> str:
        """One line: JAX version, backend, device count, seconds and date of this run."""
        parts = [
            f"JAX {self.jax_version or '?'}",
            f"backend `{self.backend or '?'}`",
            f"{self.device_count if self.device_count is not None else '?'} device(s)",
            f"{self.seconds:.1f} s",
            f"executed {self.finished or '?'}",
        ]
        return " · ".join(parts)


@dataclass
class CourseRun:
    """Every notebook's outcome, in course order."""

    runs: list[NotebookRun] = field(default_factory=list)
    build_dir: str = "build"
    site: str | None = None  # the website's entry page, when it was built
    site_seconds: float | None = None
    site_warnings: list[str] = field(default_factory=list)
    site_error: str | None = None

    @property
    def ok(self) -> bool:
        return all(r.status == "ok" for r in self.runs) and self.site_error is None

    def table(self) -> str:
        rows = [
            (
                r.notebook,
                r.status,
                f"{r.seconds:.1f}",
                r.peak_memory,
                r.backend or "?",
                r.device_count or "?",
                r.exercises_solved,
            )
            for r in self.runs
        ]
        text = text_table(
            ("notebook", "status", "seconds", "peak MiB", "backend", "devices", "exercises"), rows
        )
        for r in self.runs:
            if r.error:
                text += f"\n\n{r.notebook} failed: {r.error}\n  executed copy: {r.output}"
        if self.site_error:
            text += f"\n\nthe course website was not built: {self.site_error}"
        if self.site_warnings:
            shown = "\n  ".join(self.site_warnings[:5])
            text += f"\n\nthe course website built with {len(self.site_warnings)} Sphinx warning(s):\n  {shown}"
        return text


SUMMARY_FILE = "summary.json"


def write_summary(build_dir: Path, runs: list[NotebookRun]) -> Path:
    """``build_dir/summary.json``: every run record, in order."""
    path = build_dir / SUMMARY_FILE
    path.write_text(json.dumps([asdict(r) for r in runs], indent=2), encoding="utf-8")
    return path


def read_summary(build_dir: Path) -> list[NotebookRun]:
    """The run records of ``build_dir/summary.json``."""
    data = json.loads((build_dir / SUMMARY_FILE).read_text(encoding="utf-8"))
    return [NotebookRun.from_dict(item) for item in data]
