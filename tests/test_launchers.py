"""The example programs and the real launchers' command lines (``aurora_helpers.cluster.launchers``).

The programs run here on the course's LocalCluster; ``make test-launchers`` runs the same files
under mpirun and SLURM.
"""

from __future__ import annotations

import shlex
import time

import pytest

import aurora_helpers as ah


def test_program_path_finds_the_programs_and_names_them_when_asked_for_another():
    assert ah.program_path("multihost_tour").name == "multihost_tour.py"
    assert ah.program_path("diverge.py").is_file()
    with pytest.raises(
        FileNotFoundError,
        match=r"\['diverge', 'mpi4jax_allreduce', 'multihost_tour', 'slurm_gpu_probe'\]",
    ):
        ah.program_path("nonsense")
    with pytest.raises(FileNotFoundError):
        ah.program_path("_loopback")  # a helper of the programs, not a program


def test_tour_reference_is_the_one_process_answer():
    ref = ah.tour_reference(rank=2, size=3, local_devices=2)
    assert ref["rank"] == 2 and ref["size"] == 3 and ref["devices"] == 6
    assert ref["psum"] == 2 * (1 + 2 + 3)  # every device adds its rank + 1
    assert ref["ranks"] == [0, 1, 2]
    assert len(ref["gathered"]) == 3 * 2 * 3  # processes x devices x rows per device
    assert ref["column_sums"] == [sum(row[c] for row in ref["gathered"]) for c in range(2)]
    assert ref["broadcast"] == ah.tour_reference(0, 3, 2)["broadcast"]
    assert ref["gathered"] != ah.tour_reference(2, 3, 1)["gathered"]


def test_mpirun_command_keeps_open_mpi_on_loopback_and_forwards_variables():
    command = ah.mpirun_command("tour.py", 4, python="py", as_root=True, forward=["A", "B"])
    text = shlex.join(command)
    assert command[:3] == ["mpirun", "-np", "4"] and command[-2:] == ["py", "tour.py"]
    assert "--allow-run-as-root" in command
    assert "--mca btl self,vader --mca oob_tcp_if_include lo" in text
    assert "-x A -x B" in text
    plain = ah.mpirun_command("tour.py", 2, loopback=False)
    assert plain == ["mpirun", "-np", "2", "python", "tour.py"]


def test_srun_gpu_recipe_asks_for_gpus_per_node_without_per_task_binding():
    line = ah.srun_command("train.py", 8, gpus_per_node=4)
    assert "--ntasks-per-node=4" in line and "--gpus-per-node=4" in line
    assert not any("gpus-per-task" in part for part in line)


def test_slurm_gpu_task_env_is_what_jax_derives_local_device_ids_from():
    from unittest import mock

    from jax._src.clusters import ClusterEnv

    def derived(rank, binding, ids=None):
        env = ah.slurm_gpu_task_env(rank, gpus_per_node=4, nodes=2, binding=binding)
        with mock.patch.dict("os.environ", env, clear=True):
            *_, got = ClusterEnv.auto_detect_unset_distributed_params(
                None, None, None, ids, None, None
            )
        return list(got), len(env["CUDA_VISIBLE_DEVICES"].split(","))

    for rank in range(8):
        ids, seen = derived(rank, "per-node")
        assert ids == [rank % 4] and seen == 4  # GPU i of the 4 the task sees
        ids, seen = derived(rank, "per-task")
        assert ids == [rank % 4] and seen == 1  # invalid for local ids >= 1
        assert derived(rank, "per-task", [0]) == ([0], 1)
    env = ah.slurm_gpu_task_env(5, gpus_per_node=4, nodes=2, binding="per-node")
    assert env["SLURM_STEP_NODELIST"] == "gpu[001-002]" and env["SLURM_NODEID"] == "1"
    with pytest.raises(ValueError, match="binding"):
        ah.slurm_gpu_task_env(0, gpus_per_node=4, nodes=1, binding="per-gpu")


def test_local_cluster_checks_heartbeat_timeout():
    with pytest.raises(TypeError, match="whole number"):
        ah.LocalCluster(heartbeat_timeout=1.5)
    with pytest.raises(ValueError, match="at least 1"):
        ah.LocalCluster(heartbeat_timeout=0)
    with pytest.raises(ValueError, match="imitate"):
        ah.LocalCluster(imitate="slurm", heartbeat_timeout=2)
    assert ah.LocalCluster(heartbeat_timeout=3).heartbeat_timeout == 3


def test_srun_and_sbatch_run_one_step_of_n_tasks():
    assert ah.srun_command("t.py", 4) == [
        "srun",
        "-n",
        "4",
        "--kill-on-bad-exit=1",
        "python",
        "t.py",
    ]
    logged = ah.srun_command("t.py", 2, output_dir="/logs")
    assert "--output=/logs/srun-%t.out" in logged and "--error=/logs/srun-%t.err" in logged
    script = ah.sbatch_script("t.py", 4, python="py", output_dir="/logs", minutes=7)
    assert script.startswith("#!/bin/bash\n")
    assert "#SBATCH --ntasks=4\n" in script and "#SBATCH --time=00:07:00\n" in script
    assert script.rstrip().endswith("py t.py") and "srun --kill-on-bad-exit=1" in script


def test_slurm_config_is_one_loopback_node_in_its_folder():
    conf = ah.slurm_config("/tmp/x", cpus=4, ctld_port=1, slurmd_port=2, srun_ports=(3, 9))
    settings = dict(
        line.split("=", 1)
        for line in conf.splitlines()
        if "=" in line[:40] and not line.startswith(("#", "NodeName", "PartitionName"))
    )
    assert settings["SlurmctldHost"] == "localhost(127.0.0.1)"
    assert settings["CommunicationParameters"] == "NoInAddrAny,NoCtldInAddrAny"
    assert settings["SrunPortRange"] == "3-9" and settings["SlurmdPort"] == "2"
    assert settings["AuthInfo"] == "socket=/tmp/x/munge.socket"
    assert all(v.startswith("/tmp/x/") for k, v in settings.items() if k.endswith(("File", "Dir")))
    assert "NodeName=localhost NodeAddr=127.0.0.1 CPUs=4" in conf


@pytest.mark.slow
@pytest.mark.parametrize("imitate", [None, "slurm"])
def test_the_tour_on_a_local_cluster_matches_the_reference(imitate):
    run = ah.run_cluster(
        ah.program_path("multihost_tour"), processes=2, devices_per_process=2, imitate=imitate
    )
    assert list(run.results) == [ah.tour_reference(r, 2, 2) for r in range(2)]
    # Gloo may print its own lines to stdout too (JAX 0.9); the result is a line of its own.
    assert any(line.startswith("AURORA-RESULT ") for line in run.output(1).splitlines())


@pytest.mark.slow
def test_diverge_hangs_with_rank_zero_alone_in_the_collective():
    with pytest.raises(ah.ClusterTimeout) as caught:
        ah.run_cluster(ah.program_path("diverge"), processes=2, devices_per_process=1, timeout=3)
    assert caught.value.waiting == (0,) and caught.value.finished == (1,)
    assert caught.value.stdout[0].endswith("rank 0: entering a jitted sum alone\n")
    assert caught.value.stdout[1].endswith("rank 1: finished\n")


FROZEN = """
import os, signal
import jax
from jax.experimental import multihost_utils

multihost_utils.sync_global_devices("both started")
if jax.process_index() == 1:
    os.kill(os.getpid(), signal.SIGSTOP)  # frozen: alive, but no more heartbeats
multihost_utils.sync_global_devices("never completes")
"""


@pytest.mark.slow
def test_a_frozen_rank_is_declared_dead_by_the_shortened_heartbeat_timeout():
    """LocalCluster joins with a 20 s heartbeat timeout (JAX: 100 s), so a frozen rank makes its
    partner fail well before this 75 s run timeout; with JAX's default it would time out."""
    began = time.monotonic()
    with pytest.raises(ah.ClusterProcessError) as caught:
        ah.run_cluster(FROZEN, processes=2, devices_per_process=1, timeout=75)
    assert caught.value.rank == 0 and caught.value.exit_code is not None
    assert time.monotonic() - began < 75
