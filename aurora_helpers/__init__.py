"""aurora_helpers: the companion package of Project Aurora, a course on JAX data and devices.

Notebooks import it as ``import aurora_helpers as ah`` and use only the names in ``__all__``.
Importing it starts nothing: JAX's backend starts on first use, after :func:`setup_notebook` has
set the device count. The set-up, probe, mesh and exercise helpers load eagerly; every other
module loads on first use of one of its names (PEP 562), so that ``import aurora_helpers`` adds
only a few milliseconds to ``import jax`` (``tests/test_import_time.py``).
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
    from .cluster import (
        ClusterError,
        ClusterProcessError,
        ClusterRun,
        ClusterStartError,
        ClusterTimeout,
        LocalCluster,
        run_cluster,
    )
    from .cluster_magic import load_cluster_magic
    from .collectives import (
        COLLECTIVE_KINDS,
        CollectiveCounts,
        CollectiveOp,
        count_collectives,
        parse_collectives,
    )
    from .compiles import Compilations, count_compilations
    from .ffi_build import (
        CompilerNotFound,
        FfiBuild,
        FfiBuildError,
        build_ffi_targets,
        find_compiler,
    )
    from .jaxpr_inspect import FfiCall, ffi_calls, pallas_grids, primitive_counts
    from .machine_bench import (
        BenchComparison,
        MachineBench,
        Measurement,
        compare_benches,
        measure_machine,
    )
    from .machine_diagram import draw_machine
    from .pallas_pictures import KernelBlock, draw_pallas_blocks, pallas_blocks
    from .peaks import PEAKS, Peak, peak_for
    from .roofline import Roofline, RooflineOp, RooflinePoint, measure_roofline, roofline_ops
    from .sharding_pictures import (
        ShardBlock,
        device_color,
        draw_mesh,
        draw_sharding,
        draw_shardings,
        sharding_blocks,
    )
    from .timing import (
        BenchResult,
        MistakesReport,
        Timeline,
        benchmark,
        dispatch_timeline,
        format_seconds,
        timing_mistakes,
    )

#: Public names loaded on first use, by module. Keep in step with the TYPE_CHECKING imports above.
_LAZY_MODULES: dict[str, tuple[str, ...]] = {
    "cluster": (
        "ClusterError",
        "ClusterProcessError",
        "ClusterRun",
        "ClusterStartError",
        "ClusterTimeout",
        "LocalCluster",
        "run_cluster",
    ),
    "cluster_magic": ("load_cluster_magic",),
    "collectives": (
        "COLLECTIVE_KINDS",
        "CollectiveCounts",
        "CollectiveOp",
        "count_collectives",
        "parse_collectives",
    ),
    "compiles": ("Compilations", "count_compilations"),
    "ffi_build": (
        "CompilerNotFound",
        "FfiBuild",
        "FfiBuildError",
        "build_ffi_targets",
        "find_compiler",
    ),
    "jaxpr_inspect": ("FfiCall", "ffi_calls", "pallas_grids", "primitive_counts"),
    "machine_bench": (
        "BenchComparison",
        "MachineBench",
        "Measurement",
        "compare_benches",
        "measure_machine",
    ),
    "machine_diagram": ("draw_machine",),
    "pallas_pictures": ("KernelBlock", "draw_pallas_blocks", "pallas_blocks"),
    "peaks": ("PEAKS", "Peak", "peak_for"),
    "roofline": ("Roofline", "RooflineOp", "RooflinePoint", "measure_roofline", "roofline_ops"),
    "sharding_pictures": (
        "ShardBlock",
        "device_color",
        "draw_mesh",
        "draw_sharding",
        "draw_shardings",
        "sharding_blocks",
    ),
    "timing": (
        "BenchResult",
        "MistakesReport",
        "Timeline",
        "benchmark",
        "dispatch_timeline",
        "format_seconds",
        "timing_mistakes",
    ),
}
_LAZY: dict[str, str] = {name: module for module, names in _LAZY_MODULES.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'aurora_helpers' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__version__ = "0.1.0"

__all__ = [
    "COLLECTIVE_KINDS",
    "DEFAULT_SIMULATED_DEVICES",
    "DEVICES_ENV_VAR",
    "JAX_OLDEST",
    "JAX_REQUIREMENT",
    "JAX_UPPER_EXCLUSIVE",
    "PEAKS",
    "BenchComparison",
    "BenchResult",
    "CheckResult",
    "ClusterError",
    "ClusterProcessError",
    "ClusterRun",
    "ClusterStartError",
    "ClusterTimeout",
    "CollectiveCounts",
    "CollectiveOp",
    "Compilations",
    "CompilerNotFound",
    "DeviceInfo",
    "DeviceSetupError",
    "ExerciseFailed",
    "FfiBuild",
    "FfiBuildError",
    "FfiCall",
    "KernelBlock",
    "LocalCluster",
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
    "ShardBlock",
    "Timeline",
    "assert_matches",
    "balanced_shape",
    "benchmark",
    "build_ffi_targets",
    "check",
    "check_jax_version",
    "compare_benches",
    "count_collectives",
    "count_compilations",
    "device_color",
    "differences",
    "dispatch_timeline",
    "draw_machine",
    "draw_mesh",
    "draw_pallas_blocks",
    "draw_sharding",
    "draw_shardings",
    "ffi_calls",
    "find_compiler",
    "format_seconds",
    "in_colab",
    "load_cluster_magic",
    "make_mesh",
    "measure_machine",
    "measure_roofline",
    "pallas_blocks",
    "pallas_grids",
    "parse_collectives",
    "peak_for",
    "primitive_counts",
    "probe",
    "requested_device_count",
    "roofline_ops",
    "run_cluster",
    "setup_devices",
    "setup_notebook",
    "sharding_blocks",
    "timing_mistakes",
]
