"""Build the course website from executed notebooks: Sphinx + myst-nb + the book theme."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..course import STUDENT_FOLDER
from ..course_notebook import NotebookNode
from ..records import NotebookRun
from ._conf import sphinx_config
from .api_links import link_markdown, link_pages, notebook_aliases
from .code_lines import hang_wrapped_lines
from .pages import PLANNER_PAGE, PROBE_PAGE, banner, landing_page, planner_page, probe_page
from .tags import TAG_BEHAVIOUR, site_copy

#: Pages made from what the notebooks say: the quick reference and the workshop schedules.
QUICKREF_PAGE = "quickref"
SCHEDULE_PAGE = "schedule"

_STATIC = Path(__file__).with_name("_static")


#: Sphinx's warnings of the last build, one per line, in the working folder (empty: none).
WARNINGS_FILE = "warnings.txt"


class SiteBuildError(RuntimeError):
    """Sphinx failed, or (with ``strict``) warned."""


@dataclass
class SiteBuild:
    """A built site: where its entry page is, how long it took, what Sphinx warned about."""

    index: Path
    seconds: float
    pages: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _conf_py(settings: Mapping[str, Any]) -> str:
    lines = ['"""Written by aurora_course.site; edit aurora_course/site/_conf.py instead."""', ""]
    lines += [f"{key} = {value!r}" for key, value in settings.items()]
    return "\n".join(lines) + "\n"


def sphinx_available() -> bool:
    """Whether Sphinx, myst-nb and the book theme are importable here."""
    import importlib.util

    return all(
        importlib.util.find_spec(m) is not None for m in ("sphinx", "myst_nb", "sphinx_book_theme")
    )


def student_copy_for(run: NotebookRun, notebooks_dir: Path | None) -> NotebookNode:
    """The learner's copy of a run's notebook, as ``aurora student`` writes it into ``student/``:
    from the course notebook in ``notebooks_dir`` where it is there, else from the executed copy
    (its injected parameters cell dropped)."""
    import nbformat

    from ..student import make_student_notebook

    source = notebooks_dir / f"{run.notebook}.ipynb" if notebooks_dir is not None else None
    if source is not None and source.exists():
        return make_student_notebook(nbformat.read(source, as_version=4))
    nb = nbformat.read(run.output, as_version=4)
    nb.cells = [c for c in nb.cells if "injected-parameters" not in c.metadata.get("tags", [])]
    nb.metadata.pop("papermill", None)
    return make_student_notebook(nb)


def write_sources(
    runs: Iterable[NotebookRun],
    source_dir: Path,
    probe_html: str = "",
    tag_table: Mapping[str, tuple[str, ...]] = TAG_BEHAVIOUR,
    notebooks_dir: Path | None = None,
) -> list[NotebookRun]:
    """Write the Sphinx source folder: conf, landing page, probe page, one notebook copy per run,
    and each notebook's student copy (``student/``, what the page's download serves).

    Each run names its executed notebook in ``output``; the notebooks are copied, never changed,
    and never executed again. ``notebooks_dir`` holds the course notebooks the student copies are
    made from. Returns the runs that became pages (those with an executed copy).
    """
    import nbformat

    from ..course_notebook import CourseNotebook
    from ..quickref import QuickrefError, as_myst, entries_of
    from ..schedule import NotebookTime, ScheduleError, notebook_time, render_schedule

    if source_dir.exists():
        shutil.rmtree(source_dir)
    source_dir.mkdir(parents=True)
    shutil.copytree(_STATIC, source_dir / "_static")
    pages = []
    references = []
    times: dict[str, NotebookTime] = {}
    for run in runs:
        output = Path(run.output)
        if not output.exists():
            continue  # nothing was executed: the run's report says why
        notebook = CourseNotebook.read(output)
        nbformat.write(site_copy(notebook.nb, banner(run), tag_table), source_dir / output.name)
        (source_dir / STUDENT_FOLDER).mkdir(exist_ok=True)
        nbformat.write(
            student_copy_for(run, notebooks_dir), source_dir / STUDENT_FOLDER / output.name
        )
        pages.append(run)
        try:
            references += entries_of(notebook)
        except QuickrefError as err:
            raise SiteBuildError(str(err)) from err
        try:
            found = notebook_time(notebook)
            times[found.number] = found
        except ScheduleError:
            pass  # a notebook without the time line: no schedule page (the tests require it)
    if not pages:
        raise SiteBuildError("no executed notebooks to build the site from")
    (source_dir / "conf.py").write_text(_conf_py(sphinx_config()), encoding="utf-8")
    extra = []
    if references:
        (source_dir / f"{QUICKREF_PAGE}.md").write_text(
            link_markdown(as_myst(references)), encoding="utf-8"
        )
        extra.append(QUICKREF_PAGE)
    try:
        schedule = render_schedule(times)
    except ScheduleError:
        schedule = None  # only some notebooks ran (aurora run --only): no complete schedule
    if schedule is not None:
        (source_dir / f"{SCHEDULE_PAGE}.md").write_text(schedule, encoding="utf-8")
        extra.append(SCHEDULE_PAGE)
    from aurora_helpers.perf.plan_gallery import plan_gallery_html

    (source_dir / f"{PLANNER_PAGE}.md").write_text(
        planner_page(plan_gallery_html()), encoding="utf-8"
    )
    extra.append(PLANNER_PAGE)
    (source_dir / "index.md").write_text(landing_page(pages, extra), encoding="utf-8")
    (source_dir / f"{PROBE_PAGE}.md").write_text(probe_page(probe_html), encoding="utf-8")
    return pages


def run_sphinx(source_dir: Path, site_dir: Path, *, strict: bool = False) -> list[str]:
    """Run Sphinx's HTML builder in this process into ``site_dir``; return its warnings.

    Sphinx's and myst-nb's working files (doctrees, ``jupyter_execute/``) stay in a folder next to
    ``source_dir``; only the finished site is moved to ``site_dir``.

    In-process on purpose: the runner has already imported nbformat and its JSON-schema stack,
    which a fresh interpreter would spend seconds importing again.

    Raises:
        SiteBuildError: Sphinx raised, or ``strict`` and it warned.
    """
    import io
    import warnings as pywarnings

    from sphinx.application import Sphinx
    from sphinx.errors import SphinxError

    work = source_dir.with_name(source_dir.name + "-work")
    doctrees, html_dir = work / "doctrees", work / "html"
    for stale in (site_dir, work):
        if stale.exists():
            shutil.rmtree(stale)
    messages = io.StringIO()
    try:
        with pywarnings.catch_warnings():
            pywarnings.simplefilter("ignore", DeprecationWarning)  # the docs stack's, not ours
            pywarnings.simplefilter("ignore", PendingDeprecationWarning)
            app = Sphinx(
                source_dir,
                source_dir,
                html_dir,
                doctrees,
                "html",
                status=None,
                warning=messages,
                freshenv=True,
            )
            app.build()
    except SphinxError as err:
        raise SiteBuildError(f"sphinx failed: {err}\n{messages.getvalue()[-3000:]}") from err
    found = [line for line in messages.getvalue().splitlines() if line.strip()]
    (work / WARNINGS_FILE).write_text("".join(f"{line}\n" for line in found), encoding="utf-8")
    if strict and found:
        raise SiteBuildError("sphinx warned:\n" + "\n".join(found[:20]))
    site_dir.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(html_dir, site_dir)
    return found


def build_site(
    runs: Sequence[NotebookRun],
    build_dir: Path,
    *,
    probe_html: str = "",
    strict: bool = False,
    notebooks_dir: Path | None = None,
) -> SiteBuild:
    """Build ``build_dir/site/`` from the executed notebooks of a course run.

    Sources go to ``build_dir/site-src/``, Sphinx's working files to ``build_dir/site-src-work/``;
    the notebooks are read as executed (``nb_execution_mode
    = "off"``). With ``strict``, any Sphinx warning is an error (the tests build this way).
    ``notebooks_dir``: the course notebooks, for the student copies each page offers.
    After Sphinx, the JAX names in each page's code are linked to JAX's reference and each code
    line becomes a block that wraps with a hanging indent (:mod:`.code_lines`).

    Raises:
        SiteBuildError: Sphinx, myst-nb or the book theme is missing (install the ``course``
            extra: ``pip install -e '.[course]'``), or the build failed.
    """
    if not sphinx_available():
        raise SiteBuildError(
            "the course website needs sphinx, myst-nb and sphinx-book-theme; "
            "install them with `pip install -e '.[course]'` (make setup does)"
        )
    start = time.perf_counter()
    source_dir, site_dir = build_dir / "site-src", build_dir / "site"
    import nbformat

    pages = write_sources(runs, source_dir, probe_html, notebooks_dir=notebooks_dir)
    warnings = run_sphinx(source_dir, site_dir, strict=strict)
    link_pages(
        site_dir,
        {
            p.notebook: notebook_aliases(nbformat.read(source_dir / f"{p.notebook}.ipynb", 4))
            for p in pages
        },
    )
    for page in site_dir.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        if '<div class="highlight"><pre>' in text:
            page.write_text(hang_wrapped_lines(text), encoding="utf-8")
    return SiteBuild(
        index=site_dir / "index.html",
        seconds=time.perf_counter() - start,
        pages=[p.notebook for p in pages],
        warnings=warnings,
    )
