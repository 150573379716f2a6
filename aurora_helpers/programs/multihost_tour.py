"""multihost_tour.py: notebook 08's multi-host steps as one program for every process.

Run it with any launcher; every process runs this same file:

    mpirun -np 4 python multihost_tour.py      # Open MPI: JAX's "ompi" detection
    srun -n 4 python multihost_tour.py         # SLURM: JAX's "slurm" detection
    ah.run_cluster(path, processes=4)          # the course's LocalCluster (already joined)

`jax.distributed.initialize()` gets no arguments: JAX's cluster auto-detection reads the
launcher's environment for the coordinator, the number of processes and this process's rank.
The steps, each checked against `reference()`, the answer one process computes alone:

1. a global array from process-local data (`jax.make_array_from_process_local_data`) and a
   jitted sum over it;
2. a `psum` over every device of every process (`jax.shard_map`);
3. `multihost_utils.process_allgather`, of a number per process and of the global array;
4. `multihost_utils.broadcast_one_to_all` of rank 0's random draw.

Each process prints one line `AURORA-RESULT {json}` with what it computed, and leaves the
same dictionary in the variable `result` (what `LocalCluster.run` returns for a script).
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

ROWS_PER_DEVICE = 3
FEATURES = 2
SEED = 8


def local_rows(rank: int, local_devices: int) -> np.ndarray:
    """The rows process ``rank`` loads: its own block of a dataset no process holds whole."""
    first = rank * local_devices * ROWS_PER_DEVICE
    rows = np.arange(first, first + local_devices * ROWS_PER_DEVICE)
    return (rows[:, None] * 10 + np.arange(FEATURES)).astype(np.float32)


def rank_draw(rank: int) -> list[int]:
    """The random numbers process ``rank`` draws; rank 0's are broadcast to everyone."""
    draw: list[int] = np.random.default_rng([SEED, rank]).integers(0, 1000, size=4).tolist()
    return draw


def reference(rank: int, size: int, local_devices: int) -> dict[str, Any]:
    """What process ``rank`` of ``size`` must report, computed by one process alone."""
    everything = np.concatenate([local_rows(r, local_devices) for r in range(size)])
    return {
        "rank": rank,
        "size": size,
        "devices": size * local_devices,
        "column_sums": everything.sum(axis=0).tolist(),
        "psum": float(local_devices * size * (size + 1) / 2),
        "ranks": list(range(size)),
        "gathered": everything.tolist(),
        "broadcast": rank_draw(0),
    }


def main() -> dict[str, Any]:
    """Join the job (if no launcher joined it already), run the four steps, report."""
    if os.environ.get("AURORA_LOOPBACK") == "1":  # the course's launcher tests only
        from _loopback import gloo_on_loopback  # type: ignore[import-not-found]

        gloo_on_loopback()
    import jax
    from jax.experimental import multihost_utils
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    if not jax.distributed.is_initialized():
        jax.distributed.initialize()  # coordinator, size and rank from the launcher
    rank, size = jax.process_index(), jax.process_count()
    mesh = jax.make_mesh((jax.device_count(),), ("data",))

    # 1. A global array from each process's own rows, and a jitted sum over all of them.
    local = local_rows(rank, jax.local_device_count())
    data = jax.make_array_from_process_local_data(NamedSharding(mesh, P("data")), local)
    assert data.shape == (local.shape[0] * size, FEATURES) and not data.is_fully_addressable
    sums = jax.jit(lambda x: x.sum(axis=0), out_shardings=NamedSharding(mesh, P()))(data)

    # 2. A psum across every device of every process: each device adds its rank + 1.
    ones = np.full((jax.local_device_count(),), rank + 1.0, np.float32)
    per_device = jax.make_array_from_process_local_data(NamedSharding(mesh, P("data")), ones)
    psum = jax.jit(
        jax.shard_map(
            lambda b: jax.lax.psum(b, "data"), mesh=mesh, in_specs=P("data"), out_specs=P()
        )
    )(per_device)

    # 3. Process-level gathers: one number per process, then the global array's whole value.
    ranks = multihost_utils.process_allgather(np.int32(rank))
    gathered = multihost_utils.process_allgather(data, tiled=True)

    # 4. Everyone takes rank 0's random draw.
    draw = np.asarray(rank_draw(rank), np.int32)
    chosen = multihost_utils.broadcast_one_to_all(draw)

    report = {
        "rank": rank,
        "size": size,
        "devices": jax.device_count(),
        "column_sums": np.asarray(sums).tolist(),
        "psum": float(np.asarray(psum)[0]),
        "ranks": np.asarray(ranks).tolist(),
        "gathered": np.asarray(gathered).tolist(),
        "broadcast": np.asarray(chosen).tolist(),
    }
    print("AURORA-RESULT " + json.dumps(report), flush=True)
    return report


if __name__ == "__main__":
    result = main()
    expected = reference(result["rank"], result["size"], result["devices"] // result["size"])
    if result != expected:  # every process checks itself against the one-process answer
        raise SystemExit(f"rank {result['rank']} computed {result}, expected {expected}")
