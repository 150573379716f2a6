"""aurora_helpers: the companion package of Project Aurora, a course on JAX data and devices.

Notebooks import it as ``import aurora_helpers as ah`` and use the names in ``__all__``: exactly
the names some notebook uses (``tests/test_package.py`` holds the two lists equal). Everything
else is reached through its module, e.g. ``aurora_helpers.perf.timing.BenchResult``.

The modules live in one folder per job (CONTRIBUTING.md has the map): the core at the top
(set-up, devices, meshes, the machine probe, the check-log contract, Colab); ``checks/`` (exercise
checks and the routes they require); ``compiled/`` (reading jaxprs and compiled programs, and
what their collectives cost); ``perf/`` (timing, profiles, rooflines, sizes, throughput);
``pictures/``; ``cluster/`` (local multi-process clusters and the real launchers).

Importing the package imports nothing else, JAX included: each public name loads its module on
first use (PEP 562), from the table below, so ``import aurora_helpers`` costs about a
millisecond and ``python -m aurora_helpers.colab`` can fix JAX's version before JAX is imported.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: The public API: module (relative to this package) -> the names notebooks take from it.
_EXPORTS: dict[str, tuple[str, ...]] = {
    # The core: set-up, devices, meshes, the machine, JAX's versions.
    "_jax_versions": ("JAX_OLDEST", "JAX_REQUIREMENT", "check_jax_version"),
    "contract": ("DeviceSetupError",),
    "devices": ("setup_devices",),
    "gpu_check": ("GpuUnusedError", "check_gpu_backend", "nvidia_gpus"),
    "machine_report": ("probe",),
    "mesh": ("balanced_shape", "make_mesh"),
    "notebook": ("setup_notebook",),
    "single_device": ("single_device_sharding",),
    # checks/: what an exercise's check cell calls.
    "checks.exercises": (
        "Case",
        "NotSolvedYet",
        "assert_matches",
        "check",
        "differences",
        "reads_trace",
    ),
    "checks.expected_errors": ("expect_error",),
    "checks.routes": (
        "avoids",
        "compiled_collectives",
        "compiles_once",
        "computes_per_device",
        "jitted",
        "reduces_own_blocks",
        "returns_sharding",
        "uses",
    ),
    # compiled/: jaxprs, compiled programs, their collectives and what those cost.
    "compiled.collectives": ("COLLECTIVE_KINDS", "count_collectives", "parse_collectives"),
    "compiled.comm_costs": ("collective_cost", "compare_traffic", "compiled_traffic", "traffic"),
    "compiled.compiles": ("count_compilations",),
    "compiled.ffi_build": ("CompilerNotFound", "build_ffi_targets", "find_compiler"),
    "compiled.hlo_schedule": ("parse_schedule",),
    "compiled.jaxpr_inspect": (
        "ffi_calls",
        "pallas_block_shapes",
        "pallas_grids",
        "primitive_counts",
        "used_equations",
    ),
    "compiled.topologies": ("INTERCONNECTS", "TOPOLOGIES"),
    # perf/: measuring.
    "perf.memory_profile": ("read_memory_profile",),
    "perf.memory_report": ("memory_report",),
    "perf.peaks": ("PEAKS", "peak_for"),
    "perf.plan_panel": ("PlanPanel",),
    "perf.planned_step": ("check_plan",),
    "perf.planner": ("Layout", "Machine", "Transformer", "plan", "search"),
    "perf.profiles": ("TraceEvent", "draw_trace", "op_dependencies", "read_trace"),
    "perf.roofline": ("measure_roofline",),
    "perf.state_sizes": ("folder_bytes", "state_bytes"),
    "perf.throughput": ("measure_machine",),
    "perf.throughput.caches": ("read_caches",),
    "perf.timing": ("benchmark", "dispatch_timeline", "format_seconds", "timing_mistakes"),
    # pictures/.
    "pictures.explorer": (
        "ShardingExplorerPanel",
        "explore_sharding",
        "explorer_gallery_html",
        "gallery_configs",
    ),
    "pictures.layout": ("draw_layout_costs",),
    "pictures.machine": ("draw_machine",),
    "pictures.pallas": ("draw_pallas_blocks", "pallas_blocks"),
    "pictures.sharding": ("draw_mesh", "draw_sharding", "draw_shardings", "sharding_blocks"),
    # cluster/: local multi-process clusters, and the real launchers' command lines.
    "cluster.launcher": ("LocalCluster", "run_cluster"),
    "cluster.launchers": (
        "mpirun_command",
        "program_path",
        "sbatch_script",
        "slurm_config",
        "slurm_gpu_task_env",
        "srun_command",
        "tour_reference",
    ),
    "cluster.magic": ("load_cluster_magic",),
    "cluster.outcomes": ("ClusterProcessError", "ClusterTimeout"),
    "cluster.sources": ("source_of",),
}

_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_MODULE_OF)


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_MODULE_OF))
