"""``aurora run``: execute the course with papermill into a build folder and report on it.

The sources in ``notebooks/`` are never written. For each notebook the runner writes the executed
copy to ``build/notebooks/``, an HTML rendering to ``build/html/``, and at the end
``build/index.html`` (the machine's probe, then a table linking every notebook),
``build/summary.json``, and the course website in ``build/site/`` (:mod:`aurora_course.site`).
"""

from __future__ import annotations

import ast
import html
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal
from unittest import mock

from aurora_helpers._display import RawHTML, html_table, text_table
from aurora_helpers.contract import (
    CHECK_LOG_ENV_VAR,
    DEVICES_ENV_VAR,
    SETUP_MIME,
    requested_device_count,
)

from .course import find_notebooks, select_notebooks
from .peak_memory import PeakMemory

#: Seconds any one cell may run before the runner gives up on that notebook.
CELL_TIMEOUT_S = 600


@dataclass
class NotebookRun:
    """The outcome of executing one notebook."""

    notebook: str
    status: Literal["ok", "failed"]
    seconds: float
    output: str
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


def parse_parameters(pairs: Sequence[str]) -> dict[str, Any]:
    """``["n=4096", "name=mlp", "sizes=[1, 2]"]`` -> ``{"n": 4096, "name": "mlp", "sizes": [1, 2]}``.

    Values are read as Python literals where they parse as one, and as strings otherwise.
    """
    params: dict[str, Any] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier():
            raise ValueError(f"parameter {pair!r} is not of the form name=value")
        try:
            params[name] = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            params[name] = raw
    return params


def _setup_summary(nb: Any) -> dict[str, Any] | None:
    """The set-up cell's summary, as ``setup_notebook`` displayed it in the executed notebook."""
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if SETUP_MIME in data:
                value = data[SETUP_MIME]
                return json.loads(value) if isinstance(value, str) else dict(value)
    return None


#: Tag of cells that are meant to raise. nbval expects their error; nbclient (papermill's engine)
#: executes on past it; papermill 2.x still reports the error afterwards, so the runner re-reads the
#: executed notebook and accepts errors in tagged cells only.
RAISES_TAG = "raises-exception"


def execution_problems(nb: Any) -> list[str]:
    """Errors in an executed notebook that are not meant to be there, in words.

    An error output in a cell without the ``raises-exception`` tag is a problem, and so is a
    tagged cell that ran without raising (its lesson silently stopped being true).
    """
    problems = []
    for cell in nb.cells:
        if cell.get("cell_type") != "code" or cell.get("execution_count") is None:
            continue
        tagged = RAISES_TAG in cell.get("metadata", {}).get("tags", [])
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        if errors and not tagged:
            problems.append(
                _cell_error(cell.execution_count, errors[0].get("ename"), errors[0].get("evalue"))
            )
        elif tagged and not errors:
            problems.append(
                f"cell [{cell.execution_count}] is tagged {RAISES_TAG} but did not raise"
            )
    return problems


def _cell_error(count: object, ename: object, evalue: object) -> str:
    """One line for an error in a cell: its number, the exception type, its message's first line."""
    lines = str(evalue or "").strip().splitlines()
    return f"cell [{count}] raised {ename}: {lines[0][:300] if lines else ''}"


def _describe_failure(err: BaseException) -> str:
    ename = getattr(err, "ename", None)
    if ename is not None:  # papermill.PapermillExecutionError
        return _cell_error(getattr(err, "exec_count", "?"), ename, getattr(err, "evalue", ""))
    return f"{type(err).__name__}: {str(err).strip()[:300]}"


def _read_checks(log: Path) -> tuple[dict[str, str], list[str]]:
    """The last status of each exercise in a check log, and the messages of the wrong ones."""
    statuses: dict[str, str] = {}
    details: dict[str, str] = {}
    if log.exists():
        for line in log.read_text(encoding="utf-8").splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue
            statuses[str(entry.get("exercise"))] = str(entry.get("status"))
            details[str(entry.get("exercise"))] = str(entry.get("detail", ""))
    wrong = [f"exercise {k} is wrong: {details[k]}" for k, v in statuses.items() if v == "wrong"]
    return statuses, wrong


def _children_cpu_seconds() -> float:
    """User + system seconds of this process's ended (and reaped) children and their children."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _render_html(nb: Any, html_path: Path) -> None:
    from nbconvert import HTMLExporter

    body, _ = HTMLExporter(template_name="lab").from_notebook_node(nb)
    html_path.write_text(body, encoding="utf-8")


def probe_html(env_updates: Mapping[str, str]) -> str:
    """The probe as HTML, taken in a fresh interpreter so it sees the run's device count."""
    env = {**os.environ, **env_updates}
    result = subprocess.run(
        [sys.executable, "-m", "aurora_course", "probe", "--html"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if result.returncode != 0:
        return f"<pre>probe failed:\n{html.escape(result.stderr[-2000:])}</pre>"
    return result.stdout


def _write_index(build_dir: Path, course: CourseRun, probe: str) -> None:
    site = ""
    if course.site:
        link = Path(course.site).relative_to(build_dir).as_posix()
        site = f"<p><a href='{html.escape(link)}'>The course website</a> (built from this run).</p>"
    rows = []
    for r in course.runs:
        name: object = r.notebook
        if r.html:
            link = Path(r.html).relative_to(build_dir).as_posix()
            name = RawHTML(f"<a href='{html.escape(link)}'>{html.escape(r.notebook)}</a>")
        rows.append(
            (
                name,
                r.status,
                f"{r.seconds:.1f}",
                r.peak_memory,
                r.backend or "?",
                r.device_count or "?",
                r.error or "",
            )
        )
    table = html_table(
        ("notebook", "status", "seconds", "peak MiB", "backend", "devices", "error"), rows
    )
    page = (
        "<!doctype html><html><head><meta charset='utf-8'><title>Project Aurora: course run</title>"
        "<style>body{font-family:system-ui,sans-serif;margin:2em}td,th{padding:2px 10px}</style>"
        f"</head><body><h1>Project Aurora: course run</h1>{site}{probe}<h2>Notebooks</h2>{table}</body></html>"
    )
    (build_dir / "index.html").write_text(page, encoding="utf-8")


def _build_site(course: CourseRun, build_dir: Path, probe: str) -> None:
    """The website from the notebooks just executed; a failure is reported, not raised."""
    from .site import SiteBuildError, build_site

    try:
        site = build_site(course.runs, build_dir, probe_html=probe)
    except (SiteBuildError, OSError, subprocess.SubprocessError) as err:
        course.site_error = str(err)
        return
    course.site, course.site_seconds = str(site.index), site.seconds
    course.site_warnings = site.warnings


def run_course(
    notebooks_dir: Path,
    build_dir: Path,
    *,
    devices: int | None = None,
    only: Sequence[str] | None = None,
    parameters: Mapping[str, Any] | None = None,
    progress: bool = True,
    render_html: bool = True,
) -> CourseRun:
    """Execute the course's notebooks in order with papermill; keeps going past failures.

    Args:
        devices: simulated CPU devices for every notebook (sets ``$AURORA_DEVICES``); default 8.
        only: notebook numbers to run (``["03", "05"]``); default all.
        parameters: values for the notebooks' ``parameters`` cells. Each notebook receives only
            the names it declares; a name no selected notebook declares is an error.
    """
    import nbformat
    import papermill as pm
    from papermill.execute import remove_error_markers
    from tqdm.auto import tqdm

    notebooks = select_notebooks(find_notebooks(notebooks_dir), list(only or []))
    if not notebooks:
        raise ValueError(f"no course notebooks (NN_name.ipynb) found in {notebooks_dir}")
    n_devices = requested_device_count(devices)
    params = dict(parameters or {})
    declared = {p: set(pm.inspect_notebook(str(p)).keys()) for p in notebooks}
    unknown = set(params) - set().union(*declared.values())
    if unknown:
        known = ", ".join(sorted(set().union(*declared.values()))) or "none"
        raise ValueError(
            f"no selected notebook has a parameter named {', '.join(sorted(unknown))}; they declare: {known}"
        )

    out_dir, html_dir = build_dir / "notebooks", build_dir / "html"
    out_dir.mkdir(parents=True, exist_ok=True)
    html_dir.mkdir(parents=True, exist_ok=True)
    env = {DEVICES_ENV_VAR: str(n_devices)}
    course = CourseRun(build_dir=str(build_dir))
    bar = tqdm(notebooks, unit="notebook", disable=not progress, file=sys.stderr)
    with mock.patch.dict(os.environ, env):
        for path in bar:
            bar.set_postfix_str(path.stem)
            output = out_dir / path.name
            mine = {k: v for k, v in params.items() if k in declared[path]}
            start = time.perf_counter()
            cpu_before = _children_cpu_seconds()
            error = None
            memory = PeakMemory(os.getpid(), include_root=False)
            handle, log_name = tempfile.mkstemp(prefix="aurora-checks-", suffix=".jsonl")
            os.close(handle)
            checks_log = Path(log_name)
            try:
                with memory, mock.patch.dict(os.environ, {CHECK_LOG_ENV_VAR: log_name}):
                    pm.execute_notebook(
                        str(path),
                        str(output),
                        parameters=mine,
                        kernel_name="python3",
                        cwd=str(path.parent),
                        progress_bar=False,
                        execution_timeout=CELL_TIMEOUT_S,
                    )
            except pm.PapermillExecutionError:
                pass  # judged below from the executed notebook, where tagged cells may raise
            except Exception as err:
                error = _describe_failure(err)
            exercises, wrong = _read_checks(checks_log)
            checks_log.unlink(missing_ok=True)
            executed = nbformat.read(output, as_version=4) if output.exists() else None
            if error is None and executed is not None:
                executed = remove_error_markers(executed)
                nbformat.write(executed, output)
                problems = execution_problems(executed) + wrong
                error = "; ".join(problems) if problems else None
            elif error is None:
                error = "papermill wrote no executed notebook"
            run = NotebookRun(
                notebook=path.stem,
                status="failed" if error else "ok",
                seconds=time.perf_counter() - start,
                output=str(output),
                error=error,
                finished=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                peak_memory_mib=memory.peak_mib,
                peak_processes=memory.peak_processes if memory.samples else None,
                cpu_seconds=_children_cpu_seconds() - cpu_before,
                exercises=exercises,
            )
            if executed is not None:
                summary = _setup_summary(executed)
                if summary:
                    run.backend, run.device_count = summary["backend"], summary["device_count"]
                    run.jax_version = summary.get("jax_version")
                if render_html:
                    target = html_dir / f"{path.stem}.html"
                    _render_html(executed, target)
                    run.html = str(target)
            course.runs.append(run)
    bar.close()
    probe = probe_html(env) if render_html else ""
    if render_html:
        _build_site(course, build_dir, probe)
    _write_index(build_dir, course, probe)
    (build_dir / "summary.json").write_text(
        json.dumps([asdict(r) for r in course.runs], indent=2), encoding="utf-8"
    )
    return course
