"""diverge.py: what breaking the multi-controller rule does. Every process must run the same
jitted computations and collectives, in the same order; here only rank 0 runs one.

Rank 0 launches a jitted sum over a global array sharded across every process. Its compiled
program contains a cross-process all-reduce, and the other ranks, which skip the `if`, never
join it: rank 0 waits for partners that will never come. Nothing raises; only a launcher's
timeout ends the run. Each rank prints its state first, so the launcher's report shows who was
stuck where.

    mpirun -np 2 python diverge.py    # hangs: stop it with a timeout (`timeout 20 mpirun ...`)
    ah.run_cluster(path, processes=2, timeout=2)    # raises ah.ClusterTimeout
"""

from __future__ import annotations

import os

import numpy as np

if os.environ.get("AURORA_LOOPBACK") == "1":  # the course's launcher tests only
    from _loopback import gloo_on_loopback  # type: ignore[import-not-found]

    gloo_on_loopback()

import jax
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

if not jax.distributed.is_initialized():
    jax.distributed.initialize()
rank = jax.process_index()
mesh = jax.make_mesh((jax.device_count(),), ("data",))
local = np.full((jax.local_device_count(),), rank, np.float32)
data = jax.make_array_from_process_local_data(NamedSharding(mesh, P("data")), local)
print(f"rank {rank}: built my shards", flush=True)

if rank == 0:  # the bug: a computation over the global array that only rank 0 runs
    print("rank 0: entering a jitted sum alone", flush=True)
    total = jax.jit(lambda x: x.sum(), out_shardings=NamedSharding(mesh, P()))(data)
    total.block_until_ready()  # waits in the all-reduce for the other processes
print(f"rank {rank}: finished", flush=True)
result = rank
