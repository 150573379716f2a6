"""Wrong answers every exercise's check must reject: one table for the whole course.

``WRONG_ANSWERS["NN.k"]`` maps a short description of what the answer skips to Python source that
replaces the exercise's solution cell. Each exercise lists at least two: a hard-coded value, and a
route that skips the skill the exercise teaches (a NumPy detour, no collective, no sharding, no
jit, ...). ``tests/test_wrong_answers.py`` runs each notebook at 8 simulated devices and requires
the check to report every one of them as "wrong"; it also fails when an exercise of the course
has fewer than two entries here. The sources run in the notebook's namespace, so they may use
its names (``jax``, ``jnp``, ``np``, ``ah``, meshes and arrays defined earlier).
"""

from __future__ import annotations

WRONG_ANSWERS: dict[str, dict[str, str]] = {
    # --- 00 --- (only notebook 00's engineer edits between these markers)
    # --- end 00 ---
    # --- 01 --- (only notebook 01's engineer edits between these markers)
    # --- end 01 ---
    # --- 02 --- (only notebook 02's engineer edits between these markers)
    # --- end 02 ---
    # --- 03 --- (only notebook 03's engineer edits between these markers)
    # --- end 03 ---
    # --- 04 --- (only notebook 04's engineer edits between these markers)
    # --- end 04 ---
    # --- 05 --- (only notebook 05's engineer edits between these markers)
    # --- end 05 ---
    # --- 06 --- (only notebook 06's engineer edits between these markers)
    # --- end 06 ---
    # --- 07 --- (only notebook 07's engineer edits between these markers)
    # --- end 07 ---
    # --- 08 --- (only notebook 08's engineer edits between these markers)
    "08.1": {
        "hard-coded zeros (the mean the data is drawn around)": (
            "def global_feature_means(local_rows):\n"
            "    import numpy as np\n"
            "    return np.zeros(local_rows.shape[1], np.float32)"
        ),
        "this process's rows only": (
            "def global_feature_means(local_rows):\n"
            "    import jax.numpy as jnp\n"
            "    return jnp.mean(local_rows, axis=0)"
        ),
        "NumPy mean of rows gathered with process_allgather": (
            "def global_feature_means(local_rows):\n"
            "    from jax.experimental import multihost_utils\n"
            "    return multihost_utils.process_allgather(local_rows, tiled=True).mean(axis=0)"
        ),
        "global array gathered back to the host, then NumPy": (
            "def global_feature_means(local_rows):\n"
            "    import jax\n"
            "    from jax.experimental import multihost_utils\n"
            "    from jax.sharding import NamedSharding, PartitionSpec as P\n"
            "    mesh = jax.make_mesh((jax.device_count(),), ('data',))\n"
            "    data = jax.make_array_from_process_local_data(\n"
            "        NamedSharding(mesh, P('data')), local_rows)\n"
            "    return multihost_utils.process_allgather(data, tiled=True).mean(axis=0)"
        ),
    },
    "08.2": {
        "hard-coded zeros": (
            "def uneven_mean(local_rows):\n"
            "    import numpy as np\n"
            "    return np.zeros(local_rows.shape[1], np.float32)"
        ),
        "this process's mean only": (
            "def uneven_mean(local_rows):\n    return local_rows.mean(axis=0)"
        ),
        "the mean of the processes' means": (
            "def uneven_mean(local_rows):\n"
            "    from jax.experimental import multihost_utils\n"
            "    return multihost_utils.process_allgather(local_rows.mean(axis=0)).mean(axis=0)"
        ),
    },
    "08.3": {
        "hard-coded identity order": (
            "def shared_order(my_seed, n):\n"
            "    import numpy as np\n"
            "    return np.arange(n, dtype=np.int32)"
        ),
        "each process keeps its own draw": (
            "def shared_order(my_seed, n):\n"
            "    import numpy as np\n"
            "    return np.random.default_rng(my_seed).permutation(n).astype(np.int32)"
        ),
        "everyone's draws gathered, rank 0's row kept (no broadcast)": (
            "def shared_order(my_seed, n):\n"
            "    import numpy as np\n"
            "    from jax.experimental import multihost_utils\n"
            "    mine = np.random.default_rng(my_seed).permutation(n).astype(np.int32)\n"
            "    order = multihost_utils.process_allgather(mine)[0]\n"
            "    multihost_utils.assert_equal(order, 'disagree')\n"
            "    return order"
        ),
        "broadcast, but agreement never confirmed": (
            "def shared_order(my_seed, n):\n"
            "    import numpy as np\n"
            "    from jax.experimental import multihost_utils\n"
            "    mine = np.random.default_rng(my_seed).permutation(n).astype(np.int32)\n"
            "    return np.asarray(multihost_utils.broadcast_one_to_all(mine))"
        ),
    },
    # --- end 08 ---
    # --- 09 --- (only notebook 09's engineer edits between these markers)
    "09.1": {
        "hard-coded name": "def choose_layout(budget):\n    return '2-D'",
        "memory only, communication not measured": (
            "def choose_layout(budget):\n"
            "    fitting = [k for k, (held, _) in table.items() if held <= budget]\n"
            "    return max(fitting, key=lambda k: table[k][0]) if fitting else None"
        ),
    },
    "09.2": {
        "hard-coded bytes": (
            "def predict_2d(batch, layers, dp, tp):\n    return float(measured['2-D']['step'].sent)"
        ),
        "forward pass only, no gradient reductions": (
            "def predict_2d(batch, layers, dp, tp):\n"
            "    c = ah.collective_cost('all-reduce', 4 * batch // dp * dm, tp)\n"
            "    return float(layers * c.sent)"
        ),
    },
    "09.3": {
        "hard-coded parameters instead of a gather": (
            "def gather(shards):\n    return jax.tree.map(jnp.asarray, params_np)"
        ),
        "all-reduce then slice instead of a reduce-scatter": (
            "def scatter(grads):\n"
            "    def block(g):\n"
            "        rows = g.shape[0] // n\n"
            "        k = jax.lax.axis_index(ALL)\n"
            "        return jax.lax.dynamic_slice_in_dim(jax.lax.psum(g, ALL) / n, k * rows, rows)\n"
            "    return jax.tree.map(block, grads)"
        ),
        "scatter without the mean": (
            "def scatter(grads):\n"
            "    return jax.tree.map(\n"
            "        lambda g: jax.lax.psum_scatter(g, ALL, scatter_dimension=0, tiled=True), grads)"
        ),
    },
    # --- end 09 ---
    # --- A1 --- (only notebook A1's engineer edits between these markers)
    "A1.1": {
        "hard-coded result of the example": (
            "def squared_difference(x, y):  # the example's answer, whatever the input\n"
            "    return jnp.asarray((np.asarray(xa) - np.asarray(ya)) ** 2)"
        ),
        "NumPy detour": (
            "def squared_difference(x, y):\n    return (np.asarray(x) - np.asarray(y)) ** 2"
        ),
        "plain jax.numpy, no kernel": "def squared_difference(x, y):\n    return (x - y) ** 2",
        "a kernel, but the wrong operation": (
            "def _kernel(x_ref, y_ref, o_ref):\n"
            "    o_ref[...] = x_ref[...] - y_ref[...]\n"
            "def squared_difference(x, y):\n"
            "    return pl.pallas_call(_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
            "                          interpret=INTERPRET)(x, y)"
        ),
        "difference taken outside, a one-input kernel squares it": (
            "def _kernel(d_ref, o_ref):\n"
            "    o_ref[...] = d_ref[...] * d_ref[...]\n"
            "def squared_difference(x, y):\n"
            "    return pl.pallas_call(_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
            "                          interpret=INTERPRET)(x - y)"
        ),
    },
    "A1.2": {
        "hard-coded result of the example": (
            "def column_rms_norm(x, block_cols):  # the example's answer, whatever the input\n"
            "    return xc * jax.lax.rsqrt(jnp.mean(xc * xc, axis=0, keepdims=True) + EPS)"
        ),
        "plain jax.numpy, no kernel": (
            "def column_rms_norm(x, block_cols):\n"
            "    return x * jax.lax.rsqrt(jnp.mean(x * x, axis=0, keepdims=True) + EPS)"
        ),
        "NumPy detour": (
            "def column_rms_norm(x, block_cols):\n"
            "    x = np.asarray(x)\n"
            "    return x / np.sqrt((x ** 2).mean(axis=0, keepdims=True) + EPS)"
        ),
        "a kernel, but one program for the whole array (no tiling)": (
            "def _kernel(x_ref, o_ref):\n"
            "    v = x_ref[...]\n"
            "    o_ref[...] = v * jax.lax.rsqrt(jnp.mean(v * v, axis=0, keepdims=True) + EPS)\n"
            "def column_rms_norm(x, block_cols):\n"
            "    return pl.pallas_call(_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
            "                          interpret=INTERPRET)(x)"
        ),
        "the lesson's row tiling kept": (
            "def _kernel(x_ref, o_ref):\n"
            "    v = x_ref[...]\n"
            "    o_ref[...] = v * jax.lax.rsqrt(jnp.mean(v * v, axis=0, keepdims=True) + EPS)\n"
            "def column_rms_norm(x, block_cols):\n"
            "    n, width = x.shape\n"
            "    block = n // (width // block_cols)\n"
            "    spec = pl.BlockSpec((block, width), lambda i: (i, 0))\n"
            "    return pl.pallas_call(_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
            "                          grid=(width // block_cols,), in_specs=[spec],\n"
            "                          out_specs=spec, interpret=INTERPRET)(x)"
        ),
    },
    "A1.3": {
        "hard-coded result of the example": (
            "def power_sum_ffi(x, power):  # the example's answer, whatever the input\n"
            "    return jnp.asarray((np.abs(np.asarray(xp)) ** 3).sum(axis=-1))"
        ),
        "plain jax.numpy, no FFI call": (
            "def power_sum_ffi(x, power):\n    return jnp.sum(jnp.abs(x) ** power, axis=-1)"
        ),
        "the attribute as a float32": (
            "def power_sum_ffi(x, power):\n"
            "    call = jax.ffi.ffi_call(power_sum_target,\n"
            "                            jax.ShapeDtypeStruct(x.shape[:-1], x.dtype),\n"
            "                            vmap_method='sequential')\n"
            "    return call(x, power=np.float32(power))"
        ),
        "a fixed power": (
            "def power_sum_ffi(x, power):\n"
            "    call = jax.ffi.ffi_call(power_sum_target,\n"
            "                            jax.ShapeDtypeStruct(x.shape[:-1], x.dtype),\n"
            "                            vmap_method='broadcast_all')\n"
            "    return call(x, power=np.int64(2))"
        ),
        "no vmap_method": (
            "def power_sum_ffi(x, power):\n"
            "    call = jax.ffi.ffi_call(power_sum_target,\n"
            "                            jax.ShapeDtypeStruct(x.shape[:-1], x.dtype))\n"
            "    return call(x, power=np.int64(power))"
        ),
    },
    # --- end A1 ---
}
