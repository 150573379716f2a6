"""Catch the silent fallback: an NVIDIA GPU is in the machine, but JAX computes on the CPU.

JAX falls back to the CPU with only a warning when its CUDA plugin is missing or its version differs
from jaxlib's (Colab's GPU runtime after an upgrade of jax alone). ``nvidia-smi -L`` lists the GPUs
the driver sees without starting JAX; :func:`check_gpu_backend` compares the two.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence


class GpuUnusedError(RuntimeError):
    """An NVIDIA GPU is present, but JAX's backend is the CPU."""


def nvidia_gpus(timeout: float = 10.0) -> list[str]:
    """The GPUs ``nvidia-smi -L`` lists (``"GPU 0: NVIDIA H100 ..."``); empty without the tool."""
    tool = shutil.which("nvidia-smi")
    if tool is None:
        return []
    try:
        result = subprocess.run([tool, "-L"], capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return []
    if result.returncode != 0:
        return []
    return [line.strip() for line in result.stdout.splitlines() if line.startswith("GPU ")]


def cpu_chosen(platforms: str | None = None) -> bool:
    """Whether the user restricted JAX to the CPU on purpose (``JAX_PLATFORMS=cpu``)."""
    chosen = os.environ.get("JAX_PLATFORMS", "") if platforms is None else platforms
    return bool(chosen) and set(chosen.replace(" ", "").split(",")) == {"cpu"}


def _cuda12_install(jax_version: str) -> str:
    """The requirements for a CUDA 12 driver: this jax, or the newest release that has the plugin.

    CUDA 12 plugin wheels can trail a JAX release (JAX 0.12.1 has none); ``make pin`` recorded the
    newest release that has them (``_tested.PLUGIN_RELEASES``).
    """
    from ._jax_versions import parse_version
    from ._tested import PLUGIN_RELEASES

    release = PLUGIN_RELEASES.get("cuda12")
    if release is not None and parse_version(jax_version) > parse_version(release):
        return (
            f'"jax[cuda12]=={release}" "jaxlib=={release}", the newest release with a CUDA 12'
            " plugin when the course was pinned"
        )
    return f'"jax[cuda12]=={jax_version}"'


def gpu_fix(jax_version: str) -> str:
    """What to run so that JAX uses the GPU: align the CUDA plugin with this jax, then restart."""
    return (
        f'pip install -U "jax[cuda13]=={jax_version}" (a CUDA 12 driver: '
        f"{_cuda12_install(jax_version)}; in Colab: run the notebook's first cell, which aligns jax,"
        " jaxlib and the CUDA plugin), then restart the kernel. To compute on the CPU on purpose,"
        " set JAX_PLATFORMS=cpu."
    )


def check_gpu_backend(
    backend: str,
    jax_version: str,
    gpus: Sequence[str] | None = None,
    platforms: str | None = None,
) -> None:
    """Raise :class:`GpuUnusedError` when ``nvidia-smi`` lists a GPU but ``backend`` is the CPU.

    Args:
        backend: ``jax.default_backend()``.
        jax_version: the running JAX's version (for the fix).
        gpus: the GPUs present (default: ask ``nvidia-smi -L``).
        platforms: the requested JAX platforms (default: ``$JAX_PLATFORMS``); ``"cpu"`` opts out.
    """
    if backend != "cpu" or cpu_chosen(platforms):
        return
    found = list(nvidia_gpus() if gpus is None else gpus)
    if found:
        raise GpuUnusedError(
            f"nvidia-smi lists {len(found)} GPU(s) ({found[0]}), but JAX computes on the CPU: "
            "its CUDA plugin is missing, or its version differs from jaxlib's and JAX skipped it "
            f"(look for a RuntimeWarning above). Fix: {gpu_fix(jax_version)}"
        )
