"""aurora_helpers: the companion package of Project Aurora, a course on JAX data and devices.

Notebooks import it as ``import aurora_helpers as ah`` and use only the names below. Importing it
starts nothing: JAX's backend starts on first use, after :func:`setup_notebook` has set the device
count. Heavy modules (matplotlib, papermill) are imported only by the functions that need them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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

__version__ = "0.1.0"

# Names from modules that only some notebooks need, imported on first use so that
# `import aurora_helpers` stays fast (module __getattr__, PEP 562).
_LAZY = {
    **dict.fromkeys(
        (
            "ClusterError",
            "ClusterProcessError",
            "ClusterRun",
            "ClusterStartError",
            "ClusterTimeout",
            "LocalCluster",
            "run_cluster",
        ),
        ".cluster",
    ),
    "load_cluster_magic": ".cluster_magic",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_SIMULATED_DEVICES",
    "DEVICES_ENV_VAR",
    "JAX_OLDEST",
    "JAX_REQUIREMENT",
    "JAX_UPPER_EXCLUSIVE",
    "CheckResult",
    "ClusterError",
    "ClusterProcessError",
    "ClusterRun",
    "ClusterStartError",
    "ClusterTimeout",
    "DeviceInfo",
    "DeviceSetupError",
    "ExerciseFailed",
    "LocalCluster",
    "MachineReport",
    "NotSolvedYet",
    "NotebookSetup",
    "assert_matches",
    "balanced_shape",
    "check",
    "check_jax_version",
    "differences",
    "in_colab",
    "load_cluster_magic",
    "make_mesh",
    "probe",
    "requested_device_count",
    "run_cluster",
    "setup_devices",
    "setup_notebook",
]
