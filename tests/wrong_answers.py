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
    "07.1": {
        "hard-coded means of x": (
            "def column_means(a):\n    return jnp.asarray(x_np.mean(axis=0))"
        ),
        "jnp.mean on the global array, no shard_map": (
            "def column_means(a):\n    return jnp.mean(a, axis=0)"
        ),
        "NumPy detour": "def column_means(a):\n    return np.asarray(a).mean(axis=0)",
        "gathers every block instead of summing": (
            "def column_means(a):\n"
            "    def local(block):\n"
            "        return jax.lax.all_gather(block, 'i', tiled=True).mean(axis=0)\n"
            "    return jax.shard_map(local, mesh=ring, in_specs=P('i'), out_specs=P(),\n"
            "                         check_vma=False)(a)"
        ),
        "divides by the block's rows, not the matrix's": (
            "def column_means(a):\n"
            "    def local(block):\n"
            "        return jax.lax.psum(block.sum(axis=0), 'i') / block.shape[0]\n"
            "    return jax.shard_map(local, mesh=ring, in_specs=P('i'), out_specs=P())(a)"
        ),
        "one device's mean, the check silenced": (
            "def column_means(a):\n"
            "    return jax.shard_map(lambda b: b.mean(axis=0), mesh=ring, in_specs=P('i'),\n"
            "                         out_specs=P(), check_vma=False)(a)"
        ),
    },
    "07.2": {
        "hard-coded result for x": (
            "def shift_left(a):\n"
            "    return jnp.asarray(np.roll(blocks, -1, axis=0).reshape(rows, cols))"
        ),
        "jnp.roll on a replicated copy, no ppermute": (
            "def shift_left(a):\n"
            "    whole = jax.device_put(a, NamedSharding(ring, P()))\n"
            "    return jnp.roll(whole, -(a.shape[0] // n), axis=0)"
        ),
        "gathers everything, then slices": (
            "def shift_left(a):\n"
            "    def local(b):\n"
            "        whole = jax.lax.all_gather(b, 'i', tiled=True)\n"
            "        k = jax.lax.axis_index('i')\n"
            "        size = b.shape[0]\n"
            "        return jax.lax.dynamic_slice_in_dim(whole, ((k + 1) % n) * size, size)\n"
            "    return jax.shard_map(local, mesh=ring, in_specs=P('i'), out_specs=P('i'))(a)"
        ),
        "shifts to the right": (
            "def shift_left(a):\n"
            "    return jax.shard_map(lambda b: jax.lax.ppermute(b, 'i', to_the_right), mesh=ring,\n"
            "                         in_specs=P('i'), out_specs=P('i'))(a)"
        ),
    },
    "07.3": {
        "hard-coded product": "def matmul_psum(a, b):\n    return jnp.asarray(product_np)",
        "global matmul, no shard_map": (
            "def matmul_psum(a, b):\n"
            "    return jnp.matmul(a, b, out_sharding=NamedSharding(ring, P()))"
        ),
        "NumPy detour": (
            "def matmul_psum(a, b):\n    return jnp.asarray(np.asarray(a) @ np.asarray(b))"
        ),
        "gathers both operands instead of one all-reduce": (
            "def matmul_psum(a, b):\n"
            "    def local(a_blk, b_blk):\n"
            "        whole_a = jax.lax.all_gather(a_blk, 'i', axis=1, tiled=True)\n"
            "        whole_b = jax.lax.all_gather(b_blk, 'i', axis=0, tiled=True)\n"
            "        return whole_a @ whole_b\n"
            "    return jax.shard_map(local, mesh=ring, in_specs=(P(None, 'i'), P('i', None)),\n"
            "                         out_specs=P(), check_vma=False)(a, b)"
        ),
        "partial products, never summed": (
            "def matmul_psum(a, b):\n"
            "    return jax.shard_map(lambda x, y: x @ y, mesh=ring,\n"
            "                         in_specs=(P(None, 'i'), P('i', None)), out_specs=P(),\n"
            "                         check_vma=False)(a, b)"
        ),
    },
    # --- end 07 ---
    # --- 08 --- (only notebook 08's engineer edits between these markers)
    # --- end 08 ---
    # --- 09 --- (only notebook 09's engineer edits between these markers)
    "09.1": {
        "hard-coded name": "def choose_layout(costs, budget):\n    return '2-D'",
        "memory only, communication not measured": (
            "def choose_layout(costs, budget):\n"
            "    fitting = [k for k, (held, _) in costs.items() if held <= budget]\n"
            "    return max(fitting, key=lambda k: costs[k][0]) if fitting else None"
        ),
        "fewest bytes sent, ties not broken by memory": (
            "def choose_layout(costs, budget):\n"
            "    fitting = [k for k, (held, _) in costs.items() if held <= budget]\n"
            "    return min(fitting, key=lambda k: costs[k][1]) if fitting else None"
        ),
        "the budget ignored": (
            "def choose_layout(costs, budget):\n"
            "    return min(costs, key=lambda k: (costs[k][1], costs[k][0])) if costs else None"
        ),
        "the measured table, not the one given": (
            "def choose_layout(costs, budget):\n"
            "    fitting = [(s, h, k) for k, (h, s) in table.items() if h <= budget]\n"
            "    return min(fitting, key=lambda f: f[:2])[2] if fitting else None"
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
        "compiled and read, not predicted": (
            "def predict_2d(batch, layers, dp, tp):\n"
            "    return compiled_2d_bytes(batch, layers, dp, tp)"
        ),
        "the mesh's sizes taken from the notebook, not the arguments": (
            "def predict_2d(batch, layers, dp, tp):\n"
            "    activation = 4 * batch // dp_size * dm\n"
            "    sliced = 4 * layers * ((dm * df + df + df * dm) // tp_size + dm)\n"
            "    costs = [ah.collective_cost('all-reduce', activation, tp_size)] * (2 * layers - 1)\n"
            "    costs.append(ah.collective_cost('all-reduce', sliced + 4, dp_size))\n"
            "    return float(sum(c.sent for c in costs))"
        ),
    },
    # Each answer replaces the whole solution cell, so it defines both functions.
    "09.3": {
        "hard-coded parameters instead of a gather": (
            "def gather(shards):\n    return jax.tree.map(jnp.asarray, params_np)\n"
            "def scatter(grads):\n"
            "    return jax.tree.map(\n"
            "        lambda g: jax.lax.psum_scatter(g, ALL, scatter_dimension=0, tiled=True) / n, grads)\n"
        ),
        "all-reduce then slice instead of a reduce-scatter": (
            "def gather(shards):\n"
            "    return jax.tree.map(lambda b: jax.lax.all_gather(b, ALL, axis=0, tiled=True), shards)\n"
            "def scatter(grads):\n"
            "    def block(g):\n"
            "        rows = g.shape[0] // n\n"
            "        k = jax.lax.axis_index(ALL)\n"
            "        return jax.lax.dynamic_slice_in_dim(jax.lax.psum(g, ALL) / n, k * rows, rows)\n"
            "    return jax.tree.map(block, grads)"
        ),
        "scatter without the mean": (
            "def gather(shards):\n"
            "    return jax.tree.map(lambda b: jax.lax.all_gather(b, ALL, axis=0, tiled=True), shards)\n"
            "def scatter(grads):\n"
            "    return jax.tree.map(\n"
            "        lambda g: jax.lax.psum_scatter(g, ALL, scatter_dimension=0, tiled=True), grads)"
        ),
        "a gather by summing zero-padded blocks (all-reduce)": (
            "def gather(shards):\n"
            "    def whole(b):\n"
            "        k = jax.lax.axis_index(ALL)\n"
            "        padded = jnp.zeros((b.shape[0] * n, *b.shape[1:]), b.dtype)\n"
            "        return jax.lax.psum(jax.lax.dynamic_update_slice_in_dim(padded, b, k * b.shape[0], 0), ALL)\n"
            "    return jax.tree.map(whole, shards)\n"
            "def scatter(grads):\n"
            "    return jax.tree.map(\n"
            "        lambda g: jax.lax.psum_scatter(g, ALL, scatter_dimension=0, tiled=True) / n, grads)\n"
        ),
    },
    # --- end 09 ---
    # --- A1 --- (only notebook A1's engineer edits between these markers)
    # --- end A1 ---
}
