"""An interactive panel for the run planner: sliders and menus in, ranked layouts and bars out.

:class:`PlanPanel` puts :func:`aurora_helpers.perf.planner.search` behind ipywidgets controls
(the model's sizes, the batch, the machine, the device count, the precision and optimizer, the
remat policies tried) and shows, live:

- the layouts that fit, ranked by step time (the same table as ``aurora plan``);
- for the layout picked in the menu (the fastest by default): memory per device stacked by part
  (parameters, gradients, optimizer state, activations, transient) against the device's memory,
  and the step's time split into compute, exposed communication and pipeline bubble.

The outputs are ``ipywidgets.HTML`` widgets whose ``value`` is the rendered HTML (plain HTML and
CSS bars, no JavaScript), so the panel works in JupyterLab and Colab (ipywidgets 7.7 and 8), a
test drives it by setting the controls' ``value`` and reading those outputs and
:attr:`PlanPanel.ranking`, and a static page can show the HTML of any state
(:meth:`PlanPanel.snapshot`).
"""

from __future__ import annotations

import html
from typing import Any

from .._display import format_bytes
from .planner import MACHINES, Plan, Precision, Ranking, Transformer, search

_PARTS = (
    ("params", "#4c72b0"),
    ("grads", "#55a868"),
    ("optimizer", "#c44e52"),
    ("activations", "#8172b2"),
    ("transient", "#ccb974"),
)
_TIMES = (("compute", "#4c72b0"), ("exposed communication", "#c44e52"), ("bubble", "#ccb974"))


def _bar(segments: list[tuple[str, float, str]], total: float, limit: float | None) -> str:
    """A horizontal stacked bar (HTML), scaled to ``max(total, limit)``; ``limit`` drawn as a
    line."""
    scale = max(total, limit or 0.0) or 1.0
    cells = "".join(
        f'<div title="{html.escape(name)}" style="width:{100 * value / scale:.3f}%;'
        f'background:{colour};height:100%;display:inline-block"></div>'
        for name, value, colour in segments
        if value > 0
    )
    line = (
        f'<div style="position:absolute;left:{100 * limit / scale:.3f}%;top:-3px;bottom:-3px;'
        'border-left:2px dashed black"></div>'
        if limit
        else ""
    )
    return (
        '<div style="position:relative;width:100%;height:18px;background:#eee;'
        f'white-space:nowrap;font-size:0">{cells}{line}</div>'
    )


def memory_html(p: Plan) -> str:
    """The plan's memory per device, stacked by part, against the device's memory."""
    segments = [(name, p.memory[name], colour) for name, colour in _PARTS]
    legend = ", ".join(
        f'<span style="color:{colour}">&#9632;</span> {name} {format_bytes(int(p.memory[name]))}'
        for name, colour in _PARTS
    )
    verdict = "fits" if p.fits else "does not fit"
    return (
        f"<b>Memory per device</b>: peak {format_bytes(int(p.memory['peak']))} of "
        f"{format_bytes(int(p.machine.memory))} (dashed line): <b>{verdict}</b>"
        f"{_bar(segments, p.memory['peak'], p.machine.memory)}<small>{legend}</small>"
    )


def time_html(p: Plan) -> str:
    """The step's time split into compute, exposed communication and bubble."""
    values = (p.compute_seconds, p.exposed_comm_seconds, p.bubble)
    segments = [(n, v, c) for (n, c), v in zip(_TIMES, values, strict=True)]
    legend = ", ".join(
        f'<span style="color:{c}">&#9632;</span> {n} {v * 1e3:,.1f} ms'
        for (n, c), v in zip(_TIMES, values, strict=True)
    )
    return (
        f"<b>Step time</b> &ge; {p.step_seconds * 1e3:,.1f} ms, {p.bound}-bound, "
        f"MFU &le; {p.mfu:.0%}{_bar(segments, p.step_seconds, None)}<small>{legend}</small>"
    )


class PlanPanel:
    """Controls for the planner and its live results (see the module's docstring).

    Args:
        model: the starting model (default: LLaMA 3 8B, 4096 tokens, batch 256).
        machine: a name in :data:`aurora_helpers.perf.planner.MACHINES`.
        devices: the device count to factorise.
        top: rows of the ranked table.

    Attributes:
        controls: the input widgets by name (``layers``, ``d_model``, ``d_ff``, ``heads``,
            ``kv_heads``, ``vocab``, ``seq``, ``batch``, ``machine``, ``devices``,
            ``precision``, ``optimizer``, ``remat``, ``layout``).
        table, memory, time: the ``ipywidgets.HTML`` outputs.
        ranking: the last :class:`~aurora_helpers.perf.planner.Ranking`.
        error: why the last inputs gave no plan (empty when they did).
    """

    def __init__(
        self,
        model: Transformer | None = None,
        *,
        machine: str = "h100",
        devices: int = 64,
        top: int = 10,
    ) -> None:
        import ipywidgets as w

        m = model if model is not None else Transformer.preset("llama3-8b")
        self.top = top
        style = {"description_width": "110px"}
        self.controls: dict[str, Any] = {
            "layers": w.IntSlider(m.layers, min=1, max=160, description="layers", style=style),
            "d_model": w.IntSlider(
                m.d_model, min=128, max=32768, step=128, description="d_model", style=style
            ),
            "d_ff": w.IntSlider(
                m.d_ff, min=128, max=131072, step=128, description="d_ff", style=style
            ),
            "heads": w.IntSlider(m.heads, min=1, max=256, description="heads", style=style),
            "kv_heads": w.IntSlider(m.kv, min=1, max=256, description="KV heads", style=style),
            "vocab": w.BoundedIntText(
                m.vocab, min=1, max=1_000_000, description="vocabulary", style=style
            ),
            "seq": w.Dropdown(
                options=sorted({2**k for k in range(7, 18)} | {m.seq}),
                value=m.seq,
                description="sequence",
                style=style,
            ),
            "batch": w.BoundedIntText(
                m.batch, min=1, max=10**8, description="batch (seqs)", style=style
            ),
            "machine": w.Dropdown(
                options=sorted(MACHINES), value=machine, description="machine", style=style
            ),
            "devices": w.BoundedIntText(
                devices, min=1, max=65536, description="devices", style=style
            ),
            "precision": w.Dropdown(
                options=["mixed", "mixed-fp32-acc", "fp32", "bf16"],
                value="mixed",
                description="precision",
                style=style,
            ),
            "optimizer": w.Dropdown(
                options=["adam", "momentum", "sgd"],
                value="adam",
                description="optimizer",
                style=style,
            ),
            "remat": w.Dropdown(
                options=["any", "none", "mlp-matmuls", "full"],
                value="any",
                description="remat",
                style=style,
            ),
            "layout": w.Dropdown(options=[], description="layout", style=style),
        }
        self.table = w.HTML()
        self.memory = w.HTML()
        self.time = w.HTML()
        self.ranking: Ranking | None = None
        self.error = ""
        self._plans: dict[str, Plan] = {}
        self._updating = False
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        inputs = [self.controls[k] for k in self.controls if k != "layout"]
        half = (len(inputs) + 1) // 2
        self.widget = w.VBox(
            [
                w.HBox([w.VBox(inputs[:half]), w.VBox(inputs[half:])]),
                self.table,
                self.controls["layout"],
                self.memory,
                self.time,
            ]
        )
        self.update()

    def _on_change(self, change: dict[str, Any]) -> None:
        if self._updating:
            return
        if change.get("owner") is self.controls["layout"]:
            self._show(self._plans.get(change["new"]))
        else:
            self.update()

    def model(self) -> Transformer:
        """The model the controls describe."""
        c = self.controls
        return Transformer(
            c["layers"].value,
            c["d_model"].value,
            c["d_ff"].value,
            c["heads"].value,
            c["kv_heads"].value,
            vocab=c["vocab"].value,
            seq=c["seq"].value,
            batch=c["batch"].value,
        )

    def update(self) -> None:
        """Search again with the controls' values and redraw every output."""
        c = self.controls
        remat = (
            ("none", "mlp-matmuls", "full") if c["remat"].value == "any" else (c["remat"].value,)
        )
        try:
            self.ranking = search(
                self.model(),
                c["machine"].value,
                c["devices"].value,
                precision=Precision.named(c["precision"].value),
                optimizer=c["optimizer"].value,
                remat=remat,
            )
            self.error = ""
        except ValueError as err:
            self.ranking, self.error = None, str(err)
        self._plans = {p.layout.name: p for p in (self.ranking.plans if self.ranking else ())}
        self._updating = True
        try:
            names = [
                p.layout.name for p in (self.ranking.plans[: self.top] if self.ranking else ())
            ]
            c["layout"].options = names
            c["layout"].value = names[0] if names else None
        finally:
            self._updating = False
        if self.error:
            self.table.value = f"<b>No plan:</b> {html.escape(self.error)}"
        elif self.ranking is not None and not self.ranking.plans:
            smallest = self.ranking.rejected[0] if self.ranking.rejected else None
            self.table.value = f"<b>None of the {self.ranking.tried} layouts fits.</b>" + (
                f" Smallest peak: {html.escape(smallest.layout.name)}" if smallest else ""
            )
        elif self.ranking is not None:
            self.table.value = self.ranking._repr_html_()
        self._show(self._plans.get(c["layout"].value) if c["layout"].value else None)

    def _show(self, p: Plan | None) -> None:
        if p is None:
            self.memory.value = self.time.value = ""
            return
        self.memory.value = memory_html(p)
        self.time.value = time_html(p)

    @property
    def plan(self) -> Plan | None:
        """The plan of the layout picked in the menu (None when nothing fits)."""
        return self._plans.get(self.controls["layout"].value or "")

    def snapshot(self) -> str:
        """The outputs' HTML as they are now: a static page's fallback for the live panel."""
        return "\n".join(x.value for x in (self.table, self.memory, self.time))

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)
