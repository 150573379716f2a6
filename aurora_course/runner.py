"""``aurora run``: execute the course into a build folder and report on it.

The sources in ``notebooks/`` are never written. For each notebook (papermill injects the
parameters; :mod:`.execute` runs it in a fresh kernel) the runner writes the executed copy to
``build/notebooks/``, an HTML rendering to ``build/html/``, and at the end ``build/index.html``
(the machine's probe, then a table linking every notebook), ``build/summary.json`` (the run
records, :mod:`.records`), and the course website in ``build/site/`` (:mod:`aurora_course.site`).
"""

from __future__ import annotations

import ast
import html
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from aurora_helpers._display import RawHTML, html_table
from aurora_helpers.contract import (
    CHECK_LOG_ENV_VAR,
    DEVICES_ENV_VAR,
    SETUP_MIME,
    latest_by_exercise,
    read_check_log,
    requested_device_count,
)

from .course import find_notebooks, select_notebooks
from .course_notebook import CourseNotebook, NotebookNode
from .execute import declared_parameters, execute_notebook, inject_parameters
from .peak_memory import PeakMemory
from .records import CourseRun, NotebookRun, write_summary


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


def setup_summary(nb: NotebookNode) -> dict[str, Any] | None:
    """The set-up cell's summary, as ``ah.setup_notebook()`` displayed it in an executed notebook."""
    import json

    for cell in nb.cells:
        for output in cell.get("outputs", []):
            value = output.get("data", {}).get(SETUP_MIME)
            if value is not None:
                return json.loads(value) if isinstance(value, str) else dict(value)
    return None


def _children_cpu_seconds() -> float:
    """User + system seconds of this process's ended (and reaped) children and their children."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_notebook(
    path: Path, output: Path, *, devices: int, parameters: Mapping[str, Any]
) -> NotebookRun:
    """Execute the notebook at ``path`` into ``output``; its record, failures included.

    A cell that raises stops the notebook (as "Run all" would); an exercise whose check reports
    "wrong" fails it too (the course's own solutions must pass their checks).
    """
    import nbformat

    notebook = CourseNotebook.read(path)
    nb = inject_parameters(notebook.nb, parameters)
    start, cpu_before = time.perf_counter(), _children_cpu_seconds()
    memory = PeakMemory(os.getpid(), include_root=False)
    with tempfile.TemporaryDirectory(prefix="aurora-run-") as scratch:
        log = Path(scratch) / "checks.jsonl"
        env = {DEVICES_ENV_VAR: str(devices), CHECK_LOG_ENV_VAR: str(log)}
        try:
            with memory:
                problems = execute_notebook(
                    nb, cwd=path.parent, env=env, stop_on_error=True
                ).problems()
        except Exception as err:  # the kernel did not start, ...: this notebook fails, not the run
            problems = [f"{type(err).__name__}: {str(err).strip()[:300]}"]
        checks = latest_by_exercise(read_check_log(log))
    nbformat.write(nb, output)
    problems += [
        f"exercise {c.exercise} is wrong: {'; '.join(c.detail.splitlines())}"
        for c in checks.values()
        if c.status == "wrong"
    ]
    summary = setup_summary(nb) or {}
    return NotebookRun(
        notebook=path.stem,
        status="failed" if problems else "ok",
        seconds=time.perf_counter() - start,
        output=str(output),
        title=notebook.heading,
        minutes=notebook.time.total if notebook.time else None,
        backend=summary.get("backend"),
        device_count=summary.get("device_count"),
        jax_version=summary.get("jax_version"),
        error="; ".join(problems) or None,
        finished=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        peak_memory_mib=memory.peak_mib,
        peak_processes=memory.peak_processes if memory.samples else None,
        cpu_seconds=_children_cpu_seconds() - cpu_before,
        exercises={label: c.status for label, c in checks.items()},
    )


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
    """Execute the course's notebooks in order; keeps going past failures.

    Args:
        devices: simulated CPU devices for every notebook (sets ``$AURORA_DEVICES``); default 8.
        only: notebook numbers to run (``["03", "05"]``); default all.
        parameters: values for the notebooks' ``parameters`` cells. Each notebook receives only
            the names it declares; a name no selected notebook declares is an error.
        render_html: also write the HTML renderings, the probe, the index page's links and the
            website.
    """
    import nbformat
    from tqdm.auto import tqdm

    notebooks = select_notebooks(find_notebooks(notebooks_dir), list(only or []))
    if not notebooks:
        raise ValueError(f"no course notebooks (NN_name.ipynb) found in {notebooks_dir}")
    n_devices = requested_device_count(devices)
    params = dict(parameters or {})
    declared = {p: declared_parameters(nbformat.read(p, as_version=4)) for p in notebooks}
    unknown = set(params) - set().union(*declared.values())
    if unknown:
        known = ", ".join(sorted(set().union(*declared.values()))) or "none"
        raise ValueError(
            f"no selected notebook has a parameter named {', '.join(sorted(unknown))}; they declare: {known}"
        )
    out_dir = build_dir / "notebooks"
    out_dir.mkdir(parents=True, exist_ok=True)
    course = CourseRun(build_dir=str(build_dir))
    bar = tqdm(notebooks, unit="notebook", disable=not progress, file=sys.stderr)
    for path in bar:
        bar.set_postfix_str(path.stem)
        mine = {k: v for k, v in params.items() if k in declared[path]}
        run = run_notebook(path, out_dir / path.name, devices=n_devices, parameters=mine)
        if render_html:
            run.html = str(_render_html(Path(run.output), build_dir / "html"))
        course.runs.append(run)
    bar.close()
    probe = probe_html({DEVICES_ENV_VAR: str(n_devices)}) if render_html else ""
    if render_html:
        _build_site(course, build_dir, probe, notebooks_dir)
    _write_index(build_dir, course, probe)
    write_summary(build_dir, course.runs)
    return course


def _render_html(executed: Path, html_dir: Path) -> Path:
    import nbformat
    from nbconvert import HTMLExporter

    html_dir.mkdir(parents=True, exist_ok=True)
    body, _ = HTMLExporter(template_name="lab").from_notebook_node(nbformat.read(executed, 4))
    target = html_dir / f"{executed.stem}.html"
    target.write_text(body, encoding="utf-8")
    return target


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
    """``build/index.html``: a link to the website, the probe, and one row per notebook."""
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
                r.title or "",
                r.status,
                f"{r.seconds:.1f}",
                r.peak_memory,
                r.backend or "?",
                r.device_count or "?",
                r.error or "",
            )
        )
    table = html_table(
        ("notebook", "title", "status", "seconds", "peak MiB", "backend", "devices", "error"),
        rows,
    )
    page = (
        "<!doctype html><html><head><meta charset='utf-8'><title>Project Aurora: course run</title>"
        "<style>body{font-family:system-ui,sans-serif;margin:2em}td,th{padding:2px 10px}</style>"
        f"</head><body><h1>Project Aurora: course run</h1>{site}{probe}<h2>Notebooks</h2>{table}</body></html>"
    )
    (build_dir / "index.html").write_text(page, encoding="utf-8")


def _build_site(
    course: CourseRun, build_dir: Path, probe: str, notebooks_dir: Path | None = None
) -> None:
    """The website from the notebooks just executed; a failure is reported, not raised."""
    from .site import SiteBuildError, build_site

    try:
        site = build_site(course.runs, build_dir, probe_html=probe, notebooks_dir=notebooks_dir)
    except (SiteBuildError, OSError, subprocess.SubprocessError) as err:
        course.site_error = str(err)
        return
    course.site, course.site_seconds = str(site.index), site.seconds
    course.site_warnings = site.warnings
