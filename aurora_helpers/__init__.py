"""aurora_helpers: the companion package of Project Aurora, a course on JAX data and devices.

Notebooks import it as ``import aurora_helpers as ah`` and use only the names in ``__all__``.
Importing it starts nothing: JAX's backend starts on first use, after :func:`setup_notebook` has
set the device count. The set-up, probe, mesh and exercise helpers load eagerly; every other
module loads on first use of one of its names (PEP 562), so that ``import aurora_helpers`` adds
only a few milliseconds to ``import jax`` (``tests/test_import_time.py``).

The public names are listed once, by module, in ``_EAGER_MODULES`` and ``_LAZY_MODULES``;
``__all__`` is made from them. The ``TYPE_CHECKING`` imports repeat them for type checkers and
editors, and ``tests/test_package.py`` fails when the two disagree. To add a module: list its
public names in ``_LAZY_MODULES`` (``"module": ("name", ...)``, or ``"subpackage.module"``) and
import the same names under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: Public names of the modules imported with the package (small, and needed by every notebook).
_EAGER_MODULES: dict[str, tuple[str, ...]] = {
    "_jax_versions": ("JAX_OLDEST", "JAX_REQUIREMENT", "JAX_UPPER_EXCLUSIVE", "check_jax_version"),
    "devices": (
        "DEFAULT_SIMULATED_DEVICES",
        "DEVICES_ENV_VAR",
        "DeviceSetupError",
        "requested_device_count",
        "setup_devices",
    ),
    "exercises": (
        "Case",
        "CheckResult",
        "ExerciseFailed",
        "NotSolvedYet",
        "assert_matches",
        "check",
        "differences",
    ),
    "expected_errors": ("ShownError", "expect_error"),
    "gpu_check": ("GpuUnusedError", "check_gpu_backend", "nvidia_gpus"),
    "mesh": ("balanced_shape", "make_mesh"),
    "notebook": ("NotebookSetup", "setup_notebook"),
    "probe": ("DeviceInfo", "MachineReport", "in_colab", "probe"),
}

#: Public names loaded on first use, by module (only some notebooks need these modules).
_LAZY_MODULES: dict[str, tuple[str, ...]] = {
    "cluster.launcher": (
        "ClusterError",
        "ClusterProcessError",
        "ClusterRun",
        "ClusterStartError",
        "ClusterTimeout",
        "LocalCluster",
        "run_cluster",
    ),
    "cluster.magic": ("load_cluster_magic",),
    "collectives": (
        "COLLECTIVE_KINDS",
        "CollectiveCounts",
        "CollectiveOp",
        "count_collectives",
        "parse_collectives",
    ),
    "comm_costs": (
        "CollectiveCost",
        "Traffic",
        "TrafficComparison",
        "collective_cost",
        "compare_traffic",
        "compiled_traffic",
        "op_cost",
        "traffic",
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
    "layout_pictures": ("draw_layout_costs",),
    "launchers": (
        "mpirun_command",
        "program_path",
        "sbatch_script",
        "slurm_config",
        "srun_command",
        "tour_reference",
    ),
    "throughput": (
        "MachineThroughput",
        "Measurement",
        "ThroughputComparison",
        "compare_throughputs",
        "measure_machine",
    ),
    "machine_diagram": ("draw_machine",),
    "pallas_pictures": ("KernelBlock", "draw_pallas_blocks", "pallas_blocks"),
    "peaks": ("PEAKS", "Peak", "peak_for"),
    "roofline": ("Roofline", "RooflineOp", "RooflinePoint", "measure_roofline", "roofline_ops"),
    "routes": (
        "PRIMITIVE_ALIASES",
        "avoids",
        "compiled_collectives",
        "compiles_once",
        "donates",
        "jitted",
        "returns_sharding",
        "uses",
    ),
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
    "topologies": ("INTERCONNECTS", "TOPOLOGIES", "Interconnect"),
}

if TYPE_CHECKING:  # the same names as the two tables above (tests/test_package.py checks)
    from ._jax_versions import JAX_OLDEST, JAX_REQUIREMENT, JAX_UPPER_EXCLUSIVE, check_jax_version
    from .cluster.launcher import (
        ClusterError,
        ClusterProcessError,
        ClusterRun,
        ClusterStartError,
        ClusterTimeout,
        LocalCluster,
        run_cluster,
    )
    from .cluster.magic import load_cluster_magic
    from .collectives import (
        COLLECTIVE_KINDS,
        CollectiveCounts,
        CollectiveOp,
        count_collectives,
        parse_collectives,
    )
    from .comm_costs import (
        CollectiveCost,
        Traffic,
        TrafficComparison,
        collective_cost,
        compare_traffic,
        compiled_traffic,
        op_cost,
        traffic,
    )
    from .compiles import Compilations, count_compilations
    from .devices import (
        DEFAULT_SIMULATED_DEVICES,
        DEVICES_ENV_VAR,
        DeviceSetupError,
        requested_device_count,
        setup_devices,
    )
    from .exercises import (
        Case,
        CheckResult,
        ExerciseFailed,
        NotSolvedYet,
        assert_matches,
        check,
        differences,
    )
    from .expected_errors import ShownError, expect_error
    from .ffi_build import (
        CompilerNotFound,
        FfiBuild,
        FfiBuildError,
        build_ffi_targets,
        find_compiler,
    )
    from .gpu_check import GpuUnusedError, check_gpu_backend, nvidia_gpus
    from .jaxpr_inspect import FfiCall, ffi_calls, pallas_grids, primitive_counts
    from .launchers import (
        mpirun_command,
        program_path,
        sbatch_script,
        slurm_config,
        srun_command,
        tour_reference,
    )
    from .layout_pictures import draw_layout_costs
    from .machine_diagram import draw_machine
    from .mesh import balanced_shape, make_mesh
    from .notebook import NotebookSetup, setup_notebook
    from .pallas_pictures import KernelBlock, draw_pallas_blocks, pallas_blocks
    from .peaks import PEAKS, Peak, peak_for
    from .probe import DeviceInfo, MachineReport, in_colab, probe
    from .roofline import Roofline, RooflineOp, RooflinePoint, measure_roofline, roofline_ops
    from .routes import (
        PRIMITIVE_ALIASES,
        avoids,
        compiled_collectives,
        compiles_once,
        donates,
        jitted,
        returns_sharding,
        uses,
    )
    from .sharding_pictures import (
        ShardBlock,
        device_color,
        draw_mesh,
        draw_sharding,
        draw_shardings,
        sharding_blocks,
    )
    from .throughput import (
        MachineThroughput,
        Measurement,
        ThroughputComparison,
        compare_throughputs,
        measure_machine,
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
    from .topologies import INTERCONNECTS, TOPOLOGIES, Interconnect
else:
    for _module, _names in _EAGER_MODULES.items():
        _loaded = importlib.import_module(f".{_module}", __name__)
        globals().update({_name: getattr(_loaded, _name) for _name in _names})
    del _module, _names, _loaded

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

__all__ = sorted(
    name for table in (_EAGER_MODULES, _LAZY_MODULES) for names in table.values() for name in names
)
