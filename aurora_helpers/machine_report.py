"""A report of the machine JAX sees: backend, devices, memories, processes and versions."""

from __future__ import annotations

import json
import platform
import sys
from dataclasses import asdict, dataclass, field
from typing import Any

import jax

from ._device_queries import memory_kinds, memory_limit
from ._display import format_bytes, html_table, text_table
from ._jax_versions import JAX_REQUIREMENT, check_jax_version
from .gpu_check import check_gpu_backend


@dataclass(frozen=True)
class DeviceInfo:
    """One device as JAX describes it."""

    id: int
    platform: str
    device_kind: str
    process_index: int
    memory_bytes: int | None
    """Memory the allocator may use (``bytes_limit``), or None where JAX does not report it (CPU)."""
    memory_kinds: tuple[str, ...]


@dataclass(frozen=True)
class MachineReport:
    """What :func:`probe` found. Renders as a table in notebooks and as text in a terminal."""

    backend: str
    device_count: int
    local_device_count: int
    process_index: int
    process_count: int
    simulated: bool
    """True when several CPU devices were carved out of one host's CPU (their count was chosen)."""
    jax_version: str
    jaxlib_version: str
    python_version: str
    in_colab: bool
    jax_supported: bool
    jax_message: str
    jax_fix: str | None
    devices: tuple[DeviceInfo, ...] = field(default_factory=tuple)

    @property
    def device_kinds(self) -> tuple[str, ...]:
        """Distinct device kinds, in device order."""
        return tuple(dict.fromkeys(d.device_kind for d in self.devices))

    def to_dict(self) -> dict[str, Any]:
        """Plain data, ready for JSON."""
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def _summary_rows(self) -> list[tuple[str, str]]:
        kinds = ", ".join(self.device_kinds) or "none"
        sim = " (simulated on the CPU)" if self.simulated else ""
        rows = [
            ("backend", self.backend),
            ("devices", f"{self.device_count} global, {self.local_device_count} local{sim}"),
            ("device kinds", kinds),
            ("processes", f"index {self.process_index} of {self.process_count}"),
            ("JAX / jaxlib", f"{self.jax_version} / {self.jaxlib_version}"),
            ("supported range", f"{JAX_REQUIREMENT}: {'yes' if self.jax_supported else 'NO'}"),
            ("Python", self.python_version),
            ("Colab", "yes" if self.in_colab else "no"),
        ]
        if self.jax_fix:
            rows.append(("fix", f"{self.jax_message} Run: {self.jax_fix}"))
        return rows

    def _device_rows(self) -> list[tuple[object, ...]]:
        return [
            (
                d.id,
                d.platform,
                d.device_kind,
                d.process_index,
                format_bytes(d.memory_bytes),
                ", ".join(d.memory_kinds) or "-",
            )
            for d in self.devices
        ]

    _DEVICE_HEADERS = ("id", "platform", "kind", "process", "memory", "memory kinds")

    def __str__(self) -> str:
        return (
            text_table(("machine", ""), self._summary_rows())
            + "\n\n"
            + text_table(self._DEVICE_HEADERS, self._device_rows())
        )

    def _repr_html_(self) -> str:
        return html_table(
            ("", ""), self._summary_rows(), caption="This machine, as JAX sees it"
        ) + html_table(self._DEVICE_HEADERS, self._device_rows(), caption="Devices")


def in_colab() -> bool:
    """True inside Google Colab."""
    return "google.colab" in sys.modules


def probe() -> MachineReport:
    """Describe the machine JAX runs on. Starts JAX's backend if it has not started yet.

    Raises:
        GpuUnusedError: ``nvidia-smi`` lists an NVIDIA GPU but JAX's backend is the CPU (unless
            ``JAX_PLATFORMS=cpu`` chose the CPU); the message names the fix.
    """
    import jaxlib

    devices = jax.devices()
    version = check_jax_version(jax.__version__)
    backend = jax.default_backend()
    check_gpu_backend(backend, jax.__version__)
    return MachineReport(
        backend=backend,
        device_count=jax.device_count(),
        local_device_count=jax.local_device_count(),
        process_index=jax.process_index(),
        process_count=jax.process_count(),
        simulated=backend == "cpu" and jax.local_device_count() > 1,
        jax_version=jax.__version__,
        jaxlib_version=jaxlib.__version__,
        python_version=platform.python_version(),
        in_colab=in_colab(),
        jax_supported=version.supported,
        jax_message=version.message,
        jax_fix=version.fix,
        devices=tuple(
            DeviceInfo(
                id=d.id,
                platform=d.platform,
                device_kind=d.device_kind,
                process_index=d.process_index,
                memory_bytes=memory_limit(d),
                memory_kinds=memory_kinds(d),
            )
            for d in devices
        ),
    )
