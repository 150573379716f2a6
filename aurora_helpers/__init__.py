"""aurora_helpers: the companion package of Project Aurora, a course on JAX data and devices.

Notebooks import it as ``import aurora_helpers as ah`` and use only the names in ``__all__``.
Importing it imports nothing else, JAX included: each public name loads its module on first use
(PEP 562), so ``import aurora_helpers`` costs about a millisecond, and ``python -m
aurora_helpers.colab`` can fix JAX's version before JAX is ever imported. JAX's backend starts on
first use, after :func:`setup_notebook` has set the device count.

The public API is the list of import lines below, one per name, under ``if TYPE_CHECKING:``. Type
checkers and editors read those lines as they are; at run time :func:`_public_names` reads the same
lines from this file (as Scientific Python's SPEC 1 lazy loader reads a stub), so the list exists
once. To make a name public, add its line: ``from .module import name as name``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from ._jax_versions import JAX_OLDEST as JAX_OLDEST
    from ._jax_versions import JAX_REQUIREMENT as JAX_REQUIREMENT
    from ._jax_versions import JAX_UPPER_EXCLUSIVE as JAX_UPPER_EXCLUSIVE
    from ._jax_versions import check_jax_version as check_jax_version
    from .cluster.launcher import LocalCluster as LocalCluster
    from .cluster.launcher import run_cluster as run_cluster
    from .cluster.magic import load_cluster_magic as load_cluster_magic
    from .cluster.outcomes import ClusterError as ClusterError
    from .cluster.outcomes import ClusterProcessError as ClusterProcessError
    from .cluster.outcomes import ClusterRun as ClusterRun
    from .cluster.outcomes import ClusterStartError as ClusterStartError
    from .cluster.outcomes import ClusterTimeout as ClusterTimeout
    from .cluster.sources import SourceNotFound as SourceNotFound
    from .cluster.sources import source_of as source_of
    from .collectives import COLLECTIVE_KINDS as COLLECTIVE_KINDS
    from .collectives import CollectiveCounts as CollectiveCounts
    from .collectives import CollectiveOp as CollectiveOp
    from .collectives import count_collectives as count_collectives
    from .collectives import parse_collectives as parse_collectives
    from .comm_costs import CollectiveCost as CollectiveCost
    from .comm_costs import Traffic as Traffic
    from .comm_costs import TrafficComparison as TrafficComparison
    from .comm_costs import collective_cost as collective_cost
    from .comm_costs import compare_traffic as compare_traffic
    from .comm_costs import compiled_traffic as compiled_traffic
    from .comm_costs import op_cost as op_cost
    from .comm_costs import traffic as traffic
    from .compiles import Compilations as Compilations
    from .compiles import count_compilations as count_compilations
    from .contract import DEFAULT_SIMULATED_DEVICES as DEFAULT_SIMULATED_DEVICES
    from .contract import DEVICES_ENV_VAR as DEVICES_ENV_VAR
    from .contract import DeviceSetupError as DeviceSetupError
    from .contract import requested_device_count as requested_device_count
    from .devices import setup_devices as setup_devices
    from .exercises import Case as Case
    from .exercises import CheckResult as CheckResult
    from .exercises import ExerciseFailed as ExerciseFailed
    from .exercises import NotSolvedYet as NotSolvedYet
    from .exercises import assert_matches as assert_matches
    from .exercises import check as check
    from .exercises import differences as differences
    from .expected_errors import ShownError as ShownError
    from .expected_errors import expect_error as expect_error
    from .ffi_build import CompilerNotFound as CompilerNotFound
    from .ffi_build import FfiBuild as FfiBuild
    from .ffi_build import FfiBuildError as FfiBuildError
    from .ffi_build import build_ffi_targets as build_ffi_targets
    from .ffi_build import find_compiler as find_compiler
    from .gpu_check import GpuUnusedError as GpuUnusedError
    from .gpu_check import check_gpu_backend as check_gpu_backend
    from .gpu_check import nvidia_gpus as nvidia_gpus
    from .hlo_schedule import Instruction as Instruction
    from .hlo_schedule import Schedule as Schedule
    from .hlo_schedule import entry_schedule as entry_schedule
    from .hlo_schedule import parse_schedule as parse_schedule
    from .jaxpr_inspect import FfiCall as FfiCall
    from .jaxpr_inspect import ReducedOperand as ReducedOperand
    from .jaxpr_inspect import computed_outside as computed_outside
    from .jaxpr_inspect import ffi_calls as ffi_calls
    from .jaxpr_inspect import pallas_block_shapes as pallas_block_shapes
    from .jaxpr_inspect import pallas_grids as pallas_grids
    from .jaxpr_inspect import primitive_counts as primitive_counts
    from .jaxpr_inspect import reduced_operands as reduced_operands
    from .jaxpr_inspect import used_equations as used_equations
    from .launchers import mpirun_command as mpirun_command
    from .launchers import program_path as program_path
    from .launchers import sbatch_script as sbatch_script
    from .launchers import slurm_config as slurm_config
    from .launchers import srun_command as srun_command
    from .launchers import tour_reference as tour_reference
    from .layout_pictures import draw_layout_costs as draw_layout_costs
    from .machine_diagram import draw_machine as draw_machine
    from .machine_report import DeviceInfo as DeviceInfo
    from .machine_report import MachineReport as MachineReport
    from .machine_report import in_colab as in_colab
    from .machine_report import probe as probe
    from .mesh import balanced_shape as balanced_shape
    from .mesh import make_mesh as make_mesh
    from .notebook import NotebookSetup as NotebookSetup
    from .notebook import setup_notebook as setup_notebook
    from .pallas_pictures import KernelBlock as KernelBlock
    from .pallas_pictures import draw_pallas_blocks as draw_pallas_blocks
    from .pallas_pictures import pallas_blocks as pallas_blocks
    from .peaks import PEAKS as PEAKS
    from .peaks import Peak as Peak
    from .peaks import peak_for as peak_for
    from .profiles import OpDependencies as OpDependencies
    from .profiles import TraceEvent as TraceEvent
    from .profiles import draw_trace as draw_trace
    from .profiles import op_dependencies as op_dependencies
    from .profiles import read_trace as read_trace
    from .roofline import Roofline as Roofline
    from .roofline import RooflineOp as RooflineOp
    from .roofline import RooflinePoint as RooflinePoint
    from .roofline import measure_roofline as measure_roofline
    from .roofline import roofline_ops as roofline_ops
    from .routes import PRIMITIVE_ALIASES as PRIMITIVE_ALIASES
    from .routes import avoids as avoids
    from .routes import compiled_collectives as compiled_collectives
    from .routes import compiles_once as compiles_once
    from .routes import computes_per_device as computes_per_device
    from .routes import donates as donates
    from .routes import jitted as jitted
    from .routes import reduces_own_blocks as reduces_own_blocks
    from .routes import returns_sharding as returns_sharding
    from .routes import uses as uses
    from .sharding_pictures import ShardBlock as ShardBlock
    from .sharding_pictures import device_color as device_color
    from .sharding_pictures import draw_mesh as draw_mesh
    from .sharding_pictures import draw_sharding as draw_sharding
    from .sharding_pictures import draw_shardings as draw_shardings
    from .sharding_pictures import sharding_blocks as sharding_blocks
    from .single_device import single_device_sharding as single_device_sharding
    from .state_sizes import FolderBytes as FolderBytes
    from .state_sizes import StateBytes as StateBytes
    from .state_sizes import bytes_per_device as bytes_per_device
    from .state_sizes import folder_bytes as folder_bytes
    from .state_sizes import state_bytes as state_bytes
    from .throughput import MachineThroughput as MachineThroughput
    from .throughput import Measurement as Measurement
    from .throughput import ThroughputComparison as ThroughputComparison
    from .throughput import compare_throughputs as compare_throughputs
    from .throughput import measure_machine as measure_machine
    from .timing import BenchResult as BenchResult
    from .timing import MistakesReport as MistakesReport
    from .timing import Timeline as Timeline
    from .timing import benchmark as benchmark
    from .timing import dispatch_timeline as dispatch_timeline
    from .timing import format_seconds as format_seconds
    from .timing import timing_mistakes as timing_mistakes
    from .topologies import INTERCONNECTS as INTERCONNECTS
    from .topologies import TOPOLOGIES as TOPOLOGIES
    from .topologies import Interconnect as Interconnect


def _public_names() -> dict[str, str]:
    """``{name: module}`` from the import lines under ``if TYPE_CHECKING:`` in this file."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    (block,) = [
        node
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    ]
    names: dict[str, str] = {}
    for line in block.body:
        if not (isinstance(line, ast.ImportFrom) and line.level == 1):
            raise ImportError(f"only `from .module import name as name` here: {ast.unparse(line)}")
        for alias in line.names:
            if alias.asname != alias.name:
                raise ImportError(f"write `{alias.name} as {alias.name}` (a public name)")
            names[alias.name] = f"{__name__}.{line.module}"
    return names


_PUBLIC = _public_names()
__all__ = sorted(_PUBLIC)


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
