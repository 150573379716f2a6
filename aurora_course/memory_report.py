"""The per-notebook memory and CPU table of the JupyterHub page, made from an ``aurora run``.

``aurora run --memory-report docs/jupyterhub.md`` measures every notebook (see
:mod:`aurora_course.peak_memory`) and writes this table between the page's two marker lines, so
the page's figures always come from a run and say which run. A file without the markers (or a
new one) receives the table alone.
"""

from __future__ import annotations

import os
import platform
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .records import CourseRun

BEGIN = "<!-- memory-table: begin (written by `aurora run --memory-report`; do not edit) -->"
END = "<!-- memory-table: end -->"


def memory_table(course: CourseRun) -> str:
    """Markdown: one row per notebook (peak MiB, processes, CPU and wall seconds), then a summary.

    Raises:
        ValueError: the run measured no notebook's memory (not Linux, or nothing ran).
    """
    measured = [r.peak_memory_mib for r in course.runs if r.peak_memory_mib is not None]
    if not measured:
        raise ValueError(
            "this run measured no notebook's memory (the sampler reads Linux's /proc); "
            "run `aurora run --memory-report FILE` on Linux"
        )
    lines = [
        "| notebook | peak memory (MiB) | processes at most | CPU seconds | wall seconds | status |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for r in course.runs:
        cpu = "?" if r.cpu_seconds is None else f"{r.cpu_seconds:.1f}"
        lines.append(
            f"| {r.notebook} | {r.peak_memory} | {r.peak_processes or '?'} | {cpu} | "
            f"{r.seconds:.1f} | {r.status} |"
        )
    devices = {r.device_count for r in course.runs if r.device_count}
    jax_versions = {r.jax_version for r in course.runs if r.jax_version}
    lines += [
        "",
        f"Largest peak: **{max(measured):.0f} MiB**. Measured "
        f"{time.strftime('%Y-%m-%d', time.gmtime())} with "
        f"{', '.join(map(str, sorted(devices))) or '?'} simulated device(s), JAX "
        f"{', '.join(sorted(jax_versions)) or '?'}, Python {platform.python_version()}, on "
        f"{platform.system()} {platform.machine()} with {os.cpu_count()} CPU cores "
        "(wall seconds depend on the machine's load; memory does not, much).",
    ]
    return "\n".join(lines) + "\n"


def write_memory_report(path: Path, course: CourseRun) -> Path:
    """Put :func:`memory_table` between the markers of ``path`` (or write it alone); return ``path``."""
    table = memory_table(course)
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        text = f"{head}{BEGIN}\n{table}{END}{tail}"
    elif text:
        raise ValueError(
            f"{path} exists without the marker lines; add\n{BEGIN}\n{END}\nwhere the table goes, "
            "or name a new file"
        )
    else:
        text = table
    path.write_text(text, encoding="utf-8")
    return path
