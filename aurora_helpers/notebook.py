"""The set-up every notebook runs first: devices, strict warnings, and a one-line summary."""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass

import jax

from .cell_environment import watch_cells
from .contract import SETUP_MIME, strict_mode
from .devices import setup_devices


@dataclass(frozen=True)
class NotebookSetup:
    """What the set-up cell established."""

    requested_cpu_devices: int
    backend: str
    device_count: int
    jax_version: str
    strict: bool

    def __str__(self) -> str:
        kind = "simulated CPU" if self.backend == "cpu" else self.backend.upper()
        strict = ", deprecations are errors" if self.strict else ""
        return f"JAX {self.jax_version}: {self.device_count} {kind} device(s){strict}"

    def _repr_mimebundle_(
        self, include: object = None, exclude: object = None
    ) -> dict[str, object]:
        return {"text/plain": str(self), SETUP_MIME: asdict(self)}


def setup_notebook(devices: int | None = None) -> NotebookSetup:
    """Prepare JAX for a course notebook; call it in the first code cell, before any JAX work.

    Sets the simulated CPU device count (``devices``, else ``$AURORA_DEVICES``, else 8; see
    :func:`aurora_helpers.setup_devices`), turns deprecation warnings from notebook code into errors
    when ``$AURORA_STRICT`` is set, and returns a summary that displays as one line.
    """
    requested = setup_devices(devices)
    watch_cells()  # a check puts back what an answer's cells change in JAX's configuration
    strict = strict_mode()
    if strict:
        for module in (r"__main__", r"aurora_helpers(\..*)?"):
            warnings.filterwarnings("error", category=DeprecationWarning, module=module)
    return NotebookSetup(
        requested_cpu_devices=requested,
        backend=jax.default_backend(),
        device_count=jax.device_count(),
        jax_version=jax.__version__,
        strict=strict,
    )
