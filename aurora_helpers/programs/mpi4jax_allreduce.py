"""mpi4jax_allreduce.py: an MPI allreduce as a JAX primitive inside `jax.jit`, checked against
`jax.lax.psum`. Needs `mpi4py` and `mpi4jax` (not course dependencies; see the README).

    mpirun -np 4 python mpi4jax_allreduce.py

No `jax.distributed` here: mpi4jax takes the MPI view, every process keeps its own ordinary
arrays and calls MPI on them, over whatever MPI library `mpi4py` was built against.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import mpi4jax  # type: ignore[import-not-found]
import numpy as np
from mpi4py import MPI  # type: ignore[import-not-found]

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()


def contribution(r: int) -> jax.Array:
    """What process ``r`` adds in."""
    return jnp.arange(4.0, dtype=jnp.float32) * (r + 1)


@jax.jit
def mpi_total(x: jax.Array) -> jax.Array:
    out = mpi4jax.allreduce(x, op=MPI.SUM, comm=comm)
    total: jax.Array = (
        out[0] if isinstance(out, tuple) else out
    )  # older mpi4jax also returns a token
    return total


total = np.asarray(mpi_total(contribution(rank)))
# The same sum by jax.lax.psum, over a named axis holding every process's contribution.
stacked = jnp.stack([contribution(r) for r in range(size)])
by_psum = np.asarray(jax.vmap(lambda v: jax.lax.psum(v, "ranks"), axis_name="ranks")(stacked))[0]
agree = bool(np.array_equal(total, by_psum))
print(f"rank {rank}: mpi4jax allreduce == psum: {agree} ({total.tolist()})", flush=True)
if not agree:
    raise SystemExit(f"rank {rank}: mpi4jax gave {total}, psum {by_psum}")
