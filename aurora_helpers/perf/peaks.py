"""Published peak figures of common accelerators, to show a measurement as a fraction of peak.

Peaks are the vendor's datasheet numbers for one chip: what the hardware could do at best, not
what any program reaches. Dense figures only: where a datasheet quotes Tensor Core throughput
"with sparsity", the dense figure is half of it. GB/s and TFLOP/s are decimal (1e9, 1e12), as in
the datasheets. Host links are per direction (a PCIe Gen5 x16 link is quoted as 128 GB/s for
both directions together, 64 GB/s each way). A device not listed has no peak: the course then
shows measured values only, never a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Peak:
    """One accelerator's published peaks (None where the vendor publishes no figure)."""

    name: str
    pattern: str
    """Regular expression matched (case-insensitively) against JAX's ``device.device_kind``."""
    memory_gbps: float | None
    """Device memory (HBM/GDDR) bandwidth, GB/s."""
    float32_tflops: float | None
    """float32 matmul peak without TF32 or bf16 passes (``precision="highest"``), TFLOP/s."""
    bfloat16_tflops: float | None
    """Dense bfloat16 matmul peak, TFLOP/s."""
    host_link_gbps: float | None
    """Host <-> device link, GB/s per direction."""
    source: str
    tf32_tflops: float | None = None
    """Dense TF32 Tensor Core peak, TFLOP/s: what a float32 matmul at JAX's default precision
    runs at on NVIDIA GPUs from Ampere on (None where the chip has no TF32)."""

    def matches(self, device_kind: str) -> bool:
        return re.search(self.pattern, device_kind, re.IGNORECASE) is not None


# Order matters: the first pattern that matches wins, so specific variants come before general ones.
PEAKS: tuple[Peak, ...] = (
    # NVIDIA H100 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/h100): H100 NVL column.
    # FP32 60 TFLOPS; TF32 Tensor 835 with sparsity -> 417.5 dense;
    # BF16 Tensor 1,671 TFLOPS with sparsity -> 835.5 dense; 3.9 TB/s HBM3;
    # PCIe Gen5 128 GB/s (both directions) -> 64 GB/s each way.
    Peak(
        "NVIDIA H100 NVL",
        r"H100.*NVL",
        3900,
        60,
        835.5,
        64,
        "NVIDIA H100 datasheet, H100 NVL",
        417.5,
    ),
    # Same datasheet, H100 PCIe column: FP32 51 TFLOPS; TF32 756 sparse -> 378 dense; BF16 1,513 sparse -> 756.5 dense;
    # 2.0 TB/s HBM2e; PCIe Gen5 128 GB/s -> 64 GB/s each way.
    Peak(
        "NVIDIA H100 PCIe",
        r"H100.*PCIe",
        2000,
        51,
        756.5,
        64,
        "NVIDIA H100 datasheet, H100 PCIe",
        378,
    ),
    # Same datasheet, H100 SXM column: FP32 67 TFLOPS; TF32 989 sparse -> 494.5 dense; BF16 1,979 sparse -> 989.5 dense;
    # 3.35 TB/s HBM3; PCIe Gen5 128 GB/s -> 64 GB/s each way. JAX reports "NVIDIA H100 80GB HBM3".
    Peak("NVIDIA H100 SXM", r"H100", 3350, 67, 989.5, 64, "NVIDIA H100 datasheet, H100 SXM", 494.5),
    # NVIDIA H200 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/h200): H200 NVL column.
    # FP32 60 TFLOPS; TF32 835 sparse -> 417.5; BF16 1,671 sparse -> 835.5 dense; 4.8 TB/s HBM3e; PCIe Gen5 -> 64 GB/s.
    Peak(
        "NVIDIA H200 NVL",
        r"(?<!G)H200.*NVL",
        4800,
        60,
        835.5,
        64,
        "NVIDIA H200 datasheet, H200 NVL",
        417.5,
    ),
    # Same datasheet, H200 SXM column: FP32 67 TFLOPS; TF32 989 sparse -> 494.5; BF16 1,979 sparse -> 989.5 dense;
    # 4.8 TB/s HBM3e; PCIe Gen5 -> 64 GB/s each way. (GH200 superchips differ: not listed.)
    Peak(
        "NVIDIA H200 SXM",
        r"(?<!G)H200",
        4800,
        67,
        989.5,
        64,
        "NVIDIA H200 datasheet, H200 SXM",
        494.5,
    ),
    # NVIDIA A100 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/a100): A100 80GB PCIe.
    # FP32 19.5 TFLOPS; TF32 Tensor 156 TFLOPS dense; BF16 Tensor 312 TFLOPS dense; 1,935 GB/s HBM2e; PCIe Gen4 64 GB/s -> 32.
    Peak(
        "NVIDIA A100 80GB PCIe",
        r"A100.*(80GB.*PCIe|PCIe.*80GB)",
        1935,
        19.5,
        312,
        32,
        "NVIDIA A100 datasheet, A100 80GB PCIe",
        156,
    ),
    # Same datasheet, A100 80GB SXM: 2,039 GB/s HBM2e; other figures as above.
    Peak(
        "NVIDIA A100 80GB SXM",
        r"A100.*80GB",
        2039,
        19.5,
        312,
        32,
        "NVIDIA A100 datasheet, A100 80GB SXM",
        156,
    ),
    # Same datasheet, A100 40GB (PCIe and SXM): 1,555 GB/s HBM2; other figures as above.
    Peak("NVIDIA A100 40GB", r"A100", 1555, 19.5, 312, 32, "NVIDIA A100 datasheet, A100 40GB", 156),
    # NVIDIA L4 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/l4): FP32 30.3 TFLOPS;
    # TF32 Tensor 120 TFLOPS with sparsity -> 60 dense;
    # BF16 Tensor 242 TFLOPS with sparsity -> 121 dense; 300 GB/s GDDR6; PCIe Gen4 x16 64 GB/s -> 32.
    Peak("NVIDIA L4", r"\bL4\b", 300, 30.3, 121, 32, "NVIDIA L4 datasheet", 60),
    # NVIDIA T4 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/tesla-t4): FP32 8.1 TFLOPS;
    # 320 GB/s GDDR6; PCIe Gen3 x16 32 GB/s -> 16. Turing Tensor Cores have no bfloat16: no bf16 peak.
    Peak("NVIDIA T4", r"\bT4\b", 320, 8.1, None, 16, "NVIDIA T4 datasheet"),
    # Google Cloud TPU documentation, "TPU v6e" page: 918 TFLOPs bf16 per chip, 1638 GBps HBM per
    # chip. TPUs publish no float32 matmul peak (float32 matmuls run as several bf16 passes).
    Peak("TPU v6e", r"TPU v6( ?lite|e)", 1638, None, 918, None, "Cloud TPU docs, TPU v6e"),
    # Google Cloud TPU documentation, "TPU v5p" page: 459 TFLOPs bf16, 2765 GBps HBM2e per chip.
    Peak("TPU v5p", r"TPU v5(p|$)", 2765, None, 459, None, "Cloud TPU docs, TPU v5p"),
    # Google Cloud TPU documentation, "TPU v5e" page: 197 TFLOPs bf16, 819 GBps HBM2 per chip.
    Peak("TPU v5e", r"TPU v5( ?lite|e)", 819, None, 197, None, "Cloud TPU docs, TPU v5e"),
    # Google Cloud TPU documentation, "TPU v4" page: 275 TFLOPs bf16, 1200 GBps HBM2 per chip.
    Peak("TPU v4", r"TPU v4", 1200, None, 275, None, "Cloud TPU docs, TPU v4"),
)


def peak_for(device_kind: str) -> Peak | None:
    """The published peaks of the accelerator named ``device_kind``, or None when it is not listed.

    ``device_kind`` is what JAX reports, e.g. ``jax.devices()[0].device_kind``. CPUs are never
    listed: their peak depends on the exact model, core count and clocks.
    """
    if not isinstance(device_kind, str):
        raise TypeError(
            f"device_kind must be a string such as 'NVIDIA H100 80GB HBM3', got {device_kind!r}"
        )
    for peak in PEAKS:
        if peak.matches(device_kind):
            return peak
    return None
