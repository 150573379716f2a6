"""The site's own pages, written as MyST: the landing page, the probe page, each page's banner."""

from __future__ import annotations

from collections.abc import Sequence

from ..course import REPOSITORY_SLUG, STUDENT_FOLDER, colab_url
from ..records import NotebookRun
from .tags import CHECK_TOGGLE, SOLUTION_TOGGLE

#: Page name of the machine probe.
PROBE_PAGE = "machine"


def _escape(text: str) -> str:
    """Text safe inside a MyST table cell or directive body."""
    return text.replace("|", "\\|").replace("\n", " ")


def banner(page: NotebookRun) -> str:
    """The markdown cell inserted under each notebook's title: run facts, then the learner's copy
    (``student/``: exercises as stubs, no instructor notes) in Colab and as the download, and the
    course notebook with its solutions as a separate link for self-study."""
    status = (
        "" if page.status == "ok" else f"\n\n**This notebook failed:** {_escape(page.error or '?')}"
    )
    name = page.notebook + ".ipynb"
    return (
        "```{admonition} What this page ran on\n"
        ":class: aurora-ran-on\n\n"
        f"{page.ran_on()}{status}\n"
        "```\n\n"
        f"**Your copy** (exercises to fill in): "
        f"[Open in Colab]({colab_url(name, folder=STUDENT_FOLDER)}) · "
        f"{{download}}`Download the notebook <{STUDENT_FOLDER}/{name}>`"
        "\n\n"
        f"**With the solutions**, for self-study: "
        f"[open the course notebook in Colab]({colab_url(name)})"
    )


def landing_page(pages: Sequence[NotebookRun], extra: Sequence[str] = ()) -> str:
    """``index.md``: what the course is, the course map, how to run it, and the toctree.

    ``extra`` names further pages (the quick reference, the schedules) listed after the notebooks.
    """
    rows = []
    for p in pages:
        minutes = f"{p.minutes} min" if p.minutes is not None else "?"
        rows.append(
            f"| {{doc}}`{_escape(p.title or p.notebook)} <{p.notebook}>` | {minutes} | {p.status} | {p.seconds:.1f} s |"
        )
    total = sum(p.minutes or 0 for p in pages)
    toc = "\n".join([p.notebook for p in pages] + list(extra))
    more = "".join(f"- {{doc}}`{name}`\n" for name in extra)
    more = f"\n## For the classroom\n\n{more}" if extra else ""
    repo = f"https://github.com/{REPOSITORY_SLUG}"
    return f"""# Project Aurora: JAX data, devices and sharding

An executable course on how JAX represents, places, moves and distributes data: from one array on
one device to one program spread over many processes. Every page below is a notebook that was
executed to build this site, and every claim in it is a cell that checks it.

## Course map

About {total} minutes in all. Each page says what it ran on.

| notebook | time | status | ran in |
|---|---|---|---|
{chr(10).join(rows)}

The machine these pages ran on is described on {{doc}}`the machine page <{PROBE_PAGE}>`.

## How to run it

Work in **your copy** of each notebook: the copies in the repository's `student/` folder have
the exercises as stubs for you to fill in, and no solutions or instructor notes.

- **Colab:** each page's "Open in Colab" link opens your copy; the first cell installs the course
  helpers. Choose a GPU or TPU runtime to see real devices, or keep the CPU runtime for 8
  simulated ones. "Download the notebook" gives the same copy as a file.
- **JupyterLab on your machine:** clone [the repository]({repo}), then `make learn`: JupyterLab
  opens `student/`, the copies to work in. (`make lab` opens the course notebooks, solutions
  included: for instructors.)
- **Self-study:** each page also links the course notebook with its solutions.
- **The whole course from the command line:** `make run` executes every notebook into `build/`
  and builds this site in `build/site/`; `make test` checks everything.

On these pages each exercise's solution is collapsed: click "{SOLUTION_TOGGLE[0]}" to open it.
The cells that check a claim or an exercise are collapsed too ("{CHECK_TOGGLE[0]}"), and so are
the notes for instructors ("Instructor note").
{more}
```{{toctree}}
:hidden:
:maxdepth: 1

{toc}
{PROBE_PAGE}
```
"""


def probe_page(probe_html: str) -> str:
    """``machine.md``: the machine probe of the run, as the runner captured it."""
    body = probe_html.strip() or "<p>No probe was recorded for this run.</p>"
    return f"""# The machine

What JAX saw on the machine that executed these pages, probed in a fresh interpreter with the
run's device count (`aurora probe` prints the same).

```{{raw}} html
<div class="aurora-probe">
{body}
</div>
```
"""


#: The run planner's page: the gallery the live panel (``ah.PlanPanel``) stands in for.
PLANNER_PAGE = "planner"


def planner_page(gallery_html: str) -> str:
    """``planner.md``: the run planner's answers for a few published runs, computed when the site
    was built (:func:`aurora_helpers.perf.plan_gallery.plan_gallery_html`), and how to ask it about
    your own."""
    return f"""# The run planner

Which mesh and layout fit a model in memory on a cluster, and which is fastest? Notebook 09's last
section builds the answer from the course's cost model, checked against the programs XLA compiles
on simulated devices. Below are its answers for a few published runs, worked out when this page
was built: for each, the layouts that fit, fastest first, and for the fastest the memory per
device (against the device's memory, dashed) and the step time split into compute, exposed
communication and pipeline bubble. The times are bounds from published peaks and link bandwidths,
not measurements.

Ask about your own model and cluster in a notebook with the live panel, `ah.PlanPanel()` (sliders
and menus; it needs a kernel, so it is blank on this page), or from a terminal:

```sh
aurora plan --model llama3-8b --devices 64 --machine h100
aurora plan --params 8e9 --devices 64 --machine h100 --top 5
```

```{{raw}} html
{gallery_html}
```
"""
