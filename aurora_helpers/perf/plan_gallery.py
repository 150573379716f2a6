"""The run planner's answers for a few well-known runs, as one HTML fragment.

:class:`~aurora_helpers.perf.plan_panel.PlanPanel` needs a kernel: on the course's website (a
static page) it is blank. :func:`plan_gallery_html` is its stand-in there: for each
:class:`PlanCase` (a published model on a machine and a device count) the layouts that fit,
ranked as the panel ranks them, and for the fastest one the same memory and step-time bars the
panel draws. It is plain HTML and CSS (no JavaScript), computed when the page is built, so the
numbers on the website are the planner's, not copied by hand.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass

from .._display import html_table
from .plan_panel import memory_html, time_html
from .planner import Machine, Ranking, Transformer, search


@dataclass(frozen=True)
class PlanCase:
    """One run to plan: a model (sizes, sequence and global batch), a machine and a device
    count, with the panel's precision and optimizer choices."""

    model: Transformer
    machine: str
    devices: int
    caption: str = ""
    precision: str = "mixed"
    optimizer: str = "adam"

    def rank(self) -> Ranking:
        """The planner's ranking of every layout for this run (:func:`~.planner.search`)."""
        return search(
            self.model,
            self.machine,
            self.devices,
            precision=self.precision,
            optimizer=self.optimizer,
        )

    def title(self) -> str:
        m = self.model
        machine = Machine.preset(self.machine).name
        return self.caption or (
            f"{m.params / 1e9:,.1f}B parameters, {m.seq:,} tokens × {m.batch:,} sequences, "
            f"on {self.devices:,} × {machine}"
        )


def plan_cases() -> tuple[PlanCase, ...]:
    """The gallery's runs: LLaMA 3 8B and 70B on H100s, 8B on TPU v5p, and GPT-3 175B at the
    scale its paper trained on, each with 4096-token sequences (2048 for GPT-3)."""
    return (
        PlanCase(Transformer.preset("llama3-8b"), "h100", 64, "LLaMA 3 8B on 64 H100s"),
        PlanCase(Transformer.preset("llama3-70b"), "h100", 256, "LLaMA 3 70B on 256 H100s"),
        PlanCase(Transformer.preset("llama3-8b"), "tpu-v5p", 256, "LLaMA 3 8B on 256 TPU v5p"),
        PlanCase(
            Transformer.preset("gpt3-175b", seq=2048, batch=1536),
            "h100",
            1024,
            "GPT-3 175B (2048 tokens × 1536 sequences) on 1024 H100s",
        ),
    )


class PlanGalleryHTML(str):
    """The gallery's HTML; a notebook cell that ends with it shows it rendered."""

    def _repr_html_(self) -> str:
        return str(self)


def plan_gallery_html(cases: Iterable[PlanCase] | None = None, *, top: int = 3) -> PlanGalleryHTML:
    """For each case (default :func:`plan_cases`): its caption, the ``top`` layouts that fit,
    fastest first, and the fastest layout's memory per device and step time as bars; a case where
    nothing fits says so, with the smallest peak it found.

    Raises:
        ValueError: a case the planner cannot plan (an unknown machine, a device count of 0).
    """
    sections = []
    for case in plan_cases() if cases is None else cases:
        ranking = case.rank()
        head = f"<h4>{html.escape(case.title())}</h4>"
        if not ranking.plans:
            smallest = ranking.rejected[0] if ranking.rejected else None
            body = f"<p>None of the {ranking.tried} layouts fits" + (
                f"; the smallest peak is {html.escape(smallest.layout.name)}'s.</p>"
                if smallest
                else ".</p>"
            )
        else:
            best = ranking.best
            caption = f"{len(ranking.plans)} of {ranking.tried} layouts fit; the fastest {top}"
            table = html_table(Ranking._HEADERS, ranking.rows(top), caption=caption)
            body = (
                f'<div style="overflow-x:auto">{table}</div>'
                + f"<p><b>{html.escape(best.layout.name)}</b></p>"
                + f"<div>{memory_html(best)}</div><div>{time_html(best)}</div>"
            )
        sections.append(f"<section>{head}{body}</section>")
    # Layout names stay on one line; a narrow screen scrolls the table, not the page.
    style = "<style>.plan-gallery td:nth-child(2){white-space:nowrap}</style>"
    return PlanGalleryHTML(f'<div class="plan-gallery">{style}' + "".join(sections) + "</div>")
