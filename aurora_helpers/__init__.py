"""aurora_helpers: the companion package of Project Aurora, a course on JAX data and devices.

Notebooks import it as ``import aurora_helpers as ah`` and use only the names below. Importing it
starts nothing: JAX's backend starts on first use, after :func:`setup_notebook` has set the device
count. Heavy modules (matplotlib, papermill) are imported only by the functions that need them.
"""

from __future__ import annotations

from ._support import JAX_OLDEST, JAX_REQUIREMENT, JAX_UPPER_EXCLUSIVE, check_jax_version
from .collectives import (
    COLLECTIVE_KINDS,
    CollectiveCounts,
    CollectiveOp,
    count_collectives,
    parse_collectives,
)
from .compiles import Compilations, count_compilations
from .devices import (
    DEFAULT_SIMULATED_DEVICES,
    DEVICES_ENV_VAR,
    DeviceSetupError,
    requested_device_count,
    setup_devices,
)
from .exercises import CheckResult, ExerciseFailed, NotSolvedYet, assert_matches, check, differences
from .machine_diagram import draw_machine
from .mesh import balanced_shape, make_mesh
from .notebook import NotebookSetup, setup_notebook
from .probe import DeviceInfo, MachineReport, in_colab, probe
from .sharding_pictures import (
    ShardBlock,
    device_color,
    draw_mesh,
    draw_sharding,
    draw_shardings,
    sharding_blocks,
)

__version__ = "0.1.0"

__all__ = [
    "COLLECTIVE_KINDS",
    "DEFAULT_SIMULATED_DEVICES",
    "DEVICES_ENV_VAR",
    "JAX_OLDEST",
    "JAX_REQUIREMENT",
    "JAX_UPPER_EXCLUSIVE",
    "CheckResult",
    "CollectiveCounts",
    "CollectiveOp",
    "Compilations",
    "DeviceInfo",
    "DeviceSetupError",
    "ExerciseFailed",
    "MachineReport",
    "NotSolvedYet",
    "NotebookSetup",
    "ShardBlock",
    "assert_matches",
    "balanced_shape",
    "check",
    "check_jax_version",
    "count_collectives",
    "count_compilations",
    "device_color",
    "differences",
    "draw_machine",
    "draw_mesh",
    "draw_sharding",
    "draw_shardings",
    "in_colab",
    "make_mesh",
    "parse_collectives",
    "probe",
    "requested_device_count",
    "setup_devices",
    "setup_notebook",
    "sharding_blocks",
]
