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
    "05.1": {
        "hard-coded figure": "def honest_time(f, x, repeats=7):\n    return 0.004",
        "first call timed with the others": (
            "def honest_time(f, x, repeats=7):\n"
            "    times = []\n"
            "    for _ in range(repeats):\n"
            "        t0 = time.perf_counter()\n"
            "        jax.block_until_ready(f(x))\n"
            "        times.append(time.perf_counter() - t0)\n"
            "    return float(np.median(times))"
        ),
        "output not waited for": (
            "def honest_time(f, x, repeats=7):\n"
            "    f(x)\n"
            "    times = []\n"
            "    for _ in range(repeats):\n"
            "        t0 = time.perf_counter()\n"
            "        f(x)\n"
            "        times.append(time.perf_counter() - t0)\n"
            "    return float(np.median(times))"
        ),
        "ah.benchmark instead of a timer of one's own": (
            "def honest_time(f, x, repeats=7):\n"
            "    return ah.benchmark(f, x, min_repeats=repeats, budget_s=0.01).median"
        ),
    },
    "05.2": {
        "hard-coded figures of the example": (
            "def arithmetic_intensity(op, size):\n"
            "    return 0.25 if op == 'f' else 1024 / 6\n\n\n"
            "def is_memory_bound(op, size, ridge):\n"
            "    return op == 'f'"
        ),
        "inputs counted, output not": (
            "def arithmetic_intensity(op, size):\n"
            "    return 2 * size / (4 * size) if op == 'f' else 2 * size**3 / (8 * size**2)\n\n\n"
            "def is_memory_bound(op, size, ridge):\n"
            "    return arithmetic_intensity(op, size) < ridge"
        ),
        "elements, not bytes": (
            "def arithmetic_intensity(op, size):\n"
            "    return 2 * size / (2 * size) if op == 'f' else 2 * size**3 / (3 * size**2)\n\n\n"
            "def is_memory_bound(op, size, ridge):\n"
            "    return arithmetic_intensity(op, size) < ridge"
        ),
        "the ridge ignored (elementwise always memory-bound)": (
            "def arithmetic_intensity(op, size):\n"
            "    return 0.25 if op == 'f' else size / 6\n\n\n"
            "def is_memory_bound(op, size, ridge):\n"
            "    return op == 'f'"
        ),
    },
    "05.3": {
        "jnp.sqrt, no iteration": "def newton_sqrt(a, steps):\n    return jnp.sqrt(a)",
        "hard-coded result of the example": (
            "def newton_sqrt(a, steps):\n    return jnp.asarray(np.sqrt(squares))"
        ),
        "a Python loop over range(steps)": (
            "def newton_sqrt(a, steps):\n"
            "    x = jnp.ones_like(a)\n"
            "    for _ in range(steps):\n"
            "        x = 0.5 * (x + a / x)\n"
            "    return x"
        ),
        "iterates until converged, not `steps` times": (
            "def newton_sqrt(a, steps):\n"
            "    def far(x):\n"
            "        return jnp.any(jnp.abs(x * x - a) > 1e-6 * a)\n"
            "    return lax.while_loop(far, lambda x: 0.5 * (x + a / x), jnp.ones_like(a))"
        ),
    },
    # --- end 05 ---
    # --- 06 --- (only notebook 06's engineer edits between these markers)
    "06.1": {
        "hard-coded axis names": "def column_strips(mesh):\n    return P(None, ('data', 'model'))",
        "columns over the first axis only": (
            "def column_strips(mesh):\n    return P(None, mesh.axis_names[0])"
        ),
        "rows split instead of columns": (
            "def column_strips(mesh):\n    return P(tuple(mesh.axis_names), None)"
        ),
        "minor axis first": (
            "def column_strips(mesh):\n    return P(None, tuple(reversed(mesh.axis_names)))"
        ),
    },
    "06.2": {
        "hard-coded spec of the example": (
            "def weight_spec(x_spec, out_spec):\n    return P(None, 'model')"
        ),
        "the output's spec copied onto the weight": (
            "def weight_spec(x_spec, out_spec):\n    return out_spec"
        ),
        "weight replicated": "def weight_spec(x_spec, out_spec):\n    return P()",
    },
    "06.3": {
        "hard-coded product": "def project(h, w):\n    return projected_expected",
        "reshard both operands first (gathers)": (
            "def project(h, w):\n"
            "    return jax.reshard(h, P('data', None)) @ jax.reshard(w, P(None, 'model'))"
        ),
        "NumPy product placed afterwards": (
            "def project(h, w):\n"
            "    return jax.device_put(np.asarray(h) @ np.asarray(w),\n"
            "                          NamedSharding(mesh, P('data', 'model')))"
        ),
        "summed into whole rows (the fix shown above, not the layout asked for)": (
            "def project(h, w):\n    return jnp.matmul(h, w, out_sharding=P('data', None))"
        ),
    },
    "06.4": {
        "device_put of the whole array": (
            "def coordinates(shape, sharding):\n"
            "    i, j = np.indices(shape)\n"
            "    return jax.device_put((1000 * i + j).astype(np.int32), sharding)"
        ),
        "blocks cut from a whole array": (
            "def coordinates(shape, sharding):\n"
            "    i, j = np.indices(shape)\n"
            "    whole = (1000 * i + j).astype(np.int32)\n"
            "    return jax.make_array_from_callback(shape, sharding, lambda index: whole[index])"
        ),
        "start and stop read directly (an unsplit axis has none)": (
            "def coordinates(shape, sharding):\n"
            "    def block(index):\n"
            "        i = np.arange(index[0].start, index[0].stop)[:, None]\n"
            "        j = np.arange(index[1].start, index[1].stop)[None, :]\n"
            "        return (1000 * i + j).astype(np.int32)\n"
            "    return jax.make_array_from_callback(shape, sharding, block)"
        ),
        "hard-coded array of the example": (
            "def coordinates(shape, sharding):\n"
            "    i, j = np.indices((rows, cols))\n"
            "    return jax.device_put((1000 * i + j).astype(np.int32), coords_sharding)"
        ),
    },
    # --- end 06 ---
    # --- 07 --- (only notebook 07's engineer edits between these markers)
    # --- end 07 ---
    # --- 08 --- (only notebook 08's engineer edits between these markers)
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
    # --- end A1 ---
}
