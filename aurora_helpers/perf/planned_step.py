"""The planner checked against what XLA compiles: a real sharded transformer training step.

:func:`compiled_step` builds the step :mod:`aurora_helpers.perf.planner` prices (a decoder-only
transformer: embeddings, RMS norms, causal attention with grouped key/value heads, a SwiGLU
MLP, cross-entropy, Adam), shards it by a :class:`~aurora_helpers.perf.planner.Layout` on a
mesh ``("data", "fsdp", "tensor")`` with ``jax.jit`` shardings, and compiles it.
:func:`check_plan` puts the plan beside the compiled program: the state it holds between steps
(``memory_analysis()``'s arguments), the memory the step needs on top of that (its temporaries),
and the bytes of each kind of collective (:func:`aurora_helpers.compiled_traffic`).

Only what ``jit`` shardings express is built: data parallelism, ZeRO-3/FSDP (parameters and
optimizer state sharded over ``fsdp``), tensor parallelism (heads and ``d_ff`` split; XLA
chooses the collectives, no sequence parallelism), and remat ``"none"`` or ``"full"``
(``jax.checkpoint`` around each layer). Pipelines, experts and ZeRO-1/2 are not built.
Everything runs in float32 (``Precision.named("fp32")``), what CPU devices compute.

Why the two sides differ, and by how much the tests allow (``tests/test_planned_step.py``):
the planner counts every parameter as split by ``fsdp x tensor`` while the norm scales stay
replicated (a few hundred bytes); XLA fuses and frees activations the planner's count keeps
(the attention's intermediates, a gated MLP's products), and keeps some it does not (the
logits' softmax); XLA's SPMD partitioner chooses tensor parallelism's collectives itself
(without sequence parallelism, the backward pass all-reduces the input gradients of Q, K and V,
and of the MLP's gate and up projections, one by one where Megatron adds them first), so for
``tensor > 1`` the tests bound the totals and name the difference.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from .._display import format_bytes, html_table, text_table
from ..compiled.comm_costs import Traffic, TrafficComparison, compare_traffic, compiled_traffic
from .planner import Layout, Plan, Transformer, plan

_SPECS: dict[str, Any] = {
    "wq": P("fsdp", "tensor"),
    "wk": P("fsdp", "tensor"),
    "wv": P("fsdp", "tensor"),
    "wo": P("tensor", "fsdp"),
    "w_gate": P("fsdp", "tensor"),
    "w_up": P("fsdp", "tensor"),
    "w_down": P("tensor", "fsdp"),
    "norm1": P(),
    "norm2": P(),
}


def _supported(model: Transformer, layout: Layout) -> None:
    problems = []
    if layout.pipeline > 1 or layout.experts > 1 or model.experts > 1:
        problems.append("pipelines and experts are not built here")
    if layout.fsdp > 1 and layout.zero != 3:
        problems.append("only ZeRO-3 (FSDP) is built with jit shardings")
    if layout.remat not in ("none", "full"):
        problems.append("remat must be 'none' or 'full'")
    if layout.microbatches > 1:
        problems.append("microbatches are not built here")
    if not model.gated_mlp or model.dropout:
        problems.append("the built model has a gated MLP and no dropout")
    problems += layout.problems(model)
    sizes = {"data": layout.data, "fsdp": layout.fsdp, "tensor": layout.tensor}
    flat_shapes = jax.tree.leaves(param_shapes(model), is_leaf=lambda x: isinstance(x, tuple))
    flat_specs = jax.tree.leaves(param_specs(model), is_leaf=lambda x: isinstance(x, P))
    uneven = sorted(
        {
            f"{axis}={sizes[axis]} does not divide a dimension of {dim}"
            for shape, spec in zip(flat_shapes, flat_specs, strict=True)
            for dim, axis in zip(shape, spec, strict=False)
            if axis is not None and dim % sizes[axis]
        }
    )
    problems += uneven
    if problems:
        raise ValueError("; ".join(problems))


def param_specs(model: Transformer) -> dict[str, Any]:
    """The ``PartitionSpec`` of every parameter (``layers`` is a list of dicts)."""
    return {
        "embed": P("tensor", "fsdp"),
        "layers": [dict(_SPECS) for _ in range(model.layers)],
        "final_norm": P(),
        "unembed": P("fsdp", "tensor"),
    }


def param_shapes(model: Transformer) -> dict[str, Any]:
    d, q, kv, f = model.d_model, model.heads * model.hd, model.kv * model.hd, model.d_ff
    layer = {
        "wq": (d, q),
        "wk": (d, kv),
        "wv": (d, kv),
        "wo": (q, d),
        "w_gate": (d, f),
        "w_up": (d, f),
        "w_down": (f, d),
        "norm1": (d,),
        "norm2": (d,),
    }
    return {
        "embed": (model.vocab, d),
        "layers": [dict(layer) for _ in range(model.layers)],
        "final_norm": (d,),
        "unembed": (d, model.vocab),
    }


def _rms(x: jax.Array, scale: jax.Array) -> jax.Array:
    return x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6) * scale


def _without_fsdp(spec: Any) -> Any:
    return P(*(None if axis == "fsdp" else axis for axis in spec))


def _gathered(mesh: Mesh, w: jax.Array, spec: Any) -> jax.Array:
    """``w`` constrained to its spec with the ``fsdp`` axis dropped: FSDP's gather before use
    (XLA inserts the all-gather; its transpose is the gradient's reduce-scatter)."""
    out: jax.Array = jax.lax.with_sharding_constraint(w, NamedSharding(mesh, _without_fsdp(spec)))
    return out


def _batch_split(mesh: Mesh, h: jax.Array) -> jax.Array:
    out: jax.Array = jax.lax.with_sharding_constraint(h, NamedSharding(mesh, P(("data", "fsdp"))))
    return out


def _layer(model: Transformer, mesh: Mesh, w: dict[str, jax.Array], h: jax.Array) -> jax.Array:
    w = {name: _gathered(mesh, value, _SPECS[name]) for name, value in w.items()}
    h = _batch_split(mesh, h)
    b, s, _ = h.shape
    hd, heads, kv = model.hd, model.heads, model.kv
    x = _rms(h, w["norm1"])
    q = (x @ w["wq"]).reshape(b, s, heads, hd)
    k = (x @ w["wk"]).reshape(b, s, kv, hd)
    v = (x @ w["wv"]).reshape(b, s, kv, hd)
    k = jnp.repeat(k, heads // kv, axis=2)
    v = jnp.repeat(v, heads // kv, axis=2)
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(hd)
    mask = jnp.tril(jnp.ones((s, s), dtype=bool))
    probs = jax.nn.softmax(jnp.where(mask, scores, -1e9), axis=-1)
    attn = jnp.einsum("bhqk,bkhd->bqhd", probs, v).reshape(b, s, heads * hd)
    h = h + attn @ w["wo"]
    x = _rms(h, w["norm2"])
    return h + (jax.nn.silu(x @ w["w_gate"]) * (x @ w["w_up"])) @ w["w_down"]


def _loss(
    model: Transformer, layout: Layout, mesh: Mesh, params: dict[str, Any], tokens: jax.Array
) -> jax.Array:
    inputs, targets = tokens[:, :-1], tokens[:, 1:]
    embed = _gathered(mesh, params["embed"], P("tensor", "fsdp"))
    h = _batch_split(mesh, embed[inputs])
    for w in params["layers"]:

        def block(w: dict[str, jax.Array], h: jax.Array) -> jax.Array:
            return _layer(model, mesh, w, h)

        h = (jax.checkpoint(block) if layout.remat == "full" else block)(w, h)
    unembed = _gathered(mesh, params["unembed"], P("fsdp", "tensor"))
    logits = _batch_split(mesh, _rms(h, params["final_norm"])) @ unembed
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.mean(jnp.take_along_axis(logp, targets[..., None], axis=-1))


def _mesh(layout: Layout) -> Mesh:
    n = layout.devices
    devices = jax.devices()
    if n > len(devices):
        raise ValueError(f"the layout needs {n} devices; this process has {len(devices)}")
    grid = np.array(devices[:n]).reshape(layout.data, layout.fsdp, layout.tensor)
    return Mesh(grid, ("data", "fsdp", "tensor"))


def compiled_step(model: Transformer, layout: Layout) -> tuple[Any, Mesh]:
    """Compile one Adam training step of ``model`` sharded by ``layout`` (float32).

    The step takes ``(params, m, v, tokens)`` and returns them updated with the loss; the
    parameters and both moments are donated. ``tokens`` holds ``seq + 1`` tokens per sequence
    (inputs and shifted targets), split over ``("data", "fsdp")``. Returns the
    ``jax.stages.Compiled`` and the mesh.

    Raises:
        ValueError: a layout this module does not build (see the module's docstring), or more
            devices than this process has.
    """
    _supported(model, layout)
    mesh = _mesh(layout)
    shapes, specs = param_shapes(model), param_specs(model)
    is_shape = lambda x: isinstance(x, tuple)  # noqa: E731
    state_sharding = jax.tree.map(
        lambda s: NamedSharding(mesh, s), specs, is_leaf=lambda x: isinstance(x, P)
    )
    abstract = jax.tree.map(
        lambda shape, sh: jax.ShapeDtypeStruct(shape, jnp.float32, sharding=sh),
        shapes,
        state_sharding,
        is_leaf=is_shape,
    )
    token_sharding = NamedSharding(mesh, P(("data", "fsdp")))
    tokens = jax.ShapeDtypeStruct((model.batch, model.seq + 1), jnp.int32, sharding=token_sharding)

    def step(params: Any, m: Any, v: Any, toks: jax.Array) -> Any:
        loss, grads = jax.value_and_grad(lambda p: _loss(model, layout, mesh, p, toks))(params)
        m = jax.tree.map(lambda a, g: 0.9 * a + 0.1 * g, m, grads)
        v = jax.tree.map(lambda a, g: 0.999 * a + 0.001 * g * g, v, grads)
        params = jax.tree.map(lambda p, a, b: p - 1e-3 * a / (jnp.sqrt(b) + 1e-8), params, m, v)
        return params, m, v, loss

    jitted = jax.jit(
        step,
        in_shardings=(state_sharding, state_sharding, state_sharding, token_sharding),
        out_shardings=(state_sharding, state_sharding, state_sharding, NamedSharding(mesh, P())),
        donate_argnums=(0, 1, 2),
    )
    return jitted.lower(abstract, abstract, abstract, tokens).compile(), mesh


@dataclass(frozen=True)
class PlanCheck:
    """A plan beside the compiled step (bytes per device)."""

    plan: Plan
    state_predicted: float
    """Parameters and optimizer state the plan says each device holds between steps."""
    state_compiled: int
    """``memory_analysis().argument_size_in_bytes`` less the tokens."""
    step_predicted: float
    """What the plan adds during the step: gradients, activations, the largest transient."""
    step_compiled: int
    """``memory_analysis().temp_size_in_bytes``: XLA's buffers for the step."""
    traffic: TrafficComparison
    """Collective bytes per (kind, group size): the plan's beside the compiled program's."""
    sent_predicted: float
    sent_compiled: float

    def ratio(self, what: str) -> float:
        """compiled / predicted for ``"state"``, ``"step"`` or ``"sent"`` (1 when both are 0)."""
        got = {"state": self.state_compiled, "step": self.step_compiled, "sent": self.sent_compiled}
        want = {
            "state": self.state_predicted,
            "step": self.step_predicted,
            "sent": self.sent_predicted,
        }
        if not want[what]:
            return 1.0 if not got[what] else math.inf
        return float(got[what]) / float(want[what])

    def _rows(self) -> list[list[object]]:
        return [
            ["state between steps", format_bytes(int(self.state_predicted)),
             format_bytes(self.state_compiled), f"{self.ratio('state'):.2f}"],
            ["buffers during the step", format_bytes(int(self.step_predicted)),
             format_bytes(self.step_compiled), f"{self.ratio('step'):.2f}"],
            ["collective bytes sent", format_bytes(int(self.sent_predicted)),
             format_bytes(int(self.sent_compiled)), f"{self.ratio('sent'):.2f}"],
        ]  # fmt: skip

    _HEADERS = ("", "predicted", "compiled", "compiled / predicted")

    def __str__(self) -> str:
        head = f"{self.plan.layout.name}: predicted beside compiled, per device"
        return f"{head}\n{text_table(self._HEADERS, self._rows())}\n{self.traffic}"

    def _repr_html_(self) -> str:
        caption = f"{self.plan.layout.name}: predicted beside compiled, per device"
        return html_table(self._HEADERS, self._rows(), caption=caption) + (
            self.traffic._repr_html_()
        )


def predicted_traffic(p: Plan) -> Traffic:
    """The plan's collectives as a :class:`aurora_helpers.Traffic` (each run once)."""
    return Traffic(tuple(c.cost for c in p.collectives for _ in range(c.count)))


def check_plan(model: Transformer, layout: Layout, *, machine: str = "h100") -> PlanCheck:
    """Plan ``model`` under ``layout`` in float32 and compile the same step on this process's
    devices; see :class:`PlanCheck` and the module's docstring for what is compared.

    ``machine`` only prices time (nothing here measures time); memory and bytes do not depend
    on it.
    """
    predicted = plan(model, machine, layout, precision="fp32")
    compiled, _ = compiled_step(model, layout)
    stats = compiled.memory_analysis()
    token_bytes = model.batch * (model.seq + 1) * 4 // layout.replicas
    mem = predicted.memory
    traffic_compiled = compiled_traffic(compiled, per_execution=True)
    traffic_predicted = predicted_traffic(predicted)
    return PlanCheck(
        predicted,
        mem["params"] + mem["optimizer"],
        int(stats.argument_size_in_bytes) - token_bytes,
        mem["grads"] + mem["activations"] + mem["transient"],
        int(stats.temp_size_in_bytes),
        compare_traffic(traffic_predicted, traffic_compiled),
        float(traffic_predicted.sent),
        float(traffic_compiled.sent),
    )
