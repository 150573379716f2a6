"""The course's multi-host programs, and the real launchers' command lines and job scripts for them.

Notebook 08, the local cluster tests and ``make test-launchers`` run the same files, kept in
``aurora_helpers/programs/`` (package data, so Colab has them too):

* ``multihost_tour.py``: a global array from process-local data, a ``psum`` over every process,
  ``process_allgather`` and ``broadcast_one_to_all``, each checked against ``reference()``;
* ``diverge.py``: only rank 0 runs a jitted collective, so the job hangs (the rule it breaks:
  every process runs the same computations and collectives in the same order);
* ``slurm_gpu_probe.py``: which GPU ids ``jax.distributed.initialize()`` derives for a SLURM
  task under each way of binding GPUs (``make test-launchers``; see :func:`slurm_gpu_task_env`).

The functions below build the exact ``mpirun``/``srun`` command lines, the ``sbatch`` script and
the one-node ``slurm.conf`` that ``make test-launchers`` runs, so the notebook can show them as
they were run. Nothing here starts a process.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: The folder of the example programs.
PROGRAMS = Path(__file__).resolve().parents[1] / "programs"
#: Environment variables the launcher tests pass to every rank (``mpirun -x`` forwards them).
RANK_ENV = (
    "JAX_PLATFORMS",
    "JAX_NUM_CPU_DEVICES",
    "AURORA_LOOPBACK",
    "JAX_COORDINATOR_PORT",
    "JAX_COORDINATOR_BIND_ADDRESS",
)


def program_path(name: str) -> Path:
    """The path of example program ``name``, e.g. ``"multihost_tour"`` or ``"diverge"``."""
    path = PROGRAMS / f"{name.removesuffix('.py')}.py"
    if name.startswith("_") or not path.is_file():
        known = sorted(p.stem for p in PROGRAMS.glob("[!_]*.py"))
        raise FileNotFoundError(f"no example program {name!r}; the programs are {known}")
    return path


def tour_reference(rank: int, size: int, local_devices: int) -> dict[str, Any]:
    """What rank ``rank`` of ``multihost_tour.py`` must report, computed in this process alone."""
    spec = importlib.util.spec_from_file_location("_aurora_tour", program_path("multihost_tour"))
    if spec is None or spec.loader is None:  # pragma: no cover - the file is package data
        raise ImportError("cannot load multihost_tour.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # defines reference(); the program runs only as __main__
    reference: dict[str, Any] = module.reference(rank, size, local_devices)
    return reference


def mpirun_command(
    program: str | os.PathLike[str],
    processes: int,
    *,
    python: str = "python",
    loopback: bool = True,
    as_root: bool = False,
    output_dir: str | None = None,
    forward: Sequence[str] = (),
) -> list[str]:
    """``mpirun -np N python program`` as Open MPI 4 runs it; ``loopback`` keeps it on ``lo``."""
    command = ["mpirun", "-np", str(processes)]
    if as_root:
        command.append("--allow-run-as-root")  # Open MPI refuses root without it (containers, CI)
    if loopback:
        command += ["--oversubscribe"]  # more ranks than cores, all on this one machine
        # One machine: MPI messages through shared memory (no TCP listener in the ranks), and
        # mpirun's own bootstrap traffic on the loopback interface.
        command += ["--mca", "btl", "self,vader", "--mca", "oob_tcp_if_include", "lo"]
    if output_dir is not None:
        command += ["--output-filename", output_dir]  # DIR/1/rank.N/{stdout,stderr}
    for name in forward:
        command += ["-x", name]
    return [*command, python, os.fspath(program)]


def srun_command(
    program: str | os.PathLike[str],
    processes: int,
    *,
    python: str = "python",
    output_dir: str | None = None,
    gpus_per_node: int | None = None,
) -> list[str]:
    """``srun -n N python program``: one job step, every task the same program.

    ``gpus_per_node=G``: the GPU recipe JAX's SLURM detection expects: ``G`` tasks per node, each
    seeing all ``G`` GPUs of its node (no per-task binding); JAX then gives the task with local
    id ``i`` GPU ``i`` (``local_device_ids=[SLURM_LOCALID]``).
    """
    command = ["srun", "-n", str(processes), "--kill-on-bad-exit=1"]
    if gpus_per_node is not None:
        command += [f"--ntasks-per-node={gpus_per_node}", f"--gpus-per-node={gpus_per_node}"]
    if output_dir is not None:  # %t: the task's rank
        command += [f"--output={output_dir}/srun-%t.out", f"--error={output_dir}/srun-%t.err"]
    return [*command, python, os.fspath(program)]


def sbatch_script(
    program: str | os.PathLike[str],
    processes: int,
    *,
    python: str = "python",
    output_dir: str = ".",
    minutes: int = 5,
) -> str:
    """A batch script whose one ``srun`` step runs ``program`` on ``processes`` tasks."""
    return (
        "#!/bin/bash\n"
        "#SBATCH --job-name=aurora-tour\n"
        f"#SBATCH --ntasks={processes}\n"
        f"#SBATCH --time=00:{minutes:02d}:00\n"
        f"#SBATCH --output={output_dir}/sbatch-job.out\n"
        f"srun --kill-on-bad-exit=1 --output={output_dir}/sbatch-%t.out "
        f"--error={output_dir}/sbatch-%t.err \\\n"
        f"    {python} {os.fspath(program)}\n"
    )


def slurm_config(
    folder: str | os.PathLike[str],
    *,
    cpus: int,
    ctld_port: int,
    slurmd_port: int,
    srun_ports: tuple[int, int],
    user: str = "root",
) -> str:
    """A ``slurm.conf`` for one node, ``localhost`` on 127.0.0.1, all its state in ``folder``.

    ``NoInAddrAny`` makes the daemons and ``srun`` bind to the node's address instead of every
    interface; ``config_overrides`` lets the node claim ``cpus`` CPUs on a smaller machine.
    """
    tmp = os.fspath(folder)
    return f"""\
# One SLURM node on 127.0.0.1, everything in {tmp} (generated by aurora_helpers.cluster.launchers).
ClusterName=aurora
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SrunPortRange={srun_ports[0]}-{srun_ports[1]}
SlurmUser={user}
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={tmp}/munge.socket
CredType=cred/munge
CommunicationParameters=NoInAddrAny,NoCtldInAddrAny
StateSaveLocation={tmp}/state
SlurmdSpoolDir={tmp}/spool
SlurmctldPidFile={tmp}/slurmctld.pid
SlurmdPidFile={tmp}/slurmd.pid
SlurmctldLogFile={tmp}/slurmctld.log
SlurmdLogFile={tmp}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
ReturnToService=2
SlurmdParameters=config_overrides
NodeName=localhost NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=aurora Nodes=localhost Default=YES MaxTime=10 State=UP
"""


#: How a SLURM job step can show a node's GPUs to its tasks (see :func:`slurm_gpu_task_env`).
GPU_BINDINGS = ("per-node", "per-task")


def slurm_gpu_task_env(
    rank: int, *, gpus_per_node: int, nodes: int, binding: str, job_id: int = 4242
) -> dict[str, str]:
    """The variables SLURM gives task ``rank`` of a GPU job step, one task per GPU.

    ``nodes`` nodes named ``gpu[001-...]``, ``gpus_per_node`` tasks on each (block
    distribution: task ``rank`` runs on node ``rank // gpus_per_node`` with local id
    ``rank % gpus_per_node``). ``binding`` is how the step asked for GPUs:

    * ``"per-node"``: ``--ntasks-per-node=G --gpus-per-node=G`` (or ``--gres=gpu:G``), no
      per-task binding: every task sees all ``G`` GPUs of its node, ``CUDA_VISIBLE_DEVICES``
      ``0,...,G-1``;
    * ``"per-task"``: ``--gpus-per-task=1``: each task sees only the one GPU bound to it
      (``CUDA_VISIBLE_DEVICES`` its index, which CUDA numbers 0 inside the task; with device
      cgroups SLURM writes ``0`` directly).

    Only the variables JAX's SLURM detection and CUDA read; no GPU is needed to compute them.
    """
    if binding not in GPU_BINDINGS:
        raise ValueError(f"binding must be one of {GPU_BINDINGS}, got {binding!r}")
    local_id = rank % gpus_per_node
    visible = local_id if binding == "per-task" else ",".join(map(str, range(gpus_per_node)))
    return {
        "SLURM_JOB_ID": str(job_id),
        "SLURM_STEP_NODELIST": f"gpu[001-{nodes:03d}]" if nodes > 1 else "gpu001",
        "SLURM_STEP_NUM_NODES": str(nodes),
        "SLURM_NTASKS": str(nodes * gpus_per_node),
        "SLURM_PROCID": str(rank),
        "SLURM_LOCALID": str(local_id),
        "SLURM_NODEID": str(rank // gpus_per_node),
        "CUDA_VISIBLE_DEVICES": str(visible),
    }
