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
        FileNotFoundError, match=r"\['diverge', 'mpi4jax_allreduce', 'multihost_tour'\]"
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
