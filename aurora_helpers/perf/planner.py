"""A run planner: what a decoder-only transformer's training step costs each device, per layout.

Given a model (:class:`Transformer`), the numbers it is stored and computed in
(:class:`Precision`, an optimizer), a machine (:class:`Machine`: published peaks, device memory
and the interconnect per level) and a layout (:class:`Layout`: data parallelism, ZeRO-1/2/3 or
FSDP, tensor parallelism, pipeline stages and microbatches, experts, rematerialisation),
:func:`plan` prices one training step on the busiest device:

- **memory**: parameters, gradients, optimizer state (with the float32 master copy), the
  activations kept for the backward pass, and the peak during the step (those plus the
  transient buffers: a layer's gathered weights under ZeRO-3, a layer recomputed under full
  remat, the logits);
- **collectives**: every collective of the step with its bytes and group, priced by
  :func:`aurora_helpers.collective_cost` on the mesh axis's interconnect
  (:mod:`aurora_helpers.compiled.topologies`);
- **time**: compute at the device's published peak, communication by the alpha-beta model, and
  the step-time bound when each collective hides behind the compute it can overlap (gradient
  reductions behind the backward pass, FSDP gathers behind the pass that uses them; tensor- and
  pipeline-parallel traffic is on the critical path), the pipeline bubble included;
- **model-FLOPs utilisation** at that bound, and whether the step fits in device memory.

:func:`search` tries every factorisation of a device count into those axes and ranks the
layouts that fit by step time. Everything is arithmetic on the sizes: no array is made and
nothing is compiled here; :mod:`aurora_helpers.perf.planned_step` compiles a real step for a
plan small enough for this machine and compares the two.

**What the model leaves out** (each says which way it errs): kernels' own workspace and
fragmentation (real peaks are higher), XLA's fusion and buffer reuse (the compiled program can
keep fewer activations than the count below), causal masking (attention FLOPs are counted for
the full square, as the scaling book does), and the overlap of collectives with each other.

Units: bytes, seconds, FLOPs (one multiply-add = 2 FLOPs). GB = 1e9 bytes.

Sources the formulas follow, and the tests that reproduce their worked numbers: the scaling
book (Austin et al., *How to Scale Your Model*, "How to Parallelize a Transformer for
Training") and the Ultra-Scale Playbook (Hugging Face, "Memory usage in transformers", "ZeRO",
"Pipeline parallelism"); activation bytes per layer follow Korthikanti et al. (2022), as the
playbook does.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from .._display import format_bytes, html_table, text_table
from ..compiled.comm_costs import CollectiveCost, collective_cost
from ..compiled.topologies import INTERCONNECTS, Interconnect
from .peaks import peak_for

DTYPE_BYTES: dict[str, int] = {
    "float32": 4,
    "bfloat16": 2,
    "float16": 2,
    "float8": 1,
    "int8": 1,
}

#: Optimizer states per parameter (kept in :attr:`Precision.optimizer`).
OPTIMIZER_STATES: dict[str, int] = {"adam": 2, "adamw": 2, "momentum": 1, "sgd": 0}

RematPolicy = Literal["none", "selective", "mlp-matmuls", "full"]
REMAT_POLICIES: tuple[str, ...] = ("none", "selective", "mlp-matmuls", "full")


def _bytes_of(dtype: str) -> int:
    try:
        return DTYPE_BYTES[dtype]
    except KeyError:
        raise ValueError(f"unknown dtype {dtype!r}; choose from {sorted(DTYPE_BYTES)}") from None


# --------------------------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Transformer:
    """A decoder-only transformer's sizes, and the batch of one training step.

    ``batch`` is the global batch in sequences of ``seq`` tokens. ``gated_mlp`` is a SwiGLU
    MLP (three ``d_model x d_ff`` matrices, as LLaMA); without it, two (GPT). ``experts > 1``
    makes every layer's MLP a mixture of ``experts`` MLPs of which ``experts_per_token`` run for
    each token. ``dropout`` adds the one-byte masks dropout keeps (most modern LLMs train
    without it; the playbook's activation formula includes them).
    """

    layers: int
    d_model: int
    d_ff: int
    heads: int
    kv_heads: int | None = None
    head_dim: int | None = None
    vocab: int = 32_000
    seq: int = 2048
    batch: int = 256
    gated_mlp: bool = True
    tied_embeddings: bool = False
    experts: int = 1
    experts_per_token: int = 1
    dropout: bool = False

    def __post_init__(self) -> None:
        for name in ("layers", "d_model", "d_ff", "heads", "vocab", "seq", "batch", "experts"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.kv_heads is not None and self.heads % self.kv_heads:
            raise ValueError(f"heads ({self.heads}) must be a multiple of kv_heads")
        if self.head_dim is None and self.d_model % self.heads:
            raise ValueError("d_model must be a multiple of heads, or give head_dim")
        if not 1 <= self.experts_per_token <= self.experts:
            raise ValueError("experts_per_token must be between 1 and experts")

    @property
    def kv(self) -> int:
        """Key/value heads (``heads`` unless grouped-query attention)."""
        return self.kv_heads if self.kv_heads is not None else self.heads

    @property
    def hd(self) -> int:
        """Width of one head."""
        return self.head_dim if self.head_dim is not None else self.d_model // self.heads

    @property
    def mlp_matrices(self) -> int:
        return 3 if self.gated_mlp else 2

    @property
    def attention_params(self) -> int:
        """Q, K, V and output projections of one layer (no biases)."""
        d, q, kv = self.d_model, self.heads * self.hd, self.kv * self.hd
        return d * q + 2 * d * kv + q * d

    @property
    def expert_params(self) -> int:
        """One MLP (one expert) of one layer."""
        return self.mlp_matrices * self.d_model * self.d_ff

    @property
    def router_params(self) -> int:
        return self.d_model * self.experts if self.experts > 1 else 0

    @property
    def norm_params(self) -> int:
        """Two RMS/LayerNorm scales per layer (biases left out)."""
        return 2 * self.d_model

    @property
    def layer_params(self) -> int:
        """Every parameter of one layer, all experts included."""
        return (
            self.attention_params
            + self.experts * self.expert_params
            + self.router_params
            + self.norm_params
        )

    @property
    def embedding_params(self) -> int:
        """Input and output embeddings (one matrix when tied) and the final norm."""
        tables = 1 if self.tied_embeddings else 2
        return tables * self.vocab * self.d_model + self.d_model

    @property
    def params(self) -> int:
        """Every parameter of the model."""
        return self.layers * self.layer_params + self.embedding_params

    @property
    def active_matmul_params(self) -> int:
        """Parameters each token multiplies by: what ``6 N`` counts (the input embedding is a
        lookup, the output projection a matmul)."""
        per_layer = (
            self.attention_params + self.experts_per_token * self.expert_params + self.router_params
        )
        return self.layers * per_layer + self.vocab * self.d_model

    @property
    def tokens(self) -> int:
        """Tokens in one global batch."""
        return self.batch * self.seq

    def model_flops(self) -> float:
        """FLOPs of one training step, forward and backward, without recomputation.

        ``6 N T`` for the matmuls with parameters (the scaling book's count: 2 forward, 4
        backward) plus the attention scores and their use, ``12 L B S^2 H hd`` (forward ``4``,
        backward ``8``; the full square, causal masking ignored as the book does).
        """
        matmuls = 6 * self.active_matmul_params * self.tokens
        attention = 12 * self.layers * self.batch * self.seq**2 * self.heads * self.hd
        return float(matmuls + attention)

    def with_batch(self, batch: int) -> Transformer:
        """The same model with another global batch (sequences)."""
        return replace(self, batch=batch)

    @classmethod
    def preset(cls, name: str, *, seq: int = 4096, batch: int = 256) -> Transformer:
        """A published model's shape: see :data:`PRESETS`."""
        key = name.lower()
        if key not in PRESETS:
            raise ValueError(f"unknown model {name!r}; choose from {sorted(PRESETS)}")
        return replace(PRESETS[key], seq=seq, batch=batch)

    @classmethod
    def from_params(
        cls, params: float, *, seq: int = 4096, batch: int = 256, vocab: int = 32_000
    ) -> Transformer:
        """A LLaMA-like shape with about ``params`` parameters.

        Width about 128 per layer (rounded to a multiple of 1024 from 2048 on, else of 128),
        heads of 128,
        up to eight key/value heads, a SwiGLU MLP of ``d_ff = 3.5 d_model`` (rounded to 256), so
        a layer holds about ``12.5 d_model^2`` parameters; the width is solved with the two
        embedding tables counted. The result's :attr:`params` says how
        close it came (the embeddings make small models larger than asked).
        """
        if params < 1e6:
            raise ValueError(f"params must be at least 1e6, got {params:g}")
        layers = max(2, round((params / (12.5 * 128**2)) ** (1 / 3)))
        # 12.5 L d^2 + 2 V d = params, solved for d (the embeddings included).
        a, b = 12.5 * layers, 2 * vocab
        width = (-b + math.sqrt(b * b + 4 * a * params)) / (2 * a)
        step = 1024 if width >= 2048 else 128  # wide models: a multiple of 8 heads of 128
        d_model = step * max(1, round(width / step))
        heads = max(1, d_model // 128)
        kv = math.gcd(heads, 8)
        d_ff = 256 * max(1, round(3.5 * d_model / 256))
        return cls(layers, d_model, d_ff, heads, kv, None, vocab, seq, batch)


#: Published shapes (the papers' and model cards' sizes). ``seq`` and ``batch`` are replaced by
#: :meth:`Transformer.preset`'s arguments.
PRESETS: dict[str, Transformer] = {
    # LLaMA 2 (Touvron et al. 2023, table of architectures): 13B.
    "llama2-13b": Transformer(40, 5120, 13824, 40, 40, None, 32_000),
    # LLaMA 3 (Meta's model card, config.json): 8B and 70B.
    "llama3-8b": Transformer(32, 4096, 14336, 32, 8, None, 128_256),
    "llama3-70b": Transformer(80, 8192, 28672, 64, 8, None, 128_256),
    # GPT-3 175B (Brown et al. 2020, table 2.1): 96 layers, 12288 wide, 96 heads, d_ff = 4 d.
    "gpt3-175b": Transformer(96, 12288, 4 * 12288, 96, None, None, 50_257, gated_mlp=False),
}


# --------------------------------------------------------------------------------------------
# Numbers and optimizer
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Precision:
    """The dtype each part of the state and the activations are kept in.

    ``master`` is a float32 copy of the parameters kept beside ``params`` when those are in a
    lower precision (None: no copy); ``grad_accum`` a float32 buffer gradients are added up in
    (None: gradients stay in ``grads``). The playbook's mixed precision is ``Precision()``:
    2 + 2 + 4 + 8 = 16 bytes per parameter with Adam, 20 with ``grad_accum="float32"``.
    """

    params: str = "bfloat16"
    master: str | None = "float32"
    grads: str = "bfloat16"
    grad_accum: str | None = None
    optimizer: str = "float32"
    activations: str = "bfloat16"

    def __post_init__(self) -> None:
        for name in ("params", "master", "grads", "grad_accum", "optimizer", "activations"):
            value = getattr(self, name)
            if value is not None:
                _bytes_of(value)

    @classmethod
    def named(cls, name: str) -> Precision:
        """``"mixed"`` (the default: bfloat16 with float32 master and Adam), ``"mixed-fp32-acc"``
        (plus a float32 gradient buffer), ``"fp32"`` (everything float32), ``"bf16"`` (the
        scaling book's: bfloat16 parameters, gradients and activations, float32 optimizer
        state, no master copy)."""
        table = {
            "mixed": cls(),
            "mixed-fp32-acc": cls(grad_accum="float32"),
            "fp32": cls("float32", None, "float32", None, "float32", "float32"),
            "bf16": cls("bfloat16", None, "bfloat16", None, "float32", "bfloat16"),
        }
        if name not in table:
            raise ValueError(f"unknown precision {name!r}; choose from {sorted(table)}")
        return table[name]

    def state_bytes(self, optimizer: str = "adam") -> dict[str, int]:
        """Bytes per parameter of each part of the state: ``params``, ``grads``,
        ``optimizer`` (the master copy included, as ZeRO shards them together)."""
        states = _optimizer_states(optimizer)
        master = _bytes_of(self.master) if self.master else 0
        accum = _bytes_of(self.grad_accum) if self.grad_accum else 0
        return {
            "params": _bytes_of(self.params),
            "grads": _bytes_of(self.grads) + accum,
            "optimizer": master + states * _bytes_of(self.optimizer),
        }


def _optimizer_states(optimizer: str) -> int:
    try:
        return OPTIMIZER_STATES[optimizer.lower()]
    except KeyError:
        raise ValueError(
            f"unknown optimizer {optimizer!r}; choose from {sorted(OPTIMIZER_STATES)}"
        ) from None


# --------------------------------------------------------------------------------------------
# The machine
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Machine:
    """One kind of device and how devices are joined.

    ``node_size`` devices share the fast interconnect (``fast``: NVLink through NVSwitch in a
    GPU node; ICI across a whole TPU slice); a mesh axis that reaches beyond one node crosses
    ``slow`` (InfiniBand per GPU, TPU DCN per host). Bandwidths are per link (or switch port),
    one direction, as :mod:`aurora_helpers.compiled.topologies` takes them.
    """

    name: str
    flops: float
    """Dense matmul FLOP/s of one device in the compute dtype (bfloat16 for the presets)."""
    memory: float
    """Bytes of device memory (HBM) per device."""
    memory_bandwidth: float | None
    node_size: int
    fast: Interconnect
    slow: Interconnect | None
    source: str = ""

    def interconnect(self, outer_stride: int) -> Interconnect:
        """The interconnect an axis uses when its devices span ``outer_stride`` consecutive
        device positions (its size times the sizes of the axes inside it)."""
        if outer_stride <= self.node_size or self.slow is None:
            return self.fast
        return self.slow

    @classmethod
    def preset(cls, name: str) -> Machine:
        """A machine from :data:`MACHINES` (``h100``, ``h200``, ``tpu-v5e``, ``tpu-v5p``,
        ``tpu-v6e``)."""
        key = name.lower().replace("_", "-")
        key = {"v5p": "tpu-v5p", "v5e": "tpu-v5e", "v6e": "tpu-v6e"}.get(key, key)
        if key not in MACHINES:
            raise ValueError(f"unknown machine {name!r}; choose from {sorted(MACHINES)}")
        return MACHINES[key]

    @classmethod
    def from_bench(
        cls, report: Mapping[str, Any], *, like: str | Machine, dtype: str = "bfloat16"
    ) -> Machine:
        """``like`` with the compute and memory-bandwidth roofs measured by ``aurora bench
        --json`` (its parsed output, or one of its ``results``).

        The benchmark measures one device: memory size and interconnect come from ``like``.

        Raises:
            ValueError: the report holds no matmul figure for ``dtype``.
        """
        base = like if isinstance(like, Machine) else cls.preset(like)
        results = report.get("results", [report])
        flops = bandwidth = None
        for result in results:
            for row in result.get("summary", []):
                if row.get("metric") == "matmul" and row.get("dtype") == dtype:
                    flops = float(row["value"]) * 1e12
                if row.get("metric") == "copy":
                    bandwidth = float(row["value"]) * 1e9
        if flops is None:
            raise ValueError(
                f"the report holds no {dtype} matmul figure; run `aurora bench --json` and pass "
                "its parsed output"
            )
        return replace(
            base,
            name=f"{base.name} (measured)",
            flops=flops,
            memory_bandwidth=bandwidth if bandwidth is not None else base.memory_bandwidth,
            source=f"aurora bench --json; memory and links from {base.name}",
        )


def _peak(kind: str) -> tuple[float, float]:
    peak = peak_for(kind)
    if peak is None or peak.bfloat16_tflops is None or peak.memory_gbps is None:
        raise ValueError(f"no published bfloat16 peak for {kind!r}")
    return peak.bfloat16_tflops * 1e12, peak.memory_gbps * 1e9


_IB = Interconnect(
    "InfiniBand NDR, one 400 Gb/s port per GPU",
    50e9,
    None,
    "NVIDIA ConnectX-7 NDR: 400 Gb/s = 50 GB/s per direction, one adapter per GPU (DGX H100)",
    "always",
)
_H200_NVLINK = Interconnect(
    "NVIDIA H200 SXM NVLink (NVSwitch)",
    450e9,
    None,
    "NVIDIA H200 datasheet: NVLink 900 GB/s (both directions)",
    "always",
)

_GIB = 2**30


def _machines() -> dict[str, Machine]:
    h100, h100_bw = _peak("NVIDIA H100 80GB HBM3")
    h200, h200_bw = _peak("NVIDIA H200")
    v5p, v5p_bw = _peak("TPU v5p")
    v5e, v5e_bw = _peak("TPU v5e")
    v6e, v6e_bw = _peak("TPU v6e")
    dcn = INTERCONNECTS["tpu-dcn"]
    return {
        "h100": Machine(
            "NVIDIA H100 SXM",
            h100,
            80e9,
            h100_bw,
            8,
            INTERCONNECTS["h100-nvlink"],
            _IB,
            "ah.PEAKS (H100 SXM); 80 GB HBM3; 8 GPUs per NVSwitch node (DGX/HGX H100)",
        ),
        "h200": Machine(
            "NVIDIA H200 SXM",
            h200,
            141e9,
            h200_bw,
            8,
            _H200_NVLINK,
            _IB,
            "ah.PEAKS (H200 SXM); 141 GB HBM3e (H200 datasheet); 8 GPUs per node (HGX H200)",
        ),
        "tpu-v5p": Machine(
            "TPU v5p",
            v5p,
            95 * _GIB,
            v5p_bw,
            8960,
            INTERCONNECTS["tpu-v5p"],
            dcn,
            "ah.PEAKS (TPU v5p); 95 GiB HBM per chip and 8960 chips per pod (Cloud TPU docs)",
        ),
        "tpu-v5e": Machine(
            "TPU v5e",
            v5e,
            16 * _GIB,
            v5e_bw,
            256,
            INTERCONNECTS["tpu-v5e"],
            dcn,
            "ah.PEAKS (TPU v5e); 16 GiB HBM per chip and 256 chips per pod (Cloud TPU docs)",
        ),
        "tpu-v6e": Machine(
            "TPU v6e",
            v6e,
            32 * _GIB,
            v6e_bw,
            256,
            INTERCONNECTS["tpu-v6e"],
            dcn,
            "ah.PEAKS (TPU v6e); 32 GiB HBM per chip and 256 chips per pod (Cloud TPU docs)",
        ),
    }


#: The machines :meth:`Machine.preset` knows, by short name.
MACHINES: dict[str, Machine] = _machines()


# --------------------------------------------------------------------------------------------
# The layout
# --------------------------------------------------------------------------------------------

#: Mesh axes from the innermost (neighbouring devices) to the outermost.
AXES: tuple[str, ...] = ("tensor", "fsdp", "data", "pipeline")


@dataclass(frozen=True)
class Layout:
    """How the devices split the work: a mesh ``tensor x fsdp x data x pipeline`` (innermost
    first, so tensor parallelism stays inside a node) and the choices that go with it.

    - ``data``: replicas that each hold the whole state (pure data parallelism; gradients are
      all-reduced).
    - ``fsdp`` with ``zero``: replicas that shard the state, ZeRO stage 1 (optimizer state),
      2 (and gradients) or 3 (and parameters: FSDP). Both axes split the batch.
    - ``tensor``: Megatron-style tensor parallelism (heads and ``d_ff`` split; with
      ``sequence_parallel`` the activations between the blocks are split too).
    - ``pipeline`` stages with ``microbatches`` per step (``schedule`` ``"1f1b"`` keeps at most
      ``pipeline`` microbatches' activations, ``"gpipe"`` all of them); without a pipeline,
      ``microbatches > 1`` is gradient accumulation.
    - ``experts``: expert parallelism, experts split over that many devices of the data axes
      (``data * fsdp`` must be a multiple of it); tokens travel by all-to-all.
    - ``remat``: what the backward pass keeps. ``"none"`` keeps every activation it uses;
      ``"selective"`` drops the attention scores (the playbook's selective recomputation;
      nothing changes under ``flash_attention``, which never keeps them); ``"mlp-matmuls"`` keeps
      only the outputs of the MLP's matmuls (the scaling book's "checkpoint after the three big
      matmuls"); ``"full"`` keeps each layer's input and recomputes the layer.
    """

    data: int = 1
    fsdp: int = 1
    zero: int = 3
    tensor: int = 1
    pipeline: int = 1
    microbatches: int = 1
    experts: int = 1
    remat: RematPolicy = "none"
    sequence_parallel: bool = True
    flash_attention: bool = True
    schedule: Literal["1f1b", "gpipe"] = "1f1b"

    def __post_init__(self) -> None:
        for name in ("data", "fsdp", "tensor", "pipeline", "microbatches", "experts"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.zero not in (1, 2, 3):
            raise ValueError(f"zero must be 1, 2 or 3, got {self.zero}")
        if self.remat not in REMAT_POLICIES:
            raise ValueError(f"remat must be one of {REMAT_POLICIES}, got {self.remat!r}")
        if self.schedule not in ("1f1b", "gpipe"):
            raise ValueError(f"schedule must be '1f1b' or 'gpipe', got {self.schedule!r}")
        if (self.data * self.fsdp) % self.experts:
            raise ValueError("experts (expert parallelism) must divide data * fsdp")

    @property
    def devices(self) -> int:
        return self.data * self.fsdp * self.tensor * self.pipeline

    @property
    def replicas(self) -> int:
        """Ways the batch is split (``data * fsdp``)."""
        return self.data * self.fsdp

    def axis_sizes(self) -> dict[str, int]:
        return {
            "tensor": self.tensor,
            "fsdp": self.fsdp,
            "data": self.data,
            "pipeline": self.pipeline,
        }

    @property
    def name(self) -> str:
        """A short label: ``"DP2 x ZeRO-3(4) x TP2"``."""
        parts = []
        if self.data > 1:
            parts.append(f"DP{self.data}")
        if self.fsdp > 1:
            parts.append(f"FSDP{self.fsdp}" if self.zero == 3 else f"ZeRO-{self.zero}({self.fsdp})")
        if self.tensor > 1:
            parts.append(f"TP{self.tensor}" + ("" if self.sequence_parallel else "(no SP)"))
        if self.pipeline > 1:
            parts.append(f"PP{self.pipeline}")
        if self.experts > 1:
            parts.append(f"EP{self.experts}")
        base = " x ".join(parts) if parts else "1 device"
        extras = []
        if self.microbatches > 1:
            extras.append(f"mb{self.microbatches}")
        if self.remat != "none":
            extras.append(f"remat={self.remat}")
        return base + (f" [{', '.join(extras)}]" if extras else "")

    def problems(self, model: Transformer) -> list[str]:
        """Why this layout cannot run ``model`` (empty when it can)."""
        out = []
        if model.heads % self.tensor or (model.kv % self.tensor and self.tensor % model.kv):
            out.append(f"tensor={self.tensor} does not split {model.heads} heads / {model.kv} KV")
        if model.d_ff % self.tensor:
            out.append(f"tensor={self.tensor} does not divide d_ff={model.d_ff}")
        if self.pipeline > model.layers:
            out.append(f"pipeline={self.pipeline} exceeds {model.layers} layers")
        if model.batch % (self.replicas * self.microbatches):
            out.append(
                f"batch={model.batch} does not split into {self.replicas} replicas x "
                f"{self.microbatches} microbatches"
            )
        if model.experts % self.experts:
            out.append(f"experts={self.experts} does not divide {model.experts} experts")
        return out


# --------------------------------------------------------------------------------------------
# The plan
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Collective:
    """One kind of collective of the step, on one mesh axis, with how often it runs."""

    what: str
    """What it moves and why, in words."""
    axis: str
    cost: CollectiveCost
    """One run's cost (bytes, group, topology)."""
    count: int
    """Runs per step."""
    seconds: float
    """Time of all runs together."""
    overlaps: Literal["forward", "backward", "none"]
    """The compute it can hide behind (``"none"``: on the critical path)."""

    @property
    def kind(self) -> str:
        return self.cost.kind

    @property
    def sent(self) -> float:
        """Bytes each device sends, all runs together."""
        return float(self.cost.sent) * self.count


@dataclass(frozen=True)
class Plan:
    """What :func:`plan` predicts for one layout (the busiest device, one step)."""

    model: Transformer
    layout: Layout
    machine: Machine
    precision: Precision
    optimizer: str
    memory: dict[str, float]
    """Bytes per device: ``params``, ``grads``, ``optimizer``, ``activations`` (kept for the
    backward pass), ``transient`` (the largest short-lived buffer), ``peak`` (all of them)."""
    collectives: tuple[Collective, ...]
    compute_forward: float
    compute_backward: float
    """Seconds of compute on one device at the machine's peak, recomputation included."""
    bubble: float
    """Seconds the pipeline's first stage waits (``(p - 1) / m`` of the compute)."""

    @property
    def fits(self) -> bool:
        return self.memory["peak"] <= self.machine.memory

    @property
    def compute_seconds(self) -> float:
        return self.compute_forward + self.compute_backward

    @property
    def comm_seconds(self) -> float:
        """Every collective's time, one after another."""
        return sum(c.seconds for c in self.collectives)

    def _hidden(self, phase: str) -> float:
        return sum(c.seconds for c in self.collectives if c.overlaps == phase)

    @property
    def step_seconds(self) -> float:
        """The step-time bound: compute, the bubble, the critical-path collectives, and what the
        overlappable collectives take beyond the pass they hide behind."""
        forward = max(self.compute_forward, self._hidden("forward"))
        backward = max(self.compute_backward, self._hidden("backward"))
        return forward + backward + self._hidden("none") + self.bubble

    @property
    def exposed_comm_seconds(self) -> float:
        """Communication time not hidden behind compute."""
        return self.step_seconds - self.compute_seconds - self.bubble

    @property
    def bound(self) -> str:
        """``"communication"`` when communication, not compute, sets a pass's time: the
        collectives that overlap a pass take longer than its compute (the scaling book's sense:
        below the critical batch), or the critical-path ones take longer than all the compute;
        else ``"compute"``. A few milliseconds of exposed pipeline permutes in a second-long step
        do not make it communication-bound (they still count in :attr:`exposed_comm_seconds`)."""
        overlapped = (
            self._hidden("forward") > self.compute_forward
            or self._hidden("backward") > self.compute_backward
        )
        critical = self._hidden("none") > self.compute_seconds
        return "communication" if overlapped or critical else "compute"

    @property
    def mfu(self) -> float:
        """Model-FLOPs utilisation at the bound: model FLOPs over the devices' peak FLOPs in
        the step time (recomputation is not model FLOPs)."""
        total = self.machine.flops * self.layout.devices * self.step_seconds
        return self.model.model_flops() / total if total else 0.0

    @property
    def tokens_per_second(self) -> float:
        return self.model.tokens / self.step_seconds

    def sent_by_kind(self) -> dict[str, float]:
        """Bytes each device sends per step, by collective kind."""
        out: dict[str, float] = {}
        for c in self.collectives:
            out[c.kind] = out.get(c.kind, 0.0) + c.sent
        return out

    def summary(self) -> str:
        mem = self.memory
        lines = [
            f"{self.layout.name} on {self.layout.devices} x {self.machine.name}",
            "memory per device: "
            + ", ".join(
                f"{k} {format_bytes(int(mem[k]))}"
                for k in ("params", "grads", "optimizer", "activations", "transient")
            )
            + f"; peak {format_bytes(int(mem['peak']))} of "
            f"{format_bytes(int(self.machine.memory))} ({'fits' if self.fits else 'does NOT fit'})",
            f"compute {self.compute_seconds * 1e3:.2f} ms, communication "
            f"{self.comm_seconds * 1e3:.2f} ms (exposed {self.exposed_comm_seconds * 1e3:.2f} "
            f"ms), bubble {self.bubble * 1e3:.2f} ms; step >= {self.step_seconds * 1e3:.2f} ms, "
            f"{self.bound}-bound, MFU <= {self.mfu:.0%}",
        ]
        for c in self.collectives:
            lines.append(
                f"  {c.kind} on {c.axis} ({c.cost.devices} devices, {c.cost.topology}) x"
                f"{c.count}: {format_bytes(int(c.cost.nbytes))} each, {c.what}; "
                f"{c.seconds * 1e3:.2f} ms"
            )
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def collective_rows(self) -> list[list[object]]:
        """One row per collective: kind, axis, group, topology, runs, bytes each, seconds."""
        return [
            [
                c.kind,
                c.axis,
                c.cost.devices,
                c.cost.topology,
                c.count,
                format_bytes(int(c.cost.nbytes)),
                f"{c.seconds * 1e3:,.2f}",
                c.overlaps,
                c.what,
            ]
            for c in self.collectives
        ]

    def _repr_html_(self) -> str:
        mem = [
            [part, format_bytes(int(self.memory[part]))]
            for part in ("params", "grads", "optimizer", "activations", "transient", "peak")
        ]
        verdict = "fits" if self.fits else "does NOT fit"
        caption = (
            f"{self.layout.name} on {self.layout.devices} x {self.machine.name}: peak "
            f"{format_bytes(int(self.memory['peak']))} of "
            f"{format_bytes(int(self.machine.memory))} ({verdict}); step >= "
            f"{self.step_seconds * 1e3:,.2f} ms, {self.bound}-bound, MFU <= {self.mfu:.0%}"
        )
        headers = ("collective", "axis", "group", "topology", "runs", "bytes each", "ms",
                   "hides behind", "what")  # fmt: skip
        return html_table(("memory per device", "bytes"), mem, caption=caption) + html_table(
            headers, self.collective_rows()
        )


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def activation_bytes_per_layer(
    model: Transformer,
    layout: Layout,
    precision: Precision,
    tokens: int,
    *,
    policy: str | None = None,
) -> float:
    """Bytes one layer keeps for the backward pass, for ``tokens`` tokens of one microbatch on
    one device (``tokens = sequences x seq``), under ``policy`` (default ``layout.remat``).

    The count follows Korthikanti et al. (2022), table 2, generalised to grouped-query attention
    and gated MLPs: per token, in the activation dtype, the two norms' inputs and the matmuls'
    inputs (``d`` each: norm inputs, Q/K/V input, attention output, MLP input), Q, K and V, the
    MLP's intermediate results (``2 d_ff`` plain, ``3 d_ff`` gated), the softmax output unless
    flash attention (``heads x seq`` per token), and one-byte dropout masks when the model uses
    dropout. With ``dropout`` on, a GPT-style layer and no flash attention this is exactly
    ``seq b h (34 + 5 a seq / h)`` bytes, the playbook's formula. Tensor parallelism splits the
    heads' and ``d_ff``'s pieces, sequence parallelism the ``d``-wide ones.
    """
    act = _bytes_of(precision.activations)
    d, t = model.d_model, layout.tensor
    sp = t if layout.sequence_parallel else 1
    q, kv = model.heads * model.hd, model.kv * model.hd
    how = policy if policy is not None else layout.remat
    experts_run = model.experts_per_token
    mlp_inner = (3 if model.gated_mlp else 2) * model.d_ff * experts_run
    if how == "full":
        return float(tokens * d * act / sp)
    if how == "mlp-matmuls":
        up = (2 if model.gated_mlp else 1) * model.d_ff * experts_run
        return float(tokens * act * (up / t + d / sp))
    # "none" and "selective": every activation the backward pass reads.
    d_wide = 4 * d  # norm inputs (2), Q/K/V input, MLP input
    inner = q + 2 * kv + q + mlp_inner  # Q, K, V, attention output, MLP intermediates
    per_token = act * (d_wide / sp + inner / t)
    if model.dropout:
        per_token += 2 * d / sp  # masks after the attention and MLP outputs (one byte each)
    scores = 0.0
    if not layout.flash_attention and how == "none":
        per_score = act + (1 + act if model.dropout else 0)  # softmax out, mask, dropped out
        scores = model.heads / t * model.seq * per_score
    return float(tokens * (per_token + scores))


def _layer_split(model: Transformer, layout: Layout) -> int:
    return _ceil_div(model.layers, layout.pipeline)


def _state_counts(model: Transformer, layout: Layout) -> tuple[float, float]:
    """Parameters on the busiest device before ZeRO: (dense ones, expert ones)."""
    layers = _layer_split(model, layout)
    t = layout.tensor
    dense_layer = model.attention_params + model.router_params + model.norm_params
    expert_layer = model.experts * model.expert_params
    if layout.pipeline > 1:
        embed = model.vocab * model.d_model + model.d_model  # each end stage holds one table
    else:
        embed = model.embedding_params
    dense = layers * dense_layer / t + embed / t
    experts = layers * expert_layer / (t * layout.experts)
    return dense, experts


def plan(
    model: Transformer,
    machine: Machine | str,
    layout: Layout | None = None,
    *,
    precision: Precision | str = "mixed",
    optimizer: str = "adam",
    axis_links: Mapping[str, int] | None = None,
    combine: Literal["sum", "max"] = "sum",
    efficiency: float = 1.0,
) -> Plan:
    """Predict one training step of ``model`` under ``layout`` on ``machine``.

    Args:
        model: the transformer and its global batch.
        machine: a :class:`Machine` or a preset's name (``"h100"``, ``"tpu-v5p"``, ...).
        layout: the :class:`Layout` (default: one device).
        precision: a :class:`Precision` or a name for :meth:`Precision.named`.
        optimizer: ``"adam"`` (two states), ``"momentum"`` (one), ``"sgd"`` (none).
        axis_links: links each mesh axis uses in parallel (default 1): an axis laid along
            three torus dimensions of a TPU moves its bytes over three links at once (the
            scaling book's "multiple axes" case), so its bandwidth is three times one link's.
        combine: how a collective's latency and bandwidth terms add
            (:meth:`aurora_helpers.CollectiveCost.seconds`).
        efficiency: the fraction of the peak FLOP/s the step's compute reaches (default 1: the
            bound; 0.5 to 0.6 is typical of a well-tuned large run). MFU then stays below it.

    Raises:
        ValueError: a layout that cannot run this model (the message lists why).
    """
    lay = layout if layout is not None else Layout()
    mach = Machine.preset(machine) if isinstance(machine, str) else machine
    prec = Precision.named(precision) if isinstance(precision, str) else precision
    problems = lay.problems(model)
    if problems:
        raise ValueError("; ".join(problems))
    links = dict(axis_links or {})
    per_param = prec.state_bytes(optimizer)
    dense, expert = _state_counts(model, lay)
    # ZeRO shards over the fsdp axis; expert weights are already split over `experts` devices
    # of the data axes, and ZeRO shards them further over what is left of the fsdp axis.
    f = lay.fsdp
    f_expert = max(1, f // math.gcd(f, lay.experts)) if f > 1 else 1
    local = dense + expert
    sharded = dense / f + expert / f_expert

    def held(part: str, stage: int) -> float:
        return (sharded if lay.zero >= stage and f > 1 else local) * per_param[part]

    memory: dict[str, float] = {
        "params": held("params", 3),
        "grads": held("grads", 2),
        "optimizer": held("optimizer", 1),
    }
    # Activations: the busiest (first) stage's layers, for the microbatches in flight.
    seqs_per_replica = model.batch // lay.replicas
    micro_seqs = seqs_per_replica // lay.microbatches
    micro_tokens = micro_seqs * model.seq
    layers = _layer_split(model, lay)
    in_flight = 1
    if lay.pipeline > 1:
        in_flight = (
            lay.microbatches if lay.schedule == "gpipe" else min(lay.pipeline, lay.microbatches)
        )
    per_layer = activation_bytes_per_layer(model, lay, prec, micro_tokens)
    act = _bytes_of(prec.activations)
    memory["activations"] = layers * in_flight * per_layer
    # Transients: the logits in float32 (vocabulary split by tensor parallelism), a layer's
    # gathered weights under ZeRO-3, a layer's full activations while it is recomputed.
    logits = micro_tokens * model.vocab / lay.tensor * 4
    gathered = (dense + expert) / layers * per_param["params"] if f > 1 and lay.zero == 3 else 0
    recompute = (
        activation_bytes_per_layer(model, lay, prec, micro_tokens, policy="none")
        if lay.remat != "none"
        else 0.0
    )
    memory["transient"] = max(logits, gathered + recompute)
    memory["peak"] = sum(
        memory[k] for k in ("params", "grads", "optimizer", "activations", "transient")
    )

    # Compute: model FLOPs split over every device; recomputation adds forward work.
    flops = model.model_flops() / lay.devices
    forward, backward = flops / 3, 2 * flops / 3
    if lay.remat == "full":
        backward += forward
    elif lay.remat == "mlp-matmuls":
        backward += forward / 2  # attention and the down projection are recomputed
    elif lay.remat == "selective" and not lay.flash_attention:
        attention = 4 * model.layers * model.batch * model.seq**2 * model.heads * model.hd
        backward += attention / lay.devices
    if not 0 < efficiency <= 1:
        raise ValueError(f"efficiency must be in (0, 1], got {efficiency}")
    rate = mach.flops * efficiency
    compute_forward, compute_backward = forward / rate, backward / rate
    bubble = 0.0
    if lay.pipeline > 1:
        bubble = (compute_forward + compute_backward) * (lay.pipeline - 1) / lay.microbatches

    # Collectives.
    sizes = lay.axis_sizes()
    stride = 1
    wiring: dict[str, tuple[Interconnect, str]] = {}
    for axis in AXES:
        stride *= sizes[axis]
        net = mach.interconnect(stride)
        wiring[axis] = (net, net.topology(sizes[axis]))

    out: list[Collective] = []

    def add(
        what: str,
        axis: str,
        kind: str,
        nbytes: float,
        count: int,
        overlaps: Literal["forward", "backward", "none"],
    ) -> None:
        n = sizes[axis] if kind != "all-to-all" else lay.experts
        if n <= 1 or count == 0 or nbytes <= 0:
            return
        net, topology = wiring[axis]
        cost = collective_cost(kind, round(nbytes), n, topology=topology)
        bandwidth = net.link_bandwidth * links.get(axis, 1)
        latency = net.hop_latency or 0.0
        seconds = count * cost.seconds(latency, bandwidth, combine=combine)
        out.append(Collective(what, axis, cost, count, seconds, overlaps))

    p_bytes, g_bytes = _bytes_of(prec.params), _bytes_of(prec.grads)
    dense_fsdp = dense / f if f > 1 else dense  # what the data axis reduces under ZeRO-2/3
    if f > 1:
        # ZeRO-3 gathers and scatters once per microbatch (FSDP frees the gathered weights
        # after each use); ZeRO-1/2 reduce-scatter once per step, after accumulating.
        per_step = lay.microbatches if lay.zero == 3 else 1
        add(
            "gradients reduce-scattered (ZeRO)",
            "fsdp",
            "reduce-scatter",
            local * g_bytes,
            per_step,
            "backward",
        )
        if lay.zero == 3:
            add(
                "parameters gathered for the forward pass",
                "fsdp",
                "all-gather",
                local * p_bytes,
                per_step,
                "forward",
            )
            add(
                "parameters gathered again for the backward pass",
                "fsdp",
                "all-gather",
                local * p_bytes,
                per_step,
                "backward",
            )
        else:
            add(
                "updated parameters gathered after the optimizer step (ZeRO-1/2)",
                "fsdp",
                "all-gather",
                local * p_bytes,
                1,
                "forward",
            )
    if lay.data > 1:
        reduce = dense_fsdp + (expert / f_expert if f > 1 else expert)
        add(
            "gradients all-reduced across replicas",
            "data",
            "all-reduce",
            reduce * g_bytes,
            1,
            "backward",
        )
    if lay.tensor > 1:
        activation = micro_tokens * model.d_model * act
        # Per pass and microbatch: one per attention block and one per MLP (Megatron's f and g),
        # and one for the vocabulary-parallel embedding's output (forward) or the logits'
        # input gradient (backward).
        per_pass = (2 * layers + 1) * lay.microbatches
        if lay.sequence_parallel:
            add(
                "activations gathered before each block (sequence parallel)",
                "tensor",
                "all-gather",
                activation,
                2 * per_pass,
                "none",
            )
            add(
                "block outputs reduce-scattered (sequence parallel)",
                "tensor",
                "reduce-scatter",
                activation,
                2 * per_pass,
                "none",
            )
        else:
            add(
                "block outputs all-reduced (forward and backward)",
                "tensor",
                "all-reduce",
                activation,
                2 * per_pass,
                "none",
            )
    if lay.pipeline > 1:
        boundary = micro_tokens * model.d_model * act / (lay.tensor if lay.sequence_parallel else 1)
        add(
            "activations to the next stage, gradients back",
            "pipeline",
            "collective-permute",
            boundary,
            2 * lay.microbatches,
            "none",
        )
    if lay.experts > 1 and model.experts > 1:
        routed = micro_tokens * model.experts_per_token * model.d_model * act
        add(
            "tokens to their experts and back (forward and backward)",
            "data",
            "all-to-all",
            routed,
            4 * layers * lay.microbatches,
            "none",
        )

    return Plan(
        model,
        lay,
        mach,
        prec,
        optimizer,
        memory,
        tuple(out),
        compute_forward,
        compute_backward,
        bubble,
    )


# --------------------------------------------------------------------------------------------
# The search
# --------------------------------------------------------------------------------------------


def _divisors(n: int) -> list[int]:
    return [k for k in range(1, n + 1) if n % k == 0]


def layouts(
    model: Transformer,
    devices: int,
    *,
    node_size: int | None = None,
    remat: Iterable[str] = REMAT_POLICIES,
    microbatches: Iterable[int] | None = None,
) -> Iterator[Layout]:
    """Every layout of ``devices`` devices that can run ``model``: each factorisation into
    ``data x fsdp x tensor x pipeline``, each ZeRO stage where ``fsdp > 1``, each remat policy,
    and for pipelines ``microbatches`` (default ``2p`` and ``4p``); tensor parallelism kept
    inside ``node_size`` devices when given. The layouts use flash attention, under which
    ``"selective"`` remat keeps what ``"none"`` keeps: it is not tried."""
    if devices < 1:
        raise ValueError(f"devices must be at least 1, got {devices}")
    policies = tuple(remat)
    for tensor in _divisors(devices):
        if node_size is not None and tensor > node_size:
            continue
        for pipeline in _divisors(devices // tensor):
            rest = devices // (tensor * pipeline)
            for fsdp in _divisors(rest):
                data = rest // fsdp
                stages = (1, 2, 3) if fsdp > 1 else (3,)
                choices = (
                    tuple(microbatches)
                    if microbatches is not None
                    else ((2 * pipeline, 4 * pipeline) if pipeline > 1 else (1,))
                )
                for zero in stages:
                    for mb in choices:
                        for policy in policies:
                            if policy == "selective":
                                continue  # the same as "none" under flash attention
                            try:
                                candidate = Layout(
                                    data,
                                    fsdp,
                                    zero,
                                    tensor,
                                    pipeline,
                                    mb,
                                    remat=policy,  # type: ignore[arg-type]
                                )
                            except ValueError:
                                continue
                            if not candidate.problems(model):
                                yield candidate


@dataclass(frozen=True)
class Ranking:
    """The layouts :func:`search` tried, the ones that fit ranked by step time."""

    plans: tuple[Plan, ...]
    """Those that fit, fastest first (ties: less memory first)."""
    tried: int
    rejected: tuple[Plan, ...] = field(default_factory=tuple)
    """Those that do not fit, smallest peak first."""

    @property
    def best(self) -> Plan:
        if not self.plans:
            raise ValueError(
                f"none of the {self.tried} layouts fits; the smallest peak was "
                + (format_bytes(int(self.rejected[0].memory["peak"])) if self.rejected else "?")
            )
        return self.plans[0]

    _HEADERS = (
        "rank",
        "layout",
        "peak / device",
        "params+grads+opt",
        "activations",
        "step (ms)",
        "exposed comm (ms)",
        "bound",
        "MFU",
    )

    def rows(self, top: int = 10) -> list[list[object]]:
        out: list[list[object]] = []
        for i, p in enumerate(self.plans[:top], 1):
            state = p.memory["params"] + p.memory["grads"] + p.memory["optimizer"]
            out.append(
                [
                    i,
                    p.layout.name,
                    format_bytes(int(p.memory["peak"])),
                    format_bytes(int(state)),
                    format_bytes(int(p.memory["activations"])),
                    f"{p.step_seconds * 1e3:,.1f}",
                    f"{p.exposed_comm_seconds * 1e3:,.1f}",
                    p.bound,
                    f"{p.mfu:.0%}",
                ]
            )
        return out

    def table(self, top: int = 10) -> str:
        head = f"{len(self.plans)} of {self.tried} layouts fit"
        return head + "\n" + text_table(self._HEADERS, self.rows(top))

    def __str__(self) -> str:
        return self.table()

    def _repr_html_(self) -> str:
        caption = f"{len(self.plans)} of {self.tried} layouts fit"
        return html_table(self._HEADERS, self.rows(), caption=caption)


def search(
    model: Transformer,
    machine: Machine | str,
    devices: int,
    *,
    precision: Precision | str = "mixed",
    optimizer: str = "adam",
    remat: Iterable[str] = REMAT_POLICIES,
    axis_links: Mapping[str, int] | None = None,
    tensor_within_node: bool = True,
    efficiency: float = 1.0,
) -> Ranking:
    """Plan every layout of :func:`layouts` and rank the ones that fit by step time.

    Args:
        model, machine, precision, optimizer, axis_links, efficiency: as for :func:`plan`.
        devices: the device count to factorise.
        remat: the remat policies to try (each layout once per policy).
        tensor_within_node: keep tensor parallelism inside one node (its traffic is on the
            critical path; across nodes it is rarely worth trying).
    """
    mach = Machine.preset(machine) if isinstance(machine, str) else machine
    node = mach.node_size if tensor_within_node else None
    plans = [
        plan(
            model,
            mach,
            lay,
            precision=precision,
            optimizer=optimizer,
            axis_links=axis_links,
            efficiency=efficiency,
        )
        for lay in layouts(model, devices, node_size=node, remat=remat)
    ]
    fitting = sorted((p for p in plans if p.fits), key=lambda p: (p.step_seconds, p.memory["peak"]))
    rejected = sorted((p for p in plans if not p.fits), key=lambda p: p.memory["peak"])
    return Ranking(tuple(fitting), len(plans), tuple(rejected))


def critical_batch(
    model: Transformer,
    machine: Machine | str,
    layout: Layout,
    *,
    precision: Precision | str = "mixed",
    optimizer: str = "adam",
    axis_links: Mapping[str, int] | None = None,
) -> float:
    """The per-device batch in tokens (global tokens over ``data x fsdp``, the scaling book's
    ``B / X``) below which ``layout`` is communication-bound, found by bisection on the batch.

    Raises:
        ValueError: the layout is communication-bound at every batch tried (up to 2^30
            sequences), or compute-bound at one sequence per replica.
    """

    def comm_bound(seqs: int) -> bool:
        m = model.with_batch(seqs * layout.replicas * layout.microbatches)
        return (
            plan(
                m, machine, layout, precision=precision, optimizer=optimizer, axis_links=axis_links
            ).bound
            == "communication"
        )

    low, high = 1, 2
    if not comm_bound(low):
        raise ValueError("compute-bound already at one sequence per replica")
    while comm_bound(high):
        low, high = high, high * 2
        if high > 2**30:
            raise ValueError("communication-bound at every batch tried")
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if comm_bound(mid) else (low, mid)
    return float(high * model.seq * layout.microbatches)
