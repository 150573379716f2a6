"""aurora_helpers: the companion package of Project Aurora, a course on JAX data and devices.

Notebooks import it as ``import aurora_helpers as ah`` and use only the names below. Importing it
starts nothing: JAX's backend starts on first use, after :func:`setup_notebook` has set the device
count. Heavy modules (matplotlib, papermill) are imported only by the functions that need them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._support import JAX_OLDEST, JAX_REQUIREMENT, JAX_UPPER_EXCLUSIVE, check_jax_version
from .devices import (
    DEFAULT_SIMULATED_DEVICES,
    DEVICES_ENV_VAR,
    DeviceSetupError,
    requested_device_count,
    setup_devices,
)
from .exercises import CheckResult, ExerciseFailed, NotSolvedYet, assert_matches, check, differences
from .mesh import balanced_shape, make_mesh
from .notebook import NotebookSetup, setup_notebook
from .probe import DeviceInfo, MachineReport, in_colab, probe

if TYPE_CHECKING:
    from .machine_bench import (
        BenchComparison,
        MachineBench,
        Measurement,
        compare_benches,
        measure_machine,
    )
    from .peaks import PEAKS, Peak, peak_for
    from .roofline import Roofline, RooflineOp, RooflinePoint, measure_roofline, roofline_ops
    from .timing import (
        BenchResult,
        MistakesReport,
        Timeline,
        benchmark,
        dispatch_timeline,
        format_seconds,
        timing_mistakes,
    )

#: Names loaded on first use (PEP 562), so that `import aurora_helpers` stays cheap: name -> module.
_LAZY: dict[str, str] = {
    **dict.fromkeys(
        ("BenchComparison", "MachineBench", "Measurement", "compare_benches", "measure_machine"),
        "machine_bench",
    ),
    **dict.fromkeys(("PEAKS", "Peak", "peak_for"), "peaks"),
    **dict.fromkeys(
        ("Roofline", "RooflineOp", "RooflinePoint", "measure_roofline", "roofline_ops"), "roofline"
    ),
    **dict.fromkeys(
        (
            "BenchResult",
            "MistakesReport",
            "Timeline",
            "benchmark",
            "dispatch_timeline",
            "format_seconds",
            "timing_mistakes",
        ),
        "timing",
    ),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'aurora_helpers' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__version__ = "0.1.0"

__all__ = [
    "DEFAULT_SIMULATED_DEVICES",
    "DEVICES_ENV_VAR",
    "JAX_OLDEST",
    "JAX_REQUIREMENT",
    "JAX_UPPER_EXCLUSIVE",
    "PEAKS",
    "BenchComparison",
    "BenchResult",
    "CheckResult",
    "DeviceInfo",
    "DeviceSetupError",
    "ExerciseFailed",
    "MachineBench",
    "MachineReport",
    "Measurement",
    "MistakesReport",
    "NotSolvedYet",
    "NotebookSetup",
    "Peak",
    "Roofline",
    "RooflineOp",
    "RooflinePoint",
    "Timeline",
    "assert_matches",
    "balanced_shape",
    "benchmark",
    "check",
    "check_jax_version",
    "compare_benches",
    "differences",
    "dispatch_timeline",
    "format_seconds",
    "in_colab",
    "make_mesh",
    "measure_machine",
    "measure_roofline",
    "peak_for",
    "probe",
    "requested_device_count",
    "roofline_ops",
    "setup_devices",
    "setup_notebook",
    "timing_mistakes",
]
