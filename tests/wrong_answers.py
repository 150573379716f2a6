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
    "00.1": {
        "reads the expected value from the checker's own frame": (
            "import sys\n"
            "def devices_by_kind(devices):\n"
            "    frame = sys._getframe(1)\n"
            "    while frame is not None and 'want' not in frame.f_locals:\n"
            "        frame = frame.f_back\n"
            "    return dict(frame.f_locals['want']) if frame is not None else {}"
        ),
        "hard-coded dictionary": "def devices_by_kind(devices):\n    return {'cpu': 8}",
        "counts this machine's devices, not the list given": (
            "def devices_by_kind(devices):\n"
            "    kinds = [d.device_kind for d in jax.devices()]\n"
            "    return {k: kinds.count(k) for k in set(kinds)}"
        ),
        "assumes one kind": (
            "def devices_by_kind(devices):\n"
            "    return {devices[0].device_kind: len(devices)} if devices else {}"
        ),
        "tailored to the visible made-up machine": (
            "def devices_by_kind(devices):\n"
            "    if any(d.device_kind != 'cpu' for d in devices):\n"
            "        return {'H100': 3, 'A100': 2}\n"
            "    return {'cpu': len(devices)} if devices else {}"
        ),
        "platform counted, not device_kind": (
            "def devices_by_kind(devices):\n"
            "    platforms = [d.platform for d in devices]\n"
            "    return {p: platforms.count(p) for p in set(platforms)}"
        ),
        "device_kind read, then ignored": (
            "def devices_by_kind(devices):\n"
            "    seen = [d.device_kind for d in devices]  # read, then ignored\n"
            "    return {'cpu': len(devices)} if devices else {}"
        ),
        "counts distinct kinds, not devices": (
            "def devices_by_kind(devices):\n    return {d.device_kind: 1 for d in devices}"
        ),
    },
    "00.2": {
        "hard-coded squares for n = 16": (
            "def squares(n):\n    return jnp.array([i * i for i in range(16)], dtype=jnp.int32)"
        ),
        "NumPy array, not a JAX array": (
            "def squares(n):\n    return np.arange(n, dtype=np.int32) ** 2"
        ),
        "a Python list": "def squares(n):\n    return [i * i for i in range(n)]",
        "float squares": "def squares(n):\n    return jnp.arange(n, dtype=jnp.float32) ** 2",
        "computed in NumPy, moved into JAX": (
            "def squares(n):\n    return jnp.asarray(np.arange(n, dtype=np.int32) ** 2)"
        ),
        "a Python list moved into JAX": (
            "def squares(n):\n    return jnp.array([i * i for i in range(n)], dtype=jnp.int32)"
        ),
        "tailored: jnp.arange for the size shown, NumPy for the hidden sizes": (
            "def squares(n):\n"
            "    if n == example_size:\n"
            "        return jnp.arange(n, dtype=jnp.int32) ** 2\n"
            "    return jnp.asarray(np.arange(n, dtype=np.int32) ** 2)"
        ),
        "jnp.arange called, its result unused": (
            "def squares(n):\n"
            "    jnp.arange(n, dtype=jnp.int32)\n"
            "    return jnp.asarray(np.square(np.arange(n, dtype=np.int32)))"
        ),
    },
    "00.3": {
        "hard-coded first device": "def device_ids(x):\n    return [0]",
        "every device of the machine": "def device_ids(x):\n    return [d.id for d in jax.devices()]",
        "assumes one device per array": "def device_ids(x):\n    return [x.device.id]",
        "tailored: a 2-D array means every device": (
            "def device_ids(x):\n"
            "    return sorted(d.id for d in jax.devices()) if x.ndim == 2 else [x.device.id]"
        ),
        "the first shard's device only": (
            "def device_ids(x):\n    return [x.addressable_shards[0].device.id]"
        ),
        "the default device's id": "def device_ids(x):\n    return [jax.devices()[0].id]",
        "the array moved to the default device, then asked": (
            "def device_ids(x):\n"
            "    return sorted(d.id for d in jax.device_put(x, jax.devices()[0]).devices())"
        ),
        "the check cell's own cases looked up": (
            "def device_ids(x):\n"
            "    for value in list(globals().values()):\n"
            "        if isinstance(value, list):\n"
            "            for case in value:\n"
            "                if isinstance(case, ah.Case) and case.args and case.args[0] is x:\n"
            "                    return case.expected\n"
            "    if x is globals().get('split_everywhere'):\n"
            "        return sorted(d.id for d in all_devices)\n"
            "    return [all_devices[0].id]"
        ),
        "x.devices() asked, its answer unused": (
            "def device_ids(x):\n"
            "    x.devices()  # asked, answer unused\n"
            "    return [jax.devices()[0].id]"
        ),
    },
    # --- end 00 ---
    # --- 01 --- (only notebook 01's engineer edits between these markers)
    "01.1": {
        "hard-coded sums (tailored to the shown input)": (
            "def histogram(values, weights, n_bins):\n    return jnp.asarray(shown.expected)"
        ),
        "NumPy's bincount on the host": (
            "def histogram(values, weights, n_bins):\n"
            "    v, w = np.asarray(values), np.asarray(weights)\n"
            "    keep = (v >= 0) & (v < n_bins)\n"
            "    return np.bincount(v[keep], w[keep], minlength=n_bins).astype(np.float32)"
        ),
        "jnp.bincount: negative values clipped into bin 0": (
            "def histogram(values, weights, n_bins):\n"
            "    return jnp.bincount(values, weights, length=n_bins).astype(jnp.float32)"
        ),
        "the default scatter: -1 wraps to the last bin": (
            "def histogram(values, weights, n_bins):\n"
            "    return jnp.zeros(n_bins, jnp.float32).at[values].add(weights)"
        ),
        "a comparison matrix, no scatter": (
            "def histogram(values, weights, n_bins):\n"
            "    hits = values[:, None] == jnp.arange(n_bins)\n"
            "    return (hits * weights[:, None]).sum(axis=0).astype(jnp.float32)"
        ),
        "set instead of add: repeats count once": (
            "def histogram(values, weights, n_bins):\n"
            "    return jnp.zeros(n_bins, jnp.float32).at[values].set(weights, mode='drop',"
            " wrap_negative_indices=False)"
        ),
        "an idle .at update beside a comparison sum": (
            "def histogram(values, weights, n_bins):\n"
            "    jnp.zeros(n_bins).at[values].add(weights)  # result unused\n"
            "    hits = values[:, None] == jnp.arange(n_bins)\n"
            "    return (hits * weights[:, None]).sum(axis=0).astype(jnp.float32)"
        ),
        "the sums made on the host and added to an empty scatter": (
            "def _host_sums(v, w, n):\n"
            "    keep = (v >= 0) & (v < n)\n"
            "    return np.bincount(v[keep], w[keep], minlength=n).astype(np.float32)\n\n"
            "def histogram(values, weights, n_bins):\n"
            "    shape = jax.ShapeDtypeStruct((n_bins,), jnp.float32)\n"
            "    sums = jax.pure_callback(lambda v, w: _host_sums(v, w, n_bins), shape, values, weights)\n"
            "    return sums.at[values].add(0.0, mode='drop')"
        ),
        "the check's own case builder called": (
            "def histogram(values, weights, n_bins):\n"
            "    return jnp.asarray(histogram_case(len(values), n_bins, 0, n_bins, '').expected)"
        ),
        "jnp.bincount of the values masked by hand": (
            "def histogram(values, weights, n_bins):\n"
            "    keep = (values >= 0) & (values < n_bins)\n"
            "    spare = jnp.where(keep, values, n_bins)  # out-of-range values go to a spare bin\n"
            "    return jnp.bincount(spare, weights, length=n_bins + 1)[:n_bins].astype(jnp.float32)"
        ),
        "indices cast to uint32, so that negative values land past the end": (
            "def histogram(values, weights, n_bins):\n"
            "    unsigned = values.astype(jnp.uint32)\n"
            "    return jnp.zeros(n_bins, jnp.float32).at[unsigned].add(weights, mode='drop')"
        ),
        "tailored: indices shifted by two for the -1 and -2 of the shown values": (
            "def histogram(values, weights, n_bins):\n"
            "    shifted = jnp.zeros(n_bins + 2, jnp.float32).at[values + 2].add(weights, mode='drop')\n"
            "    return shifted[2:]"
        ),
        "jnp.histogram: a value equal to n_bins lands in the last bin": (
            "def histogram(values, weights, n_bins):\n"
            "    return jnp.histogram(values, bins=n_bins, range=(0, n_bins), weights=weights)[0]"
            ".astype(jnp.float32)"
        ),
    },
    "01.2": {
        "hard-coded lookup": (
            "def lookup_or_default(table, ids, default):\n"
            "    return jnp.asarray(np.where(ids_host < 10, table_host[np.minimum(ids_host, 9)],"
            " np.float32(-1.0)))"
        ),
        "compares the indices with jnp.where": (
            "def lookup_or_default(table, ids, default):\n"
            "    return jnp.where(ids < table.shape[0], table[ids], default)"
        ),
        "NumPy detour": (
            "def lookup_or_default(table, ids, default):\n"
            "    t, i = np.asarray(table), np.asarray(ids)\n"
            "    return np.where(i < len(t), t[np.minimum(i, len(t) - 1)], np.float32(default))"
        ),
        "the default read (clamped)": (
            "def lookup_or_default(table, ids, default):\n    return table[ids]"
        ),
        "an idle fill-mode read beside a comparison": (
            "def lookup_or_default(table, ids, default):\n"
            "    table.at[ids].get(mode='fill', fill_value=default)  # result unused\n"
            "    return jnp.where(ids < table.shape[0], table[ids], default)"
        ),
        "the check's own reference called": (
            "def lookup_or_default(table, ids, default):\n"
            "    return jnp.asarray(lookup_reference(table, ids, default))"
        ),
        "tailored: only ids 10 and 15 are past the end": (
            "def lookup_or_default(table, ids, default):\n"
            "    return jnp.where((ids == 10) | (ids == 15), default, table[ids])"
        ),
        "a NaN-filling read, then the ids compared": (
            "def lookup_or_default(table, ids, default):\n"
            "    read = table.at[ids].get(mode='fill')\n"
            "    return jnp.where(ids < table.shape[0], read, default)"
        ),
    },
    "01.3": {
        "hard-coded table": (
            "def sparse_update(table, rows, grads, lr):\n"
            "    return jnp.asarray(sparse_reference(emb, used, grad_rows, 0.5))"
        ),
        "not compiled with jax.jit": (
            "def sparse_update(table, rows, grads, lr):\n"
            "    return table.at[rows].add(-lr * grads, mode='drop')"
        ),
        "clip mode: padding lands on the last row": (
            "@jax.jit\n"
            "def sparse_update(table, rows, grads, lr):\n"
            "    return table.at[rows].add(-lr * grads, mode='clip')"
        ),
        "set: a repeated row keeps one update": (
            "@jax.jit\n"
            "def sparse_update(table, rows, grads, lr):\n"
            "    return table.at[rows].set(table.at[rows].get(mode='fill', fill_value=0.0)"
            " - lr * grads, mode='drop')"
        ),
        "a one-hot matmul, no scatter": (
            "@jax.jit\n"
            "def sparse_update(table, rows, grads, lr):\n"
            "    one_hot = (rows[:, None] == jnp.arange(table.shape[0])).astype(table.dtype)\n"
            "    return table - lr * one_hot.T @ grads"
        ),
        "tailored: the last two entries taken for the padding": (
            "@jax.jit\n"
            "def sparse_update(table, rows, grads, lr):\n"
            "    return table.at[rows[:-2]].add(-lr * grads[:-2])"
        ),
        "an idle scatter beside a one-hot matmul": (
            "@jax.jit\n"
            "def sparse_update(table, rows, grads, lr):\n"
            "    table.at[rows].add(-lr * grads, mode='drop')  # result unused\n"
            "    one_hot = (rows[:, None] == jnp.arange(table.shape[0])).astype(table.dtype)\n"
            "    return table - lr * one_hot.T @ grads"
        ),
        "the update made on the host (pure_callback)": (
            "@jax.jit\n"
            "def sparse_update(table, rows, grads, lr):\n"
            "    shape = jax.ShapeDtypeStruct(table.shape, table.dtype)\n"
            "    new = jax.pure_callback(lambda t, r, g, a: sparse_reference(t, r, g, a).astype(t.dtype),"
            " shape, table, rows, grads, lr)\n"
            "    return new.at[rows].add(0.0, mode='drop')"
        ),
        "the check's own reference called": (
            "@jax.jit\n"
            "def sparse_update(table, rows, grads, lr):\n"
            "    return jnp.asarray(sparse_reference(table, rows, grads, lr))"
        ),
    },
    "01.4": {
        "hard-coded mean": (
            "def mean64(x):\n"
            "    with jax.enable_x64(True):\n"
            "        return jnp.asarray(np.mean(samples.astype(np.float64)))"
        ),
        "float32 input not converted: the mean is float32": (
            "def mean64(x):\n    with jax.enable_x64(True):\n        return jnp.mean(x)"
        ),
        "converted after a float32 mean": (
            "def mean64(x):\n"
            "    with jax.enable_x64(True):\n"
            "        return jnp.mean(x).astype(jnp.float64)"
        ),
        "NumPy float64 detour": ("def mean64(x):\n    return np.mean(np.asarray(x, np.float64))"),
        "64-bit mode left on": (
            "def mean64(x):\n"
            "    jax.config.update('jax_enable_x64', True)\n"
            "    return jnp.mean(x.astype(jnp.float64))"
        ),
        "NumPy's 64-bit mean inside enable_x64": (
            "def mean64(x):\n"
            "    with jax.enable_x64(True):\n"
            "        return jnp.asarray(np.mean(np.asarray(x, np.float64)))"
        ),
        "math.fsum on the host, moved to JAX": (
            "import math\n\n"
            "def mean64(x):\n"
            "    with jax.enable_x64(True):\n"
            "        return jnp.asarray(math.fsum(np.asarray(x).tolist()) / x.size, jnp.float64)"
        ),
        "an idle float64 mean, the host's returned": (
            "def mean64(x):\n"
            "    with jax.enable_x64(True):\n"
            "        jnp.mean(x.astype(jnp.float64))  # result unused\n"
            "        return jnp.asarray(np.mean(np.asarray(x, np.float64)))"
        ),
        "the check's own case builder called": (
            "def mean64(x):\n"
            "    with jax.enable_x64(True):\n"
            "        return jnp.asarray(mean_case(np.asarray(x), '').expected)"
        ),
        "tailored: a float32 mean shifted by the first sample (the shown values are close)": (
            "def mean64(x):\n"
            "    with jax.enable_x64(True):\n"
            "        shift = x[0]\n"
            "        return shift.astype(jnp.float64) + jnp.mean(x - shift).astype(jnp.float64)"
        ),
        "a host callback inside the 64-bit block": (
            "def mean64(x):\n"
            "    with jax.enable_x64(True):\n"
            "        wide = x.astype(jnp.float64)\n"
            "        shape = jax.ShapeDtypeStruct((), jnp.float64)\n"
            "        host = jax.pure_callback(lambda v: np.mean(v, dtype=np.float64), shape, wide)\n"
            "        return host + 0.0 * jnp.sum(wide)"
        ),
    },
    # --- end 01 ---
    # --- 02 --- (only notebook 02's engineer edits between these markers)
    "02.1": {
        "hard-coded three vmaps": "def vmap_n(f, n):\n    return jax.vmap(jax.vmap(jax.vmap(f)))",
        "a Python loop over the examples": (
            "def vmap_n(f, n):\n"
            "    if n == 0:\n"
            "        return f\n"
            "    inner = vmap_n(f, n - 1)\n"
            "    def looped(*args):\n"
            "        rows = [inner(*[a[i] for a in args]) for i in range(args[0].shape[0])]\n"
            "        return jax.tree.map(lambda *leaves: jnp.stack(leaves), *rows)\n"
            "    return looped"
        ),
        "NumPy's vectorize": (
            "def vmap_n(f, n):\n    return np.vectorize(f, signature='(k),(k)->()')"
        ),
        "lax.map over the examples": (
            "def vmap_n(f, n):\n"
            "    if n == 0:\n"
            "        return f\n"
            "    inner = vmap_n(f, n - 1)\n"
            "    return lambda *args: jax.lax.map(lambda example: inner(*example), args)"
        ),
        "jnp.vectorize with cosine's signature": (
            "def vmap_n(f, n):\n    return jnp.vectorize(f, signature='(k),(k)->()')"
        ),
        "f unchanged: broadcasting left to do the batching": "def vmap_n(f, n):\n    return f",
        "each example computed through NumPy on the host": (
            "def vmap_n(f, n):\n"
            "    def mapped(*args):\n"
            "        host = [np.asarray(a) for a in args]\n"
            "        batch = host[0].shape[:n]\n"
            "        outs = [f(*(a[i] for a in host)) for i in np.ndindex(*batch)]\n"
            "        return jax.tree.map(\n"
            "            lambda *leaves: jnp.asarray(np.stack([np.asarray(v) for v in leaves])"
            ".reshape(batch + np.shape(leaves[0]))),\n"
            "            *outs)\n"
            "    return mapped"
        ),
        "the check's reference called back from the mapped function": (
            "def vmap_n(f, n):\n"
            "    def mapped(*args):\n"
            "        batch = args[0].shape[:n]\n"
            "        one = jax.eval_shape(f, *(jax.ShapeDtypeStruct(a.shape[n:], a.dtype) for a in args))\n"
            "        shapes = jax.tree.map(lambda s: jax.ShapeDtypeStruct(batch + s.shape, s.dtype), one)\n"
            "        return jax.pure_callback(lambda *host: one_at_a_time(f, n, *host), shapes, *args)\n"
            "    return mapped"
        ),
        "pmap over the examples": (
            "def vmap_n(f, n):\n    for _ in range(n):\n        f = jax.pmap(f)\n    return f"
        ),
        "a Python loop calling a jitted f per example": (
            "def vmap_n(f, n):\n"
            "    one = jax.jit(f)\n"
            "    def mapped(*args):\n"
            "        batch = args[0].shape[:n]\n"
            "        outs = [one(*(a[i] for a in args)) for i in np.ndindex(*batch)]\n"
            "        return jax.tree.map(\n"
            "            lambda *leaves: jnp.stack(leaves).reshape(batch + jnp.shape(leaves[0])), *outs)\n"
            "    return mapped"
        ),
        "vmaps built and thrown away beside a loop": (
            "def vmap_n(f, n):\n"
            "    batched = f\n"
            "    for _ in range(n):\n"
            "        batched = jax.vmap(batched)\n"
            "    def mapped(*args):\n"
            "        batched(*args)  # computed, unused\n"
            "        batch = args[0].shape[:n]\n"
            "        outs = [f(*(a[i] for a in args)) for i in np.ndindex(*batch)]\n"
            "        return jax.tree.map(\n"
            "            lambda *leaves: jnp.stack(leaves).reshape(batch + jnp.shape(leaves[0])), *outs)\n"
            "    return mapped"
        ),
    },
    "02.2": {
        "hard-coded padding of 3": (
            "def zero_pad(x, length):\n"
            "    return jnp.pad(x, (0, 3))\n\n"
            "pad_to = jax.jit(zero_pad, static_argnames='length')"
        ),
        "NumPy, not compiled": (
            "def zero_pad(x, length):\n"
            "    return np.pad(np.asarray(x), (0, length - len(x)))\n\n"
            "pad_to = zero_pad"
        ),
        "length not static": (
            "def zero_pad(x, length):\n"
            "    return jnp.pad(x, (0, length - x.shape[0]))\n\n"
            "pad_to = jax.jit(zero_pad)"
        ),
        "not jitted": (
            "def zero_pad(x, length):\n"
            "    return jnp.pad(x, (0, length - x.shape[0]))\n\n"
            "pad_to = zero_pad"
        ),
        "assumes a non-empty x": (
            "def zero_pad(x, length):\n"
            "    return jnp.concatenate([x, jnp.repeat(x[:1] * 0, length - x.shape[0])])\n\n"
            "pad_to = jax.jit(zero_pad, static_argnames='length')"
        ),
        "zeros in the default dtype": (
            "def zero_pad(x, length):\n"
            "    return jnp.concatenate([x, jnp.zeros(length - x.shape[0])])\n\n"
            "pad_to = jax.jit(zero_pad, static_argnames='length')"
        ),
        "padded on the host in a callback": (
            "def zero_pad(x, length):\n"
            "    shape = jax.ShapeDtypeStruct((length,), x.dtype)\n"
            "    return jax.pure_callback(lambda v: np.pad(v, (0, length - v.shape[0])), shape, x)\n\n"
            "pad_to = jax.jit(zero_pad, static_argnames='length')"
        ),
        "the check's reference called back": (
            "def zero_pad(x, length):\n"
            "    shape = jax.ShapeDtypeStruct((length,), x.dtype)\n"
            "    return jax.pure_callback(\n"
            "        lambda v: np.asarray(pad_case(v, length, '').expected, v.dtype), shape, x)\n\n"
            "pad_to = jax.jit(zero_pad, static_argnames='length')"
        ),
        "a jitted version built and not used": (
            "def zero_pad(x, length):\n"
            "    return jnp.pad(x, (0, length - x.shape[0]))\n\n"
            "compiled_pad = jax.jit(zero_pad, static_argnames='length')\n"
            "pad_to = zero_pad"
        ),
    },
    "02.3": {
        "hard-coded output": (
            "def downsample_conv(images, kernels):\n"
            "    return jnp.asarray(strided_correlation(images, kernels)[:2])"
            " if images.shape == (2, 16, 16, 3) else jnp.zeros((1, 1, 1, 1))"
        ),
        "stride 1, then every other output": (
            "def downsample_conv(images, kernels):\n"
            "    full = lax.conv_general_dilated(images, kernels, (1, 1), 'VALID',\n"
            "                                    dimension_numbers=('NHWC', 'HWIO', 'NHWC'))\n"
            "    return full[:, ::2, ::2, :]"
        ),
        "NumPy windows": (
            "def downsample_conv(images, kernels):\n"
            "    w = sliding_window_view(np.asarray(images), kernels.shape[:2], axis=(1, 2))\n"
            "    return np.einsum('nhwcij,ijco->nhwo', w, np.asarray(kernels))[:, ::2, ::2, :]"
        ),
        "SAME padding": (
            "def downsample_conv(images, kernels):\n"
            "    return lax.conv_general_dilated(images, kernels, (2, 2), 'SAME',\n"
            "                                    dimension_numbers=('NHWC', 'HWIO', 'NHWC'))"
        ),
        "SAME padding cropped to the 16x16 example's output": (
            "def downsample_conv(images, kernels):\n"
            "    out = lax.conv_general_dilated(images, kernels, (2, 2), 'SAME',\n"
            "                                   dimension_numbers=('NHWC', 'HWIO', 'NHWC'))\n"
            "    return out[:, :7, :7, :]"
        ),
        "default dimension numbers": (
            "def downsample_conv(images, kernels):\n"
            "    return lax.conv_general_dilated(images, kernels, (2, 2), 'VALID')"
        ),
        "correlated on the host in a callback": (
            "def downsample_conv(images, kernels):\n"
            "    def host(im, k):\n"
            "        windows = sliding_window_view(im, k.shape[:2], axis=(1, 2))[:, ::2, ::2]\n"
            "        return np.einsum('nhwcij,ijco->nhwo', windows, k).astype(np.float32)\n"
            "    n, h, w, _ = images.shape\n"
            "    kh, kw, _, o = kernels.shape\n"
            "    shape = jax.ShapeDtypeStruct((n, (h - kh) // 2 + 1, (w - kw) // 2 + 1, o), jnp.float32)\n"
            "    return jax.pure_callback(host, shape, images, kernels)"
        ),
        "the check's reference called back": (
            "def downsample_conv(images, kernels):\n"
            "    n, h, w, _ = images.shape\n"
            "    kh, kw, _, o = kernels.shape\n"
            "    shape = jax.ShapeDtypeStruct((n, (h - kh) // 2 + 1, (w - kw) // 2 + 1, o), jnp.float32)\n"
            "    return jax.pure_callback(\n"
            "        lambda im, k: strided_correlation(im, k).astype(np.float32), shape, images, kernels)"
        ),
        "a strided convolution times zero, plus the reference called back": (
            "def downsample_conv(images, kernels):\n"
            "    conv = lax.conv_general_dilated(images, kernels, (2, 2), 'VALID',\n"
            "                                    dimension_numbers=('NHWC', 'HWIO', 'NHWC'))\n"
            "    shape = jax.ShapeDtypeStruct(conv.shape, jnp.float32)\n"
            "    host = jax.pure_callback(\n"
            "        lambda im, k: strided_correlation(im, k).astype(np.float32), shape, images, kernels)\n"
            "    return conv * 0.0 + host"
        ),
        "an idle strided convolution beside windows sliced by hand": (
            "def downsample_conv(images, kernels):\n"
            "    lax.conv_general_dilated(images, kernels, (2, 2), 'VALID',\n"
            "                             dimension_numbers=('NHWC', 'HWIO', 'NHWC'))  # unused\n"
            "    kh, kw = kernels.shape[:2]\n"
            "    h = (images.shape[1] - kh) // 2 + 1\n"
            "    w = (images.shape[2] - kw) // 2 + 1\n"
            "    out = 0.0\n"
            "    for i in range(kh):\n"
            "        for j in range(kw):\n"
            "            window = images[:, i:i + 2 * h:2, j:j + 2 * w:2, :]\n"
            "            out = out + jnp.einsum('nhwc,co->nhwo', window, kernels[i, j])\n"
            "    return out"
        ),
    },
    "02.4": {
        "hard-coded results": (
            "def momentum_update(params, velocity, grads, lr):\n"
            "    return jnp.ones(6) - 0.1 * (0.45 + jnp.arange(6.0)), 0.45 + jnp.arange(6.0)\n\n"
            "momentum_step = jax.jit(momentum_update, donate_argnames=('params', 'velocity'))"
        ),
        "no donation": (
            "def momentum_update(params, velocity, grads, lr):\n"
            "    velocity = 0.9 * velocity + grads\n"
            "    return params - lr * velocity, velocity\n\n"
            "momentum_step = jax.jit(momentum_update)"
        ),
        "inputs deleted by hand, memory not reused": (
            "def momentum_update(params, velocity, grads, lr):\n"
            "    velocity_new = 0.9 * velocity + grads\n"
            "    out = params - lr * velocity_new, velocity_new\n"
            "    params.delete()\n"
            "    velocity.delete()\n"
            "    return out\n\n"
            "momentum_step = momentum_update"
        ),
        "only params donated": (
            "def momentum_update(params, velocity, grads, lr):\n"
            "    velocity = 0.9 * velocity + grads\n"
            "    return params - lr * velocity, velocity\n\n"
            "momentum_step = jax.jit(momentum_update, donate_argnums=0)"
        ),
        "grads donated too": (
            "def momentum_update(params, velocity, grads, lr):\n"
            "    velocity = 0.9 * velocity + grads\n"
            "    return params - lr * velocity, velocity\n\n"
            "momentum_step = jax.jit(momentum_update, donate_argnums=(0, 1, 2))"
        ),
        "learning rate fixed at the example's 0.1": (
            "def momentum_update(params, velocity, grads, lr):\n"
            "    velocity = 0.9 * velocity + grads\n"
            "    return params - 0.1 * velocity, velocity\n\n"
            "momentum_step = jax.jit(momentum_update, donate_argnames=('params', 'velocity'))"
        ),
        "computed on the host in a callback, with donation": (
            "def momentum_update(params, velocity, grads, lr):\n"
            "    def host(p, v, g, rate):\n"
            "        v = 0.9 * v + g\n"
            "        return (p - rate * v).astype(np.float32), v.astype(np.float32)\n"
            "    shapes = (jax.ShapeDtypeStruct(params.shape, jnp.float32),) * 2\n"
            "    return jax.pure_callback(host, shapes, params, velocity, grads, lr)\n\n"
            "momentum_step = jax.jit(momentum_update, donate_argnames=('params', 'velocity'))"
        ),
        "the check's reference called with a guessed seed": (
            "def momentum_update(params, velocity, grads, lr):\n"
            "    e = momentum_expected(params.shape, 0.1, 0)\n"
            "    return params * 0 + e['params'], velocity * 0 + e['velocity']\n\n"
            "momentum_step = jax.jit(momentum_update, donate_argnames=('params', 'velocity'))"
        ),
        "a donating step built and not used": (
            "def momentum_update(params, velocity, grads, lr):\n"
            "    velocity = 0.9 * velocity + grads\n"
            "    return params - lr * velocity, velocity\n\n"
            "donating_step = jax.jit(momentum_update, donate_argnames=('params', 'velocity'))\n"
            "momentum_step = jax.jit(momentum_update)"
        ),
    },
    # --- end 02 ---
    # --- 03 --- (only notebook 03's engineer edits between these markers)
    "03.1": {
        "hard-coded rows of this machine": (
            "def inventory(devices):\n"
            "    return [(i, 'cpu', 'cpu', 0, ('device', 'pinned_host', 'unpinned_host'))\n"
            "            for i in range(8)]"
        ),
        "every device of jax.devices(), not the ones given": (
            "def inventory(devices):\n"
            "    return [(d.id, d.platform, d.device_kind, d.process_index,\n"
            "             tuple(m.kind for m in d.addressable_memories())) for d in jax.devices()]"
        ),
        "copied from the helpers' probe": (
            "def inventory(devices):\n"
            "    return [(p.id, p.platform, p.device_kind, p.process_index, p.memory_kinds)\n"
            "            for p in ah.probe().devices]"
        ),
        "the default memory only": (
            "def inventory(devices):\n"
            "    return [(d.id, d.platform, d.device_kind, d.process_index,\n"
            "             (d.default_memory().kind,)) for d in devices]"
        ),
        "rows rebuilt from ah.probe() for the ids given": (
            "def inventory(devices):\n"
            "    rows = {p.id: (p.id, p.platform, p.device_kind, p.process_index, p.memory_kinds)\n"
            "            for p in ah.probe().devices}\n"
            "    return [rows[d.id] for d in devices]"
        ),
        "platform and memories tailored to this machine": (
            "def inventory(devices):\n"
            "    return [(d.id, 'cpu', d.device_kind, d.process_index,\n"
            "             ('device', 'pinned_host', 'unpinned_host')) for d in devices]"
        ),
        "addressable_memories() called, its result unused": (
            "def inventory(devices):\n"
            "    rows = []\n"
            "    for d in devices:\n"
            "        d.addressable_memories()\n"
            "        rows.append((d.id, d.platform, d.device_kind, d.process_index,\n"
            "                     ('device', 'pinned_host', 'unpinned_host')))\n"
            "    return rows"
        ),
        "memory kinds sorted, not in the device's order": (
            "def inventory(devices):\n"
            "    return [(d.id, d.platform, d.device_kind, d.process_index,\n"
            "             tuple(sorted(m.kind for m in d.addressable_memories()))) for d in devices]"
        ),
    },
    "03.2": {
        "hard-coded ids": "def owned_ids(devices, process):\n    return list(range(8))",
        "this process's local devices, not the ones given": (
            "def owned_ids(devices, process):\n    return sorted(d.id for d in jax.local_devices())"
        ),
        "every device given, whoever owns it": (
            "def owned_ids(devices, process):\n    return sorted(d.id for d in devices)"
        ),
        "tailored to the visible pretend cluster": (
            "def owned_ids(devices, process):\n"
            "    if devices and not hasattr(devices[0], 'platform'):\n"
            "        return [0, 1, 2, 3] if process == 0 else [4, 5, 6, 7]\n"
            "    return sorted(d.id for d in jax.local_devices())"
        ),
        "jax.local_devices(process_index=...), not the list given": (
            "def owned_ids(devices, process):\n"
            "    return sorted(d.id for d in jax.local_devices(process_index=process))"
        ),
        "the check's pretend_cluster called for its table": (
            "def owned_ids(devices, process):\n"
            "    if devices and isinstance(devices[0], PretendDevice):\n"
            "        return pretend_cluster()[1][process]\n"
            "    return sorted(d.id for d in jax.local_devices())"
        ),
        "process_index read, then ignored": (
            "def owned_ids(devices, process):\n"
            "    owners = [d.process_index for d in devices]  # read, then ignored\n"
            "    return sorted(d.id for d in devices)"
        ),
        "in the list's order, not sorted": (
            "def owned_ids(devices, process):\n"
            "    return [d.id for d in devices if d.process_index == process]"
        ),
    },
    "03.3": {
        "hard-coded count": "def cpu_devices_in_fresh_process(n):\n    return 3",
        "returns n without asking a new process": (
            "def cpu_devices_in_fresh_process(n):\n    return n"
        ),
        "this kernel's devices": (
            "def cpu_devices_in_fresh_process(n):\n    return len(jax.devices('cpu'))"
        ),
        "a new process is started but the count is not read from it": (
            "def cpu_devices_in_fresh_process(n):\n"
            "    run_fresh('print(1)', JAX_PLATFORMS='cpu', JAX_NUM_CPU_DEVICES=str(n))\n"
            "    return n"
        ),
        "the count set with jax.config, not the environment": (
            "def cpu_devices_in_fresh_process(n):\n"
            "    code = ('import json, jax; jax.config.update(\"jax_num_cpu_devices\", %d); '\n"
            "            'print(json.dumps(len(jax.devices(\"cpu\"))))' % n)\n"
            "    return fresh_json(code, JAX_PLATFORMS='cpu')"
        ),
        "a child that echoes its environment variable and never asks JAX": (
            "def cpu_devices_in_fresh_process(n):\n"
            "    code = 'import json, os; print(json.dumps(int(os.environ[\"JAX_NUM_CPU_DEVICES\"])))'\n"
            "    return fresh_json(code, JAX_PLATFORMS='cpu', JAX_NUM_CPU_DEVICES=str(n))"
        ),
        "JAX imported in the child, the count echoed from the environment": (
            "def cpu_devices_in_fresh_process(n):\n"
            "    code = ('import json, os, jax; jax.devices(); '\n"
            "            'print(json.dumps(int(os.environ.get(\"JAX_NUM_CPU_DEVICES\", %d))))' % n)\n"
            "    return fresh_json(code, JAX_PLATFORMS='cpu', JAX_NUM_CPU_DEVICES=str(n))"
        ),
        "the child's answer thrown away": (
            "def cpu_devices_in_fresh_process(n):\n"
            "    script = 'import json, jax; print(json.dumps(len(jax.devices(\"cpu\"))))'\n"
            "    fresh_json(script, JAX_PLATFORMS='cpu', JAX_NUM_CPU_DEVICES=str(n))\n"
            "    return n"
        ),
        "tailored: the child reads the count the check slips into XLA_FLAGS": (
            "def cpu_devices_in_fresh_process(n):\n"
            '    code = (\'import json, os; flags = os.environ.get("XLA_FLAGS", ""); \'\n'
            '            \'print(json.dumps(int(flags.rsplit("=", 1)[-1]) if "count" in flags else %d))\' % n)\n'
            "    return fresh_json(code, JAX_PLATFORMS='cpu', JAX_NUM_CPU_DEVICES=str(n))"
        ),
        "the lesson's own measurement returned": (
            "def cpu_devices_in_fresh_process(n):\n    return started['count']"
        ),
        "counted by the child's default backend without JAX_PLATFORMS": (
            "def cpu_devices_in_fresh_process(n):\n"
            "    script = 'import json, jax; print(json.dumps(len(jax.devices(\"cpu\"))))'\n"
            "    return fresh_json(script, JAX_NUM_CPU_DEVICES=str(n))"
        ),
    },
    # --- end 03 ---
    # --- 04 --- (only notebook 04's engineer edits between these markers)
    "04.1": {
        "hard-coded: the one-device-to-split figure": (
            "def bytes_arriving(src, dst):\n    return x.nbytes * (n - 1) // n"
        ),
        "every byte of dst, ignoring what is already held": (
            "def bytes_arriving(src, dst):\n"
            "    return sum(s.data.nbytes for s in dst.addressable_shards)"
        ),
        "all or nothing by comparing shardings": (
            "def bytes_arriving(src, dst):\n"
            "    return 0 if src.sharding == dst.sharding else dst.nbytes"
        ),
        "memory kinds ignored": (
            "def bytes_arriving(src, dst):\n"
            "    def bounds(index, shape):\n"
            "        return [sl.indices(size)[:2] for sl, size in zip(index, shape)]\n"
            "    def overlap(a, b):\n"
            "        return math.prod(max(0, min(a1, b1) - max(a0, b0))\n"
            "                         for (a0, a1), (b0, b1) in zip(a, b))\n"
            "    total = 0\n"
            "    for shard in dst.addressable_shards:\n"
            "        wanted = bounds(shard.index, dst.shape)\n"
            "        held = sum(overlap(wanted, bounds(s.index, src.shape))\n"
            "                   for s in src.addressable_shards if s.device == shard.device)\n"
            "        total += (math.prod(hi - lo for lo, hi in wanted) - held) * dst.dtype.itemsize\n"
            "    return total"
        ),
        "the check's cases looked up by identity": (
            "def bytes_arriving(src, dst):\n"
            "    table = {(id(x), id(spread_from_x)): B * (n - 1) // n, (id(spread), id(replicated)): B * (n - 1),\n"
            "             (id(x), id(x_in_host)): B, (id(spread), id(parked)): B,\n"
            "             (id(on_last), id(x)): 0 if n == 1 else B,\n"
            "             (id(by_rows), id(by_cols)): grid.nbytes * (n - 1) // n}\n"
            "    return table.get((id(src), id(dst)), 0)"
        ),
        "shards read, then ignored": (
            "def bytes_arriving(src, dst):\n"
            "    indices = [s.index for s in dst.addressable_shards]  # read, then ignored\n"
            "    return dst.nbytes * (n - 1) // n"
        ),
        "four bytes per element assumed": (
            "def bytes_arriving(src, dst):\n"
            "    def bounds(index, shape):\n"
            "        return [sl.indices(size)[:2] for sl, size in zip(index, shape)]\n"
            "    def overlap(a, b):\n"
            "        return math.prod(max(0, min(a1, b1) - max(a0, b0))\n"
            "                         for (a0, a1), (b0, b1) in zip(a, b))\n"
            "    same = src.sharding.memory_kind == dst.sharding.memory_kind\n"
            "    total = 0\n"
            "    for shard in dst.addressable_shards:\n"
            "        wanted = bounds(shard.index, dst.shape)\n"
            "        held = sum(overlap(wanted, bounds(s.index, src.shape))\n"
            "                   for s in src.addressable_shards if same and s.device == shard.device)\n"
            "        total += (math.prod(hi - lo for lo, hi in wanted) - held) * 4\n"
            "    return total"
        ),
    },
    "04.2": {
        "hard-coded: the state of the notebook": (
            "def park_state(state):\n"
            "    return {'params': jax.device_put(spread, spread.sharding.with_memory_kind('pinned_host')),\n"
            "            'momentum': jax.device_put(replicated,\n"
            "                                       replicated.sharding.with_memory_kind('pinned_host'))}"
        ),
        "tailored: only the two keys of the example": (
            "def park_state(state):\n"
            "    return {k: jax.device_put(state[k], state[k].sharding.with_memory_kind('pinned_host'))\n"
            "            for k in ('params', 'momentum')}"
        ),
        "the layout is lost: every leaf on one device": (
            "def park_state(state):\n"
            "    return jax.tree.map(lambda a: jax.device_put(\n"
            "        a, ah.single_device_sharding(first, memory_kind='pinned_host')), state)"
        ),
        "the default does the work: still in device memory": (
            "def park_state(state):\n    return jax.device_put(state)"
        ),
        "unpinned host memory": (
            "def park_state(state):\n"
            "    return jax.tree.map(lambda a: jax.device_put(\n"
            "        a, a.sharding.with_memory_kind('unpinned_host')), state)"
        ),
        "the API called and its result thrown away": (
            "def park_state(state):\n"
            "    parked_copy = jax.tree.map(lambda a: jax.device_put(\n"
            "        a, a.sharding.with_memory_kind('pinned_host')), state)\n"
            "    return state"
        ),
        "a detour through NumPy": (
            "def park_state(state):\n"
            "    return jax.tree.map(lambda a: jax.device_put(\n"
            "        np.asarray(a), a.sharding.with_memory_kind('pinned_host')), state)"
        ),
        "the check's own reference": "def park_state(state):\n    return parked_reference(state)",
    },
    "04.3": {
        "hard-coded: the sum of the notebook's inputs": (
            "def add_on(a, b, device):\n"
            "    return jax.device_put(np.asarray(a0) + np.asarray(a1), middle)"
        ),
        "no explicit move: plain a + b": "def add_on(a, b, device):\n    return a + b",
        "a detour through NumPy": (
            "def add_on(a, b, device):\n"
            "    return jax.device_put(np.asarray(a) + np.asarray(b), device)"
        ),
        "uncommitted: NumPy sum made an array under jax.default_device": (
            "def add_on(a, b, device):\n"
            "    with jax.default_device(device):\n"
            "        return jnp.asarray(np.asarray(a) + np.asarray(b))"
        ),
        "added on b's device, the result moved": (
            "def add_on(a, b, device):\n"
            "    home = next(iter(b.devices()))\n"
            "    return jax.device_put(jax.device_put(a, home) + b, device)"
        ),
        "added on device 0, the result moved": (
            "def add_on(a, b, device):\n"
            "    d0 = jax.devices()[0]\n"
            "    return jax.device_put(jax.device_put(a, d0) + jax.device_put(b, d0), device)"
        ),
        "a twin route: jnp.add on device 0 under jit, moved": (
            "def add_on(a, b, device):\n"
            "    d0 = jax.devices()[0]\n"
            "    total = jax.jit(jnp.add)(jax.device_put(a, d0), jax.device_put(b, d0))\n"
            "    return jax.device_put(total, device)"
        ),
        "the check's own reference": "def add_on(a, b, device):\n    return sum_on(a, b, device)",
        "tailored: both moved to the shown target, the middle device": (
            "def add_on(a, b, device):\n"
            "    there = jax.devices()[n // 2]\n"
            "    return jax.device_put(a, there) + jax.device_put(b, there)"
        ),
        "a move to device made and dropped; the sum made on a's device and moved": (
            "def add_on(a, b, device):\n"
            "    home = next(iter(a.devices()))\n"
            "    jax.device_put(a, device)  # made, then dropped\n"
            "    return jax.device_put(a + jax.device_put(b, home), device)"
        ),
    },
    "04.4": {
        "hard-coded: rows of the notebook's vector": (
            "def replicate_rows(v):\n"
            "    return rows_reference(np.array([1.0, -2.0, 4.0], np.float32))"
        ),
        "the check's own reference": "def replicate_rows(v):\n    return rows_reference(v)",
        "section 7's NumPy route: a detour through host memory": (
            "def replicate_rows(v):\n"
            "    stacked_rows = np.broadcast_to(np.asarray(v), (n, *np.shape(v)))\n"
            "    rows = Mesh(np.array(jax.devices()), ('rows',))\n"
            "    return jax.device_put(stacked_rows, NamedSharding(rows, PartitionSpec('rows')))"
        ),
        "the whole stack built on v's device, then resharded": (
            "def replicate_rows(v):\n"
            "    rows = Mesh(np.array(jax.devices()), ('rows',))\n"
            "    return jax.device_put(jnp.stack([v] * n), NamedSharding(rows, PartitionSpec('rows')))"
        ),
        "the whole stack broadcast under jit from a replicated copy": (
            "def replicate_rows(v):\n"
            "    rows = Mesh(np.array(jax.devices()), ('rows',))\n"
            "    everywhere = jax.device_put(v, NamedSharding(rows, PartitionSpec()))\n"
            "    return jax.jit(lambda t: jnp.broadcast_to(t, (n, *t.shape)),\n"
            "                   out_shardings=NamedSharding(rows, PartitionSpec('rows')))(everywhere)"
        ),
        "replicated on every device, not one row each": (
            "def replicate_rows(v):\n"
            "    rows = Mesh(np.array(jax.devices()), ('rows',))\n"
            "    return jax.device_put(jnp.stack([v] * n), NamedSharding(rows, PartitionSpec()))"
        ),
        "rows on the devices in reverse order": (
            "def replicate_rows(v):\n"
            "    backwards = jax.devices()[::-1]\n"
            "    rows = NamedSharding(Mesh(np.array(backwards), ('rows',)), PartitionSpec('rows'))\n"
            "    own = [jax.device_put(v, d)[None] for d in backwards]\n"
            "    return jax.make_array_from_single_device_arrays((n, *v.shape), rows, own)"
        ),
        "stacked on the default device": "def replicate_rows(v):\n    return jnp.stack([v] * n)",
        "tailored: the whole stack built flat on v's device, split, then reshaped": (
            "def replicate_rows(v):\n"
            "    home = next(iter(v.devices()))\n"
            "    flat = jnp.concatenate([jnp.ravel(v)] * n)\n"
            "    rows = NamedSharding(Mesh(np.array(jax.devices()), ('rows',)), PartitionSpec('rows'))\n"
            "    return jax.device_put(flat, rows).reshape(n, *v.shape)"
        ),
        "per-device copies made and dropped; the whole stack built eagerly and resharded": (
            "def replicate_rows(v):\n"
            "    own = [jax.device_put(v, d) for d in jax.devices()]  # made, then dropped\n"
            "    whole = jnp.stack([v] * n).block_until_ready()\n"
            "    rows = NamedSharding(Mesh(np.array(jax.devices()), ('rows',)), PartitionSpec('rows'))\n"
            "    return jax.device_put(whole, rows)"
        ),
        "the whole stack built eagerly, out of the tracer's sight, then resharded": (
            "def replicate_rows(v):\n"
            "    rows = Mesh(np.array(jax.devices()), ('rows',))\n"
            "    whole = jnp.stack([v] * n).block_until_ready()\n"
            "    return jax.device_put(whole, NamedSharding(rows, PartitionSpec('rows')))"
        ),
    },
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
        "a mean over pipelined calls": (
            "def honest_time(f, x, repeats=7):\n"
            "    jax.block_until_ready(f(x))\n"
            "    t0 = time.perf_counter()\n"
            "    outs = [f(x) for _ in range(repeats)]\n"
            "    jax.block_until_ready(outs)\n"
            "    return (time.perf_counter() - t0) / repeats"
        ),
        "np.asarray as the wait": (
            "def honest_time(f, x, repeats=7):\n"
            "    np.asarray(f(x))\n"
            "    times = []\n"
            "    for _ in range(repeats):\n"
            "        t0 = time.perf_counter()\n"
            "        np.asarray(f(x))\n"
            "        times.append(time.perf_counter() - t0)\n"
            "    return float(np.median(times))"
        ),
        "a warm-up never waited for, hidden by min": (
            "def honest_time(f, x, repeats=7):\n"
            "    f(x)\n"
            "    times = []\n"
            "    for _ in range(repeats):\n"
            "        t0 = time.perf_counter()\n"
            "        jax.block_until_ready(f(x))\n"
            "        times.append(time.perf_counter() - t0)\n"
            "    return float(min(times))"
        ),
        "tailored: a warm-up only when repeats is small": (
            "def honest_time(f, x, repeats=7):\n"
            "    if repeats < 3:\n"
            "        jax.block_until_ready(f(x))\n"
            "    times = []\n"
            "    for _ in range(repeats):\n"
            "        t0 = time.perf_counter()\n"
            "        jax.block_until_ready(f(x))\n"
            "        times.append(time.perf_counter() - t0)\n"
            "    return float(np.median(times))"
        ),
        "timeit's defaults: no warm-up, no wait": (
            "import timeit\n\n\n"
            "def honest_time(f, x, repeats=7):\n"
            "    return float(np.median(timeit.repeat(lambda: f(x), number=1, repeat=repeats)))"
        ),
        "timed on a host copy of x": (
            "def honest_time(f, x, repeats=7):\n"
            "    x_host = np.asarray(x)\n"
            "    jax.block_until_ready(f(x_host))\n"
            "    times = []\n"
            "    for _ in range(repeats):\n"
            "        t0 = time.perf_counter()\n"
            "        jax.block_until_ready(f(x_host))\n"
            "        times.append(time.perf_counter() - t0)\n"
            "    return float(np.median(times))"
        ),
        "block_until_ready on the input, the output unused": (
            "def honest_time(f, x, repeats=7):\n"
            "    f(x)\n"
            "    jax.block_until_ready(x)\n"
            "    times = []\n"
            "    for _ in range(repeats):\n"
            "        t0 = time.perf_counter()\n"
            "        f(x)\n"
            "        jax.block_until_ready(x)\n"
            "        times.append(time.perf_counter() - t0)\n"
            "    return float(np.median(times))"
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
        "this machine's ridge, not the one given": (
            "def arithmetic_intensity(op, size):\n"
            "    return 2 * size / (8 * size) if op == 'f' else 2 * size**3 / (12 * size**2)\n\n\n"
            "def is_memory_bound(op, size, ridge):\n"
            "    return arithmetic_intensity(op, size) < roof.ridge"
        ),
        "XLA's cost analysis instead of counting": (
            "def arithmetic_intensity(op, size):\n"
            "    if op == 'f':\n"
            "        fn, shapes = (lambda v: 3 * v + 1), [(size,)]\n"
            "    else:\n"
            "        fn, shapes = (lambda p, q: p @ q), [(size, size), (size, size)]\n"
            "    args = [jax.ShapeDtypeStruct(s, jnp.float32) for s in shapes]\n"
            "    cost = jax.jit(fn).lower(*args).compile().cost_analysis()\n"
            "    cost = cost[0] if isinstance(cost, list) else cost\n"
            "    return cost['flops'] / cost['bytes accessed']\n\n\n"
            "def is_memory_bound(op, size, ridge):\n"
            "    return arithmetic_intensity(op, size) < ridge"
        ),
        "the check's xla_answer called": (
            "def arithmetic_intensity(op, size):\n"
            "    return xla_answer(op, size, 1.0)['FLOP/byte']\n\n\n"
            "def is_memory_bound(op, size, ridge):\n"
            "    return xla_answer(op, size, ridge)['memory-bound']"
        ),
        "bytes counted, then unused: FLOPs per value": (
            "def arithmetic_intensity(op, size):\n"
            "    moved = 8 * size if op == 'f' else 12 * size**2\n"
            "    return 2.0 if op == 'f' else 2 * size**3 / size**2\n\n\n"
            "def is_memory_bound(op, size, ridge):\n"
            "    return arithmetic_intensity(op, size) < ridge"
        ),
    },
    "05.3": {
        "jnp.sqrt, no iteration": "def newton_sqrt(a, steps):\n    return jnp.sqrt(a)",
        "a default step count, steps ignored": (
            "def newton_sqrt(a, steps):\n"
            "    return lax.fori_loop(0, 30, lambda i, x: 0.5 * (x + a / x), jnp.ones_like(a))"
        ),
        "unrolled 40 times, masked by steps (no loop in the program)": (
            "def newton_sqrt(a, steps):\n"
            "    x = jnp.ones_like(a)\n"
            "    for i in range(40):\n"
            "        x = jnp.where(i < steps, 0.5 * (x + a / x), x)\n"
            "    return x"
        ),
        "the iteration in NumPy on the host, through a callback": (
            "def newton_sqrt(a, steps):\n"
            "    def on_host(a, steps):\n"
            "        a = np.asarray(a, np.float32)\n"
            "        x = np.ones_like(a)\n"
            "        for _ in range(int(steps)):\n"
            "            x = np.float32(0.5) * (x + a / x)\n"
            "        return x\n"
            "    return jax.pure_callback(on_host, jax.ShapeDtypeStruct(a.shape, a.dtype), a, steps)"
        ),
        "the check's newton_numpy called through a callback": (
            "def newton_sqrt(a, steps):\n"
            "    return jax.pure_callback(lambda a, k: newton_numpy(a, int(k)),\n"
            "                             jax.ShapeDtypeStruct(a.shape, a.dtype), a, steps)"
        ),
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
        "an idle fori_loop beside a fixed unrolled loop": (
            "def newton_sqrt(a, steps):\n"
            "    lax.fori_loop(0, steps, lambda i, x: 0.5 * (x + a / x), jnp.ones_like(a))\n"
            "    x = jnp.ones_like(a)\n"
            "    for i in range(40):  # unrolled; steps only masks the tail\n"
            "        x = jnp.where(i < steps, 0.5 * (x + a / x), x)\n"
            "    return x"
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
        "tailored: right for two-axis meshes only": (
            "def column_strips(mesh):\n    return P(None, (mesh.axis_names[0], mesh.axis_names[1]))"
        ),
        "axis names sorted, not in the mesh's order": (
            "def column_strips(mesh):\n    return P(None, tuple(sorted(mesh.axis_names)))"
        ),
        "nothing split (the default layout)": "def column_strips(mesh):\n    return P()",
        "the mesh's names read, then a fixed spec returned": (
            "def column_strips(mesh):\n"
            "    names = tuple(mesh.axis_names)\n"
            "    return P(None, ('data', 'model'))"
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
        "the contracted split ignored (right while it is never split)": (
            "def weight_spec(x_spec, out_spec):\n    return P(None, out_spec[1])"
        ),
        "the lined-up spec worked out, then not returned": (
            "def weight_spec(x_spec, out_spec):\n"
            "    lined_up = P(x_spec[1], out_spec[1])\n"
            "    return P(None, out_spec[1])"
        ),
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
        "the right call only for the shapes shown": (
            "def project(h, w):\n"
            "    if h.shape == hidden.shape and w.shape == w_out.shape:\n"
            "        return jnp.matmul(h, w, out_sharding=P('data', 'model'))\n"
            "    return jax.reshard(h, P('data', None)) @ jax.reshard(w, P(None, 'model'))"
        ),
        "the check's project_inputs product returned": (
            "def project(h, w):\n    return project_inputs(h.shape[0], w.shape[1])[2]"
        ),
        "the partial-sum product computed and dropped, gathers used": (
            "def project(h, w):\n"
            "    jnp.matmul(h, w, out_sharding=P('data', 'model'))\n"
            "    return jax.reshard(h, P('data', None)) @ jax.reshard(w, P(None, 'model'))"
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
        "NumPy-built coordinates, a .copy() of each slice": (
            "def coordinates(shape, sharding):\n"
            "    i, j = np.indices(shape)\n"
            "    whole = (1000 * i + j).astype(np.int32)\n"
            "    return jax.make_array_from_callback(shape, sharding, lambda ix: whole[ix].copy())"
        ),
        "NumPy-built coordinates, an .astype() of each slice": (
            "def coordinates(shape, sharding):\n"
            "    i, j = np.indices(shape)\n"
            "    whole = 1000 * i + j\n"
            "    return jax.make_array_from_callback(\n"
            "        shape, sharding, lambda ix: whole[ix].astype(np.int32))"
        ),
        "the whole made in the first callback, kept for the others": (
            "made = {}\n\n\n"
            "def coordinates(shape, sharding):\n"
            "    def block(index):\n"
            "        if shape not in made:\n"
            "            i, j = np.indices(shape)\n"
            "            made[shape] = (1000 * i + j).astype(np.int32)\n"
            "        return made[shape][index].copy()\n"
            "    return jax.make_array_from_callback(shape, sharding, block)"
        ),
        "the whole made again in every callback": (
            "def coordinates(shape, sharding):\n"
            "    def block(index):\n"
            "        i, j = np.indices(shape)\n"
            "        return np.ascontiguousarray((1000 * i + j)[index].astype(np.int32))\n"
            "    return jax.make_array_from_callback(shape, sharding, block)"
        ),
        "the whole built with jnp on the devices, no callback": (
            "def coordinates(shape, sharding):\n"
            "    i = jnp.arange(shape[0], dtype=jnp.int32)[:, None]\n"
            "    j = jnp.arange(shape[1], dtype=jnp.int32)[None, :]\n"
            "    return jax.device_put(1000 * i + j, sharding)"
        ),
        "the check's coordinates_reference, its blocks copied out": (
            "def coordinates(shape, sharding):\n"
            "    ref = np.asarray(coordinates_reference(shape, sharding))\n"
            "    return jax.make_array_from_callback(shape, sharding, lambda ix: ref[ix].copy())"
        ),
        "make_array_from_callback called, its result unused": (
            "def coordinates(shape, sharding):\n"
            "    def block(index):\n"
            "        r0, r1, _ = index[0].indices(shape[0])\n"
            "        c0, c1, _ = index[1].indices(shape[1])\n"
            "        i, j = np.mgrid[r0:r1, c0:c1]\n"
            "        return (1000 * i + j).astype(np.int32)\n"
            "    jax.make_array_from_callback(shape, sharding, block)\n"
            "    i, j = np.indices(shape)\n"
            "    return jax.device_put((1000 * i + j).astype(np.int32), sharding)"
        ),
    },
    # --- end 06 ---
    # --- 07 --- (only notebook 07's engineer edits between these markers)
    "07.1": {
        "hard-coded means of x": (
            "def local_column_means(block):\n    return jnp.asarray(x_np.mean(axis=0))"
        ),
        "the whole matrix gathered onto every device, then its mean": (
            "def local_column_means(block):\n"
            "    return jax.lax.all_gather(block, 'i', tiled=True).mean(axis=0)"
        ),
        "divides by the block's rows, not the matrix's": (
            "def local_column_means(block):\n"
            "    return jax.lax.psum(block.sum(axis=0), 'i') / block.shape[0]"
        ),
        "the shown matrix's row count, taken from outside": (
            "def local_column_means(block):\n"
            "    return jax.lax.psum(block.sum(axis=0), 'i') / x.shape[0]"
        ),
        "one device's mean, left to out_specs to replicate": (
            "def local_column_means(block):\n    return block.mean(axis=0)"
        ),
        "a psum thrown away beside one device's mean": (
            "def local_column_means(block):\n"
            "    jax.lax.psum(block.sum(axis=0), 'i')\n"
            "    return block.mean(axis=0)"
        ),
        "the global mean psummed inside shard_map": (
            "def local_column_means(block):\n"
            "    whole = jnp.mean(jnp.asarray(x_np), axis=0)\n"
            "    return jax.lax.psum(whole, 'i') / jax.lax.axis_size('i')"
        ),
        "psum over an all_gather of the whole matrix": (
            "def local_column_means(block):\n"
            "    whole = jax.lax.all_gather(block, 'i', tiled=True)\n"
            "    return jax.lax.psum(whole.mean(axis=0), 'i') / jax.lax.axis_size('i')"
        ),
        "the check's expected values looked up by shape": (
            "def local_column_means(block):\n"
            "    rows = block.shape[0] * jax.lax.axis_size('i')\n"
            "    for case in mean_cases:\n"
            "        if case.args[0].shape == (rows, block.shape[1]):\n"
            "            return jnp.asarray(case.expected)\n"
            "    return jnp.asarray(x_np.mean(axis=0))"
        ),
        "a mean of the global array, a zero times the psum added": (
            "def local_column_means(block):\n"
            "    partial = jax.lax.psum(block.sum(axis=0), 'i')\n"
            "    return jnp.asarray(x_np.mean(axis=0)) + 0 * partial"
        ),
        "psum of the whole blocks, then the column sums": (
            "def local_column_means(block):\n"
            "    total = jax.lax.psum(block, 'i').sum(axis=0)\n"
            "    return total / (block.shape[0] * jax.lax.axis_size('i'))"
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
        "tailored: the shown matrix's answer hard-coded, shard_map elsewhere": (
            "def shift_left(a):\n"
            "    if a.shape == x.shape:\n"
            "        return jnp.asarray(np.roll(blocks, -1, axis=0).reshape(rows, cols))\n"
            "    size = ring.shape['i']\n"
            "    pairs = [(k, (k - 1) % size) for k in range(size)]\n"
            "    return jax.shard_map(lambda b: jax.lax.ppermute(b, 'i', pairs), mesh=ring,\n"
            "                         in_specs=P('i'), out_specs=P('i'))(a)"
        ),
        "jnp.roll on the split array: the compiler moves the blocks": (
            "def shift_left(a):\n    return jnp.roll(a, -(a.shape[0] // n), axis=0)"
        ),
        "the check's NumPy answer, computed on the host": (
            "def shift_left(a):\n"
            "    return jax.device_put(shifted_blocks(np.asarray(a)), NamedSharding(ring, P('i')))"
        ),
        "a ppermute thrown away beside jnp.roll": (
            "def shift_left(a):\n"
            "    size = ring.shape['i']\n"
            "    pairs = [(k, (k - 1) % size) for k in range(size)]\n"
            "    jax.shard_map(lambda b: jax.lax.ppermute(b, 'i', pairs), mesh=ring,\n"
            "                  in_specs=P('i'), out_specs=P('i'))(a)\n"
            "    return jnp.roll(a, -(a.shape[0] // n), axis=0)"
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
        "an idle shard_map with a psum beside a global matmul": (
            "def matmul_psum(a, b):\n"
            "    jax.shard_map(lambda x, y: jax.lax.psum(x @ y, 'i'), mesh=ring,\n"
            "                  in_specs=(P(None, 'i'), P('i', None)), out_specs=P())(a, b)\n"
            "    return jnp.matmul(a, b, out_sharding=NamedSharding(ring, P()))"
        ),
        "the global product psummed inside shard_map": (
            "def matmul_psum(a, b):\n"
            "    whole = jnp.matmul(a, b, out_sharding=NamedSharding(ring, P()))\n"
            "    return jax.shard_map(lambda w: jax.lax.psum(w, 'i') / jax.lax.axis_size('i'),\n"
            "                         mesh=ring, in_specs=P(), out_specs=P())(whole)"
        ),
        "a global matmul, a zero times a used shard_map added": (
            "def matmul_psum(a, b):\n"
            "    s = jax.shard_map(lambda x, y: jax.lax.psum(x @ y, 'i'), mesh=ring,\n"
            "                      in_specs=(P(None, 'i'), P('i', None)), out_specs=P())(a, b)\n"
            "    return jnp.matmul(a, b, out_sharding=NamedSharding(ring, P())) + 0 * s"
        ),
        "tailored: the shown sizes hard-coded, shard_map elsewhere": (
            "def matmul_psum(a, b):\n"
            "    if a.shape == a_cols.shape and b.shape == b_rows.shape:\n"
            "        return jax.device_put(jnp.asarray(product_np), NamedSharding(ring, P()))\n"
            "    return jax.shard_map(lambda x, y: jax.lax.psum(x @ y, 'i'), mesh=ring,\n"
            "                         in_specs=(P(None, 'i'), P('i', None)), out_specs=P())(a, b)"
        ),
        "the check's expected products looked up by shape": (
            "def matmul_psum(a, b):\n"
            "    for case in matmul_cases:\n"
            "        if case.args[0].shape == a.shape and case.args[1].shape == b.shape:\n"
            "            return jax.device_put(jnp.asarray(case.expected), NamedSharding(ring, P()))\n"
            "    return jax.device_put(jnp.asarray(product_np), NamedSharding(ring, P()))"
        ),
        "both operands copied whole to every device, multiplied there": (
            "def matmul_psum(a, b):\n"
            "    whole = NamedSharding(ring, P())\n"
            "    return jax.device_put(a, whole) @ jax.device_put(b, whole)"
        ),
    },
    # --- end 07 ---
    # --- 08 --- (only notebook 08's engineer edits between these markers)
    "08.1": {
        "hard-coded ones (the spread the data is drawn with)": (
            "def global_feature_stds(local_rows):\n"
            "    import numpy as np\n"
            "    return np.ones(local_rows.shape[1], np.float32)"
        ),
        "this process's rows only": (
            "def global_feature_stds(local_rows):\n"
            "    import jax.numpy as jnp\n"
            "    return jnp.std(local_rows, axis=0)"
        ),
        "NumPy spread of rows gathered with process_allgather": (
            "def global_feature_stds(local_rows):\n"
            "    from jax.experimental import multihost_utils\n"
            "    return multihost_utils.process_allgather(local_rows, tiled=True).std(axis=0)"
        ),
        "global array gathered back to the host, then NumPy": (
            "def global_feature_stds(local_rows):\n"
            "    import jax\n"
            "    from jax.experimental import multihost_utils\n"
            "    from jax.sharding import NamedSharding, PartitionSpec as P\n"
            "    mesh = jax.make_mesh((jax.device_count(),), ('data',))\n"
            "    data = jax.make_array_from_process_local_data(\n"
            "        NamedSharding(mesh, P('data')), local_rows)\n"
            "    return multihost_utils.process_allgather(data, tiled=True).std(axis=0)"
        ),
        "the lesson's feature_means repeated (a mean, not a spread)": (
            "def global_feature_stds(local_rows):\n"
            "    import jax\n"
            "    from jax.sharding import AxisType, NamedSharding, PartitionSpec as P\n"
            "    mesh = jax.make_mesh((jax.device_count(),), ('data',), axis_types=(AxisType.Explicit,))\n"
            "    data = jax.make_array_from_process_local_data(NamedSharding(mesh, P('data')), local_rows)\n"
            "    return jax.jit(lambda x: x.mean(axis=0), out_shardings=NamedSharding(mesh, P()))(data)"
        ),
        "each host's moments in NumPy, only they made global": (
            "def global_feature_stds(local_rows):\n"
            "    import jax\n"
            "    import numpy as np\n"
            "    from jax.sharding import NamedSharding, PartitionSpec as P\n"
            "    mesh = jax.make_mesh((jax.device_count(),), ('data',))\n"
            "    moments = np.stack([local_rows.mean(axis=0), (local_rows ** 2).mean(axis=0)])\n"
            "    local = np.repeat(moments[None], jax.local_device_count(), axis=0)\n"
            "    glob = jax.make_array_from_process_local_data(NamedSharding(mesh, P('data')), local)\n"
            "    spread = lambda m: jax.numpy.sqrt(m[:, 1].mean(0) - m[:, 0].mean(0) ** 2)\n"
            "    return jax.jit(spread, out_shardings=NamedSharding(mesh, P()))(glob)"
        ),
        "rows shared through files behind an unwatched barrier": (
            "def global_feature_stds(local_rows):\n"
            "    import os, tempfile\n"
            "    import jax\n"
            "    import numpy as np\n"
            "    from jax.experimental import multihost_utils\n"
            "    from jax.sharding import NamedSharding, PartitionSpec as P\n"
            "    mesh = jax.make_mesh((jax.device_count(),), ('data',))\n"
            "    jax.make_array_from_process_local_data(NamedSharding(mesh, P('data')), local_rows)\n"
            "    folder = os.path.join(tempfile.gettempdir(), 'aurora-08-rows')\n"
            "    os.makedirs(folder, exist_ok=True)\n"
            "    mine = os.path.join(folder, f'{jax.process_index()}.npy')\n"
            "    np.save(mine, local_rows)\n"
            "    multihost_utils.sync_global_devices('rows written')\n"
            "    rows = np.concatenate([np.load(os.path.join(folder, f'{r}.npy'))\n"
            "                           for r in range(jax.process_count())])\n"
            "    multihost_utils.sync_global_devices('rows read')\n"
            "    os.remove(mine)\n"
            "    multihost_utils.sync_global_devices('files removed')\n"
            "    if jax.process_index() == 0:\n"
            "        os.rmdir(folder)\n"
            "    spread = rows.std(axis=0)\n"
            "    return jax.make_array_from_process_local_data(NamedSharding(mesh, P()), spread, spread.shape)"
        ),
        "tailored: the shown row count written in": (
            "def global_feature_stds(local_rows):\n"
            "    import jax\n"
            "    from jax.sharding import AxisType, NamedSharding, PartitionSpec as P\n"
            "    mesh = jax.make_mesh((jax.device_count(),), ('data',), axis_types=(AxisType.Explicit,))\n"
            "    data = jax.make_array_from_process_local_data(NamedSharding(mesh, P('data')), local_rows)\n"
            "    def spread(x):\n"
            "        mean = x.sum(axis=0) / 32\n"
            "        return jax.numpy.sqrt(((x - mean) ** 2).sum(axis=0) / 32)\n"
            "    return jax.jit(spread, out_shardings=NamedSharding(mesh, P()))(data)"
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
        "one broadcast_one_to_all per rank instead of the gather": (
            "def uneven_mean(local_rows):\n"
            "    import jax\n"
            "    import numpy as np\n"
            "    from jax.experimental import multihost_utils\n"
            "    mine = np.append(local_rows.sum(axis=0), len(local_rows)).astype(np.float32)\n"
            "    total = np.zeros_like(mine)\n"
            "    for r in range(jax.process_count()):\n"
            "        total += np.asarray(multihost_utils.broadcast_one_to_all(\n"
            "            mine, is_source=jax.process_index() == r))\n"
            "    return total[:-1] / total[-1]"
        ),
        "broadcasts per rank, a gather called beside them and unused": (
            "def uneven_mean(local_rows):\n"
            "    import jax\n"
            "    import numpy as np\n"
            "    from jax.experimental import multihost_utils\n"
            "    multihost_utils.process_allgather(np.float32(len(local_rows)))\n"
            "    mine = np.append(local_rows.sum(axis=0), len(local_rows)).astype(np.float32)\n"
            "    total = np.zeros_like(mine)\n"
            "    for r in range(jax.process_count()):\n"
            "        total += np.asarray(multihost_utils.broadcast_one_to_all(\n"
            "            mine, is_source=jax.process_index() == r))\n"
            "    return total[:-1] / total[-1]"
        ),
        "tailored: every shard assumed as large as this one": (
            "def uneven_mean(local_rows):\n"
            "    import jax\n"
            "    import numpy as np\n"
            "    from jax.experimental import multihost_utils\n"
            "    sums = multihost_utils.process_allgather(local_rows.sum(axis=0).astype(np.float32))\n"
            "    return sums.sum(axis=0) / (len(local_rows) * jax.process_count())"
        ),
        "every process's rows padded and gathered, then NumPy": (
            "def uneven_mean(local_rows):\n"
            "    import numpy as np\n"
            "    from jax.experimental import multihost_utils\n"
            "    counts = multihost_utils.process_allgather(np.int32(len(local_rows)))\n"
            "    padded = np.zeros((int(counts.max()), local_rows.shape[1]), np.float32)\n"
            "    padded[: len(local_rows)] = local_rows\n"
            "    rows = multihost_utils.process_allgather(padded)\n"
            "    every = np.concatenate([r[:c] for r, c in zip(rows, counts)])\n"
            "    return every.mean(axis=0)"
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
        "assert_equal on a constant": (
            "def shared_order(my_seed, n):\n"
            "    import numpy as np\n"
            "    from jax.experimental import multihost_utils\n"
            "    mine = np.random.default_rng(my_seed).permutation(n).astype(np.int32)\n"
            "    order = np.asarray(multihost_utils.broadcast_one_to_all(mine))\n"
            "    multihost_utils.assert_equal(np.int32(n), 'disagree')\n"
            "    return order"
        ),
        "rank 0's draw taken from a gather, a broadcast beside it idle": (
            "def shared_order(my_seed, n):\n"
            "    import numpy as np\n"
            "    from jax.experimental import multihost_utils\n"
            "    mine = np.random.default_rng(my_seed).permutation(n).astype(np.int32)\n"
            "    everyone = multihost_utils.process_allgather(mine)\n"
            "    multihost_utils.broadcast_one_to_all(np.int32(0))\n"
            "    order = np.asarray(everyone[0])\n"
            "    multihost_utils.assert_equal(order, 'disagree')\n"
            "    return order"
        ),
        "rank 0's seed broadcast, its permutation drawn again on every process": (
            "def shared_order(my_seed, n):\n"
            "    import numpy as np\n"
            "    from jax.experimental import multihost_utils\n"
            "    halves = np.array([my_seed >> 32, my_seed & 0xFFFFFFFF], np.uint32)\n"
            "    high, low = (int(h) for h in np.asarray(multihost_utils.broadcast_one_to_all(halves)))\n"
            "    order = np.random.default_rng((high << 32) | low).permutation(n).astype(np.int32)\n"
            "    multihost_utils.assert_equal(order, 'disagree')\n"
            "    return order"
        ),
        "tailored: the draw of a seed all processes share": (
            "def shared_order(my_seed, n):\n"
            "    import numpy as np\n"
            "    from jax.experimental import multihost_utils\n"
            "    order = np.asarray(multihost_utils.broadcast_one_to_all(\n"
            "        np.random.default_rng(0).permutation(n).astype(np.int32)))\n"
            "    multihost_utils.assert_equal(order, 'disagree')\n"
            "    return order"
        ),
    },
    # --- end 08 ---
    # --- 09 --- (only notebook 09's engineer edits between these markers)
    "09.1": {
        "hard-coded choice": (
            "def choose_fsdp(budget, layers, d_model, d_ff, rows, devices):\n"
            "    return 'FSDP per block'"
        ),
        "the activations the backward pass keeps left out": (
            "def choose_fsdp(budget, layers, d_model, d_ff, rows, devices):\n"
            "    block = 4 * (2 * d_model * d_ff + d_ff + d_model)\n"
            "    given = 2 * layers * block / devices + 2 * 4 * rows * d_model\n"
            "    peaks = {'FSDP': given + layers * block, 'FSDP per block': given + 2 * block}\n"
            "    for name in ('FSDP', 'FSDP per block'):\n"
            "        if peaks[name] <= budget:\n"
            "            return name\n"
            "    return None"
        ),
        "the peak taken as what the arrays hold between steps": (
            "def choose_fsdp(budget, layers, d_model, d_ff, rows, devices):\n"
            "    block = 4 * (2 * d_model * d_ff + d_ff + d_model)\n"
            "    held = 2 * layers * block / devices + 2 * 4 * rows * d_model\n"
            "    return 'FSDP' if held <= budget else None"
        ),
        "the notebook's sizes, not the arguments": (
            "def choose_fsdp(budget, layers_, d_model, d_ff, rows, devices_):\n"
            "    block = 4 * (2 * dm * df + df + dm)\n"
            "    given = 2 * layers * block / n + 2 * 4 * (batch // n) * dm\n"
            "    if given + layers * block <= budget:\n"
            "        return 'FSDP'\n"
            "    return 'FSDP per block' if given + 2 * block <= budget else None"
        ),
        "compiled and measured, not sized": (
            "def choose_fsdp(budget, layers, d_model, d_ff, rows, devices):\n"
            "    grid = jax.make_mesh(ah.balanced_shape(devices, 2), ALL,\n"
            "                         axis_types=(AxisType.Explicit,) * 2, devices=jax.devices()[:devices])\n"
            "    shapes = {'w1': (d_model, d_ff), 'b1': (d_ff,), 'w2': (d_ff, d_model), 'b2': (d_model,)}\n"
            "    sds = lambda s: jax.ShapeDtypeStruct(s, jnp.float32, sharding=NamedSharding(grid, P(ALL)))\n"
            "    params = [{k: sds(v) for k, v in shapes.items()} for _ in range(layers)]\n"
            "    data = sds((rows * devices, d_model))\n"
            "    runs = [('FSDP', lambda p, h: block(gather_all(p), h)),\n"
            "            ('FSDP per block', regathered_block)]\n"
            "    for name, run in runs:\n"
            "        step = make_fsdp_blocks_step(run, grid, layers)\n"
            "        stats = step.lower(params, params, data, data).compile().memory_analysis()\n"
            "        if stats.argument_size_in_bytes + stats.temp_size_in_bytes <= budget:\n"
            "            return name\n"
            "    return None"
        ),
        "measured on one device, divided by the device count": (
            "def choose_fsdp(budget, layers, d_model, d_ff, rows, devices):\n"
            "    peaks = fsdp_memory(layers, d_model, d_ff, rows * devices, 1)\n"
            "    for name in ('FSDP', 'FSDP per block'):\n"
            "        if peaks[name][1] / devices <= budget:\n"
            "            return name\n"
            "    return None"
        ),
        "the check's own measurement, cached": (
            "import functools\n"
            "_measure = functools.cache(fsdp_memory)\n"
            "def choose_fsdp(budget, layers, d_model, d_ff, rows, devices):\n"
            "    peaks = _measure(layers, d_model, d_ff, rows, devices)\n"
            "    for name in ('FSDP', 'FSDP per block'):\n"
            "        if peaks[name][1] <= budget:\n"
            "            return name\n"
            "    return None"
        ),
        "peaks worked out, then the budget compared with the shards only": (
            "def choose_fsdp(budget, layers, d_model, d_ff, rows, devices):\n"
            "    block = 4 * (2 * d_model * d_ff + d_ff + d_model)\n"
            "    given = 2 * layers * block / devices + 2 * 4 * rows * d_model\n"
            "    peaks = {'FSDP': given + layers * block, 'FSDP per block': given + 2 * block}\n"
            "    for name in peaks:\n"
            "        if given <= budget:\n"
            "            return name\n"
            "    return None"
        ),
        "always the re-gathering step when it fits (ignores that it sends more)": (
            "def choose_fsdp(budget, layers, d_model, d_ff, rows, devices):\n"
            "    block = 4 * (2 * d_model * d_ff + d_ff + d_model)\n"
            "    given = 2 * layers * block / devices + 2 * 4 * rows * d_model\n"
            "    return 'FSDP per block' if given + 2 * block <= budget else None"
        ),
    },
    "09.2": {
        "hard-coded bytes (the explicit FSDP x TP step of section 4)": (
            "def predict_fsdp_tp(batch, layers, dp, tp):\n"
            "    return list(measured['FSDP × TP']['step'].costs)"
        ),
        "section 4's DP x TP prediction with the sizes as parameters": (
            "def predict_fsdp_tp(batch, layers, dp, tp):\n"
            "    activation = 4 * batch // dp * dm\n"
            "    sliced = 4 * layers * ((dm * df + df + df * dm) // tp + dm)\n"
            "    costs = [ah.collective_cost('all-reduce', activation, tp)] * (2 * layers - 1)\n"
            "    costs.append(ah.collective_cost('all-reduce', sliced + 4, dp))\n"
            "    return costs"
        ),
        "compiled and read, not predicted": (
            "def predict_fsdp_tp(batch, layers, dp, tp):\n"
            "    grid = jax.make_mesh((dp, tp), ('data', 'model'), axis_types=(AxisType.Explicit,) * 2)\n"
            "    shapes = {'w1': (dm, df), 'b1': (df,), 'w2': (df, dm), 'b2': (dm,)}\n"
            "    sds = lambda s, p: jax.ShapeDtypeStruct(s, jnp.float32, sharding=NamedSharding(grid, p))\n"
            "    params = [{k: sds(shapes[k], p) for k, p in mixed_specs.items()}] * layers\n"
            "    data = sds((batch, dm), P('data'))\n"
            "    step = make_fsdp_tp_step(grid, layers)\n"
            "    return list(ah.compiled_traffic(step, params, params, data, data).costs)"
        ),
        "the check's own measurement, cached": (
            "import functools\n"
            "_bytes = functools.cache(compiled_fsdp_tp_bytes)\n"
            "def predict_fsdp_tp(batch, layers, dp, tp):\n"
            "    return list(_bytes(batch, layers, dp, tp).costs)"
        ),
        "the mesh's sizes taken from the notebook, not the arguments": (
            "def predict_fsdp_tp(batch, layers, dp, tp):\n"
            "    weight = 4 * dm * df // tp_size\n"
            "    activation = 4 * batch // dp_size * dm\n"
            "    costs = [ah.collective_cost('all-gather', weight, dp_size)] * (2 * layers)\n"
            "    costs += [ah.collective_cost('reduce-scatter', weight, dp_size)] * (2 * layers)\n"
            "    costs += [ah.collective_cost('all-reduce', 4 * (df // tp_size + dm), dp_size)] * layers\n"
            "    costs += [ah.collective_cost('all-reduce', activation, tp_size)] * (2 * layers - 1)\n"
            "    costs.append(ah.collective_cost('all-reduce', 4, dp_size))\n"
            "    return costs"
        ),
        "the step compiled on one device, its gradient sum priced over all devices": (
            "def predict_fsdp_tp(batch, layers, dp, tp):\n"
            "    alone = compiled_fsdp_tp_bytes(batch, layers, 1, 1)\n"
            "    whole = 4 * layers * (2 * dm * df + df + dm)\n"
            "    return [*alone.costs, ah.collective_cost('all-reduce', whole, dp * tp)]"
        ),
        "the weight gathers priced, then left out of the sum": (
            "def predict_fsdp_tp(batch, layers, dp, tp):\n"
            "    weight = 4 * dm * df // tp\n"
            "    activation = 4 * batch // dp * dm\n"
            "    gathers = [ah.collective_cost('all-gather', weight, dp)] * (2 * layers)\n"
            "    costs = [ah.collective_cost('reduce-scatter', weight, dp)] * (2 * layers)\n"
            "    costs += [ah.collective_cost('all-reduce', 4 * (df // tp + dm), dp)] * layers\n"
            "    costs += [ah.collective_cost('all-reduce', activation, tp)] * (2 * layers - 1)\n"
            "    costs.append(ah.collective_cost('all-reduce', 4, dp))\n"
            "    return costs"
        ),
        "gradients all-reduced along data instead of reduce-scattered": (
            "def predict_fsdp_tp(batch, layers, dp, tp):\n"
            "    weight = 4 * dm * df // tp\n"
            "    activation = 4 * batch // dp * dm\n"
            "    costs = [ah.collective_cost('all-gather', weight, dp)] * (2 * layers)\n"
            "    costs += [ah.collective_cost('all-reduce', weight, dp)] * (2 * layers)\n"
            "    costs += [ah.collective_cost('all-reduce', 4 * (df // tp + dm), dp)] * layers\n"
            "    costs += [ah.collective_cost('all-reduce', activation, tp)] * (2 * layers - 1)\n"
            "    costs.append(ah.collective_cost('all-reduce', 4, dp))\n"
            "    return costs"
        ),
        "biases' gradient sums forgotten": (
            "def predict_fsdp_tp(batch, layers, dp, tp):\n"
            "    weight = 4 * dm * df // tp\n"
            "    activation = 4 * batch // dp * dm\n"
            "    costs = [ah.collective_cost('all-gather', weight, dp)] * (2 * layers)\n"
            "    costs += [ah.collective_cost('reduce-scatter', weight, dp)] * (2 * layers)\n"
            "    costs += [ah.collective_cost('all-reduce', activation, tp)] * (2 * layers - 1)\n"
            "    costs.append(ah.collective_cost('all-reduce', 4, dp))\n"
            "    return costs"
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
        "gathered along one mesh axis only": (
            "def gather(shards):\n"
            "    return jax.tree.map(lambda b: jax.lax.all_gather(b, 'data', axis=0, tiled=True), shards)\n"
            "def scatter(grads):\n"
            "    return jax.tree.map(\n"
            "        lambda g: jax.lax.psum_scatter(g, 'data', scatter_dimension=0, tiled=True) / n, grads)\n"
        ),
        "no scatter: the whole gradient left as autodiff returns it": (
            "def gather(shards):\n"
            "    return jax.tree.map(lambda b: jax.lax.all_gather(b, ALL, axis=0, tiled=True), shards)\n"
            "def scatter(grads):\n"
            "    return jax.tree.map(lambda g: g / n, grads)\n"
        ),
        "psum_scatter called, its result thrown away": (
            "def gather(shards):\n"
            "    return jax.tree.map(lambda b: jax.lax.all_gather(b, ALL, axis=0, tiled=True), shards)\n"
            "def scatter(grads):\n"
            "    def block(g):\n"
            "        jax.lax.psum_scatter(g, ALL, scatter_dimension=0, tiled=True)\n"
            "        rows = g.shape[0] // n\n"
            "        return jax.lax.dynamic_slice_in_dim(g, jax.lax.axis_index(ALL) * rows, rows) / n\n"
            "    return jax.tree.map(block, grads)\n"
        ),
    },
    # --- end 09 ---
    # --- 10 --- (only notebook 10's engineer edits between these markers)
    "10.1": {
        "hard-coded rules for the example's axes": (
            "def layout_rules(dp, fsdp, tp):\n"
            "    return {'batch': 'data', 'heads': 'model', 'mlp': 'model'}"
        ),
        "nothing split: the default layout does the work": "def layout_rules(dp, fsdp, tp):\n    return {}",
        "FSDP does not split the batch": (
            "def layout_rules(dp, fsdp, tp):\n"
            "    return {'batch': dp, 'embed': fsdp, 'heads': tp, 'mlp': tp}"
        ),
        "DP splits the parameters too (everything FSDP)": (
            "def layout_rules(dp, fsdp, tp):\n"
            "    both = tuple(a for g in (dp, fsdp) if g for a in ((g,) if isinstance(g, str) else g))\n"
            "    return {'batch': both or None, 'embed': both or None, 'heads': tp, 'mlp': tp}"
        ),
        "TP splits each head's width, not the heads": (
            "def layout_rules(dp, fsdp, tp):\n"
            "    both = tuple(a for g in (dp, fsdp) if g for a in ((g,) if isinstance(g, str) else g))\n"
            "    return {'batch': both or None, 'embed': fsdp, 'head_dim': tp, 'mlp': tp}"
        ),
        "the batch over the FSDP axes first": (
            "def layout_rules(dp, fsdp, tp):\n"
            "    both = tuple(a for g in (fsdp, dp) if g for a in ((g,) if isinstance(g, str) else g))\n"
            "    return {'batch': both or None, 'embed': fsdp, 'heads': tp, 'mlp': tp}"
        ),
        "tailored to the case it was shown": (
            "def layout_rules(dp, fsdp, tp):\n"
            "    if (dp, fsdp, tp) == ('data', None, 'model'):\n"
            "        return {'batch': 'data', 'heads': 'model', 'mlp': 'model'}\n"
            "    return layouts['FSDP×TP']"
        ),
        "section 2's layouts looked up by which kinds are present": (
            "def layout_rules(dp, fsdp, tp):\n"
            "    kinds = (dp is not None, fsdp is not None, tp is not None)\n"
            "    name = {(True, False, False): 'DP', (False, True, False): 'FSDP',\n"
            "            (False, False, True): 'TP'}.get(kinds, 'FSDP×TP')\n"
            "    return layouts[name]"
        ),
        "rules under names the model does not use (they split nothing)": (
            "def layout_rules(dp, fsdp, tp):\n"
            "    both = tuple(a for g in (dp, fsdp) if g for a in ((g,) if isinstance(g, str) else g))\n"
            "    return {'batch': both or None, 'embedding': fsdp, 'attention_heads': tp, 'hidden': tp}"
        ),
    },
    "10.2": {
        "every device, divisible or not": (
            "def resume_target(abstract, devices):\n"
            "    grid = jax.make_mesh((len(devices),), ('data',),\n"
            "                         axis_types=(jax.sharding.AxisType.Explicit,), devices=devices)\n"
            "    return train_state_target(abstract, {'batch': 'data', 'embed': 'data'}, grid)"
        ),
        "the notebook's own mesh, not the devices given": (
            "def resume_target(abstract, devices):\n"
            "    return train_state_target(abstract, layouts['FSDP'], mesh)"
        ),
        "the abstract state as it is: the default placement does the work": (
            "def resume_target(abstract, devices):\n    return abstract"
        ),
        "the state in memory moved there, not restored": (
            "def resume_target(abstract, devices):\n"
            "    count = max(k for k in range(1, len(devices) + 1)\n"
            "                if sizes['d_model'] % k == 0 and batch_size % k == 0)\n"
            "    grid = jax.make_mesh((count,), ('data',),\n"
            "                         axis_types=(jax.sharding.AxisType.Explicit,), devices=devices[:count])\n"
            "    target = train_state_target(abstract, {'batch': 'data', 'embed': 'data'}, grid)\n"
            "    return jax.device_put(train_state, jax.tree.map(lambda t: t.sharding, target))"
        ),
        "only the parameters placed; optimizer state and step left to the default": (
            "def resume_target(abstract, devices):\n"
            "    count = max(k for k in range(1, len(devices) + 1)\n"
            "                if sizes['d_model'] % k == 0 and batch_size % k == 0)\n"
            "    grid = jax.make_mesh((count,), ('data',),\n"
            "                         axis_types=(jax.sharding.AxisType.Explicit,), devices=devices[:count])\n"
            "    placed = train_state_target(abstract, {'batch': 'data', 'embed': 'data'}, grid)\n"
            "    return {**abstract, 'params': placed['params']}"
        ),
        "the devices in id order, not the order given": (
            "def resume_target(abstract, devices):\n"
            "    devices = sorted(devices, key=lambda d: d.id)\n"
            "    count = max(k for k in range(1, len(devices) + 1)\n"
            "                if sizes['d_model'] % k == 0 and batch_size % k == 0)\n"
            "    grid = jax.make_mesh((count,), ('data',),\n"
            "                         axis_types=(jax.sharding.AxisType.Explicit,), devices=devices[:count])\n"
            "    return train_state_target(abstract, {'batch': 'data', 'embed': 'data'}, grid)"
        ),
        "replicated over the survivors instead of FSDP": (
            "def resume_target(abstract, devices):\n"
            "    count = max(k for k in range(1, len(devices) + 1)\n"
            "                if sizes['d_model'] % k == 0 and batch_size % k == 0)\n"
            "    grid = jax.make_mesh((count,), ('data',),\n"
            "                         axis_types=(jax.sharding.AxisType.Explicit,), devices=devices[:count])\n"
            "    return train_state_target(abstract, {'batch': 'data'}, grid)"
        ),
        "tailored: every device when they divide, else one": (
            "def resume_target(abstract, devices):\n"
            "    fits = sizes['d_model'] % len(devices) == 0 and batch_size % len(devices) == 0\n"
            "    count = len(devices) if fits else 1\n"
            "    grid = jax.make_mesh((count,), ('data',),\n"
            "                         axis_types=(jax.sharding.AxisType.Explicit,), devices=devices[:count])\n"
            "    return train_state_target(abstract, {'batch': 'data', 'embed': 'data'}, grid)"
        ),
        "the checkpoint restored in here, arrays returned as the target": (
            "def resume_target(abstract, devices):\n"
            "    count = max(k for k in range(1, len(devices) + 1)\n"
            "                if sizes['d_model'] % k == 0 and batch_size % k == 0)\n"
            "    grid = jax.make_mesh((count,), ('data',),\n"
            "                         axis_types=(jax.sharding.AxisType.Explicit,), devices=devices[:count])\n"
            "    target = train_state_target(abstract, {'batch': 'data', 'embed': 'data'}, grid)\n"
            "    return manager.restore(steps, args=ocp.args.StandardRestore(target))"
        ),
        "the target built, then its shardings dropped": (
            "def resume_target(abstract, devices):\n"
            "    count = max(k for k in range(1, len(devices) + 1)\n"
            "                if sizes['d_model'] % k == 0 and batch_size % k == 0)\n"
            "    grid = jax.make_mesh((count,), ('data',),\n"
            "                         axis_types=(jax.sharding.AxisType.Explicit,), devices=devices[:count])\n"
            "    target = train_state_target(abstract, {'batch': 'data', 'embed': 'data'}, grid)\n"
            "    return jax.tree.map(lambda t: jax.ShapeDtypeStruct(t.shape, t.dtype), target)"
        ),
    },
    "10.3": {
        "hard-coded bytes of the example": (
            "def predict_bytes(sizes, layout, mesh_shape):\n"
            "    return {'parameters': held['TP'].largest('parameters'),\n"
            "            'optimizer': held['TP'].largest('optimizer')}"
        ),
        "every parameter split over every device": (
            "def predict_bytes(sizes, layout, mesh_shape):\n"
            "    d, v, f, w = sizes['d_model'], sizes['vocab'], sizes['d_ff'], sizes['heads'] * sizes['head_dim']\n"
            "    total = 2 * v * d + sizes['layers'] * (4 * d * w + 2 * d * f)\n"
            "    p = 4 * total // math.prod(mesh_shape.values())\n"
            "    return {'parameters': p, 'optimizer': 2 * p + 4}"
        ),
        "one moment, as SGD with momentum would keep": (
            "def predict_bytes(sizes, layout, mesh_shape):\n"
            "    def ways(name):\n"
            "        axes = layout.get(name)\n"
            "        axes = () if axes is None else (axes,) if isinstance(axes, str) else axes\n"
            "        return math.prod(mesh_shape[a] for a in axes)\n"
            "    d, v, f, w = sizes['d_model'], sizes['vocab'], sizes['d_ff'], sizes['heads'] * sizes['head_dim']\n"
            "    p = 4 * (2 * v * d // ways('embed') // ways('vocab') + sizes['layers'] * (\n"
            "        4 * d * w // ways('embed') // ways('heads') + 2 * d * f // ways('embed') // ways('mlp')))\n"
            "    return {'parameters': p, 'optimizer': p + 4}"
        ),
        "Adam's step count forgotten": (
            "def predict_bytes(sizes, layout, mesh_shape):\n"
            "    def ways(name):\n"
            "        axes = layout.get(name)\n"
            "        axes = () if axes is None else (axes,) if isinstance(axes, str) else axes\n"
            "        return math.prod(mesh_shape[a] for a in axes)\n"
            "    d, v, f, w = sizes['d_model'], sizes['vocab'], sizes['d_ff'], sizes['heads'] * sizes['head_dim']\n"
            "    p = 4 * (2 * v * d // ways('embed') // ways('vocab') + sizes['layers'] * (\n"
            "        4 * d * w // ways('embed') // ways('heads') + 2 * d * f // ways('embed') // ways('mlp')))\n"
            "    return {'parameters': p, 'optimizer': 2 * p}"
        ),
        "the vocabulary never split": (
            "def predict_bytes(sizes, layout, mesh_shape):\n"
            "    def ways(name):\n"
            "        axes = layout.get(name)\n"
            "        axes = () if axes is None else (axes,) if isinstance(axes, str) else axes\n"
            "        return math.prod(mesh_shape[a] for a in axes)\n"
            "    d, v, f, w = sizes['d_model'], sizes['vocab'], sizes['d_ff'], sizes['heads'] * sizes['head_dim']\n"
            "    p = 4 * (2 * v * d // ways('embed') + sizes['layers'] * (\n"
            "        4 * d * w // ways('embed') // ways('heads') + 2 * d * f // ways('embed') // ways('mlp')))\n"
            "    return {'parameters': p, 'optimizer': 2 * p + 4}"
        ),
        "placed and measured, not predicted": (
            "def predict_bytes(sizes, layout, mesh_shape):\n"
            "    grid = ah.make_mesh(tuple(mesh_shape), tuple(mesh_shape.values()))\n"
            "    with nnx.use_eager_sharding(False):\n"
            "        params = nnx.state(Decoder(**sizes))\n"
            "    placed = jax.device_put(params, shardings(params, layout, grid))\n"
            "    with jax.set_mesh(grid):\n"
            "        held = ah.state_bytes(parameters=placed, optimizer=init_optimizer(placed))\n"
            "    return {'parameters': held.largest('parameters'), 'optimizer': held.largest('optimizer')}"
        ),
        "the notebook's sizes and mesh, not the arguments": (
            "def predict_bytes(sizes_, layout, mesh_shape):\n"
            "    def ways(name):\n"
            "        axes = layout.get(name)\n"
            "        axes = () if axes is None else (axes,) if isinstance(axes, str) else axes\n"
            "        return math.prod(mesh.shape[a] for a in axes)\n"
            "    d, v, f, w = sizes['d_model'], sizes['vocab'], sizes['d_ff'], sizes['heads'] * sizes['head_dim']\n"
            "    p = 4 * (2 * v * d // ways('embed') // ways('vocab') + sizes['layers'] * (\n"
            "        4 * d * w // ways('embed') // ways('heads') + 2 * d * f // ways('embed') // ways('mlp')))\n"
            "    return {'parameters': p, 'optimizer': 2 * p + 4}"
        ),
        "the layout ignored: every parameter whole, as by default": (
            "def predict_bytes(sizes, layout, mesh_shape):\n"
            "    d, v, f, w = sizes['d_model'], sizes['vocab'], sizes['d_ff'], sizes['heads'] * sizes['head_dim']\n"
            "    p = 4 * (2 * v * d + sizes['layers'] * (4 * d * w + 2 * d * f))\n"
            "    return {'parameters': p, 'optimizer': 2 * p + 4}"
        ),
        "section 3's measurements looked up by layout": (
            "def predict_bytes(sizes, layout, mesh_shape):\n"
            "    for name, known in layouts.items():\n"
            "        if known == layout:\n"
            "            return {'parameters': held[name].largest('parameters'),\n"
            "                    'optimizer': held[name].largest('optimizer')}\n"
            "    return {'parameters': held['FSDP'].largest('parameters'),\n"
            "            'optimizer': held['FSDP'].largest('optimizer')}"
        ),
    },
    # --- end 10 ---
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
        "an idle kernel beside plain jax.numpy": (
            "def _kernel(x_ref, y_ref, o_ref):\n"
            "    d = x_ref[...] - y_ref[...]\n"
            "    o_ref[...] = d * d\n"
            "def squared_difference(x, y):\n"
            "    pl.pallas_call(_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
            "                   interpret=INTERPRET)(x, y)  # called, result unused\n"
            "    return (x - y) ** 2"
        ),
        "difference taken outside, passed to the kernel twice": (
            "def _kernel(a_ref, b_ref, o_ref):\n"
            "    o_ref[...] = a_ref[...] * b_ref[...]\n"
            "def squared_difference(x, y):\n"
            "    d = x - y\n"
            "    return pl.pallas_call(_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
            "                          interpret=INTERPRET)(d, d)"
        ),
        "everything outside, the kernel copies it (y passed along unused)": (
            "def _kernel(d_ref, y_ref, o_ref):\n"
            "    o_ref[...] = d_ref[...]\n"
            "def squared_difference(x, y):\n"
            "    return pl.pallas_call(_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
            "                          interpret=INTERPRET)((x - y) ** 2, y)"
        ),
        "tailored: a kernel written for 2-D blocks only": (
            "def _kernel(x_ref, y_ref, o_ref):\n"
            "    d = x_ref[:, :] - y_ref[:, :]\n"
            "    o_ref[:, :] = d * d\n"
            "def squared_difference(x, y):\n"
            "    return pl.pallas_call(_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
            "                          interpret=INTERPRET)(x, y)"
        ),
        "the check's own reference called back from inside the kernel": (
            "def _kernel(x_ref, y_ref, o_ref):\n"
            "    x, y = x_ref[...], y_ref[...]\n"
            "    o_ref[...] = jax.pure_callback(squared_difference_numpy,\n"
            "                                   jax.ShapeDtypeStruct(x.shape, x.dtype), x, y)\n"
            "def squared_difference(x, y):\n"
            "    return pl.pallas_call(_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
            "                          interpret=INTERPRET)(x, y)"
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
        "no BlockSpecs: every program normalises the whole array": (
            "def _kernel(x_ref, o_ref):\n"
            "    v = x_ref[...]\n"
            "    o_ref[...] = v * jax.lax.rsqrt(jnp.mean(v * v, axis=0, keepdims=True) + EPS)\n"
            "def column_rms_norm(x, block_cols):\n"
            "    return pl.pallas_call(_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
            "                          grid=(x.shape[1] // block_cols,), interpret=INTERPRET)(x)"
        ),
        "the lesson's row kernel applied to the transpose": (
            "def column_rms_norm(x, block_cols):\n"
            "    t = x.T\n"
            "    spec = pl.BlockSpec((block_cols, t.shape[1]), lambda i: (i, 0))\n"
            "    out = pl.pallas_call(rms_norm_kernel,\n"
            "                         out_shape=jax.ShapeDtypeStruct(t.shape, t.dtype),\n"
            "                         grid=(t.shape[0] // block_cols,), in_specs=[spec],\n"
            "                         out_specs=spec, interpret=INTERPRET)(t)\n"
            "    return out.T"
        ),
        "an idle column kernel beside plain jax.numpy": (
            "def _kernel(x_ref, o_ref):\n"
            "    o_ref[...] = x_ref[...]\n"
            "def column_rms_norm(x, block_cols):\n"
            "    spec = pl.BlockSpec((x.shape[0], block_cols), lambda j: (0, j))\n"
            "    pl.pallas_call(_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
            "                   grid=(x.shape[1] // block_cols,), in_specs=[spec],\n"
            "                   out_specs=spec, interpret=INTERPRET)(x)  # result unused\n"
            "    return x * jax.lax.rsqrt(jnp.mean(x * x, axis=0, keepdims=True) + EPS)"
        ),
        "tailored: an index_map in elements, right when a block is one column": (
            "def _kernel(x_ref, o_ref):\n"
            "    v = x_ref[...]\n"
            "    o_ref[...] = v * jax.lax.rsqrt(jnp.mean(v * v, axis=0, keepdims=True) + EPS)\n"
            "def column_rms_norm(x, block_cols):\n"
            "    spec = pl.BlockSpec((x.shape[0], block_cols), lambda j: (0, j * block_cols))\n"
            "    return pl.pallas_call(_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
            "                          grid=(x.shape[1] // block_cols,), in_specs=[spec],\n"
            "                          out_specs=spec, interpret=INTERPRET)(x)"
        ),
        "the check's own reference called back from inside a column-tiled kernel": (
            "def _kernel(x_ref, o_ref):\n"
            "    x = x_ref[...]\n"
            "    o_ref[...] = jax.pure_callback(column_rms_numpy,\n"
            "                                   jax.ShapeDtypeStruct(x.shape, x.dtype), x)\n"
            "def column_rms_norm(x, block_cols):\n"
            "    spec = pl.BlockSpec((x.shape[0], block_cols), lambda j: (0, j))\n"
            "    return pl.pallas_call(_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
            "                          grid=(x.shape[1] // block_cols,), in_specs=[spec],\n"
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
        "an FFI call made and thrown away beside plain jax.numpy": (
            "def power_sum_ffi(x, power):\n"
            "    call = jax.ffi.ffi_call(power_sum_target,\n"
            "                            jax.ShapeDtypeStruct(x.shape[:-1], x.dtype),\n"
            "                            vmap_method='broadcast_all')\n"
            "    call(x, power=np.int64(power))  # result unused\n"
            "    return jnp.sum(jnp.abs(x) ** power, axis=-1)"
        ),
        "one kernel call per batch element under vmap": (
            "def power_sum_ffi(x, power):\n"
            "    call = jax.ffi.ffi_call(power_sum_target,\n"
            "                            jax.ShapeDtypeStruct(x.shape[:-1], x.dtype),\n"
            "                            vmap_method='sequential')\n"
            "    return call(x, power=np.int64(power))"
        ),
        "the sums made on the host by a callback, the FFI result multiplied by zero": (
            "def power_sum_ffi(x, power):\n"
            "    call = jax.ffi.ffi_call(power_sum_target,\n"
            "                            jax.ShapeDtypeStruct(x.shape[:-1], x.dtype),\n"
            "                            vmap_method='broadcast_all')\n"
            "    s = call(x, power=np.int64(power))\n"
            "    host = jax.pure_callback(\n"
            "        lambda v: (np.abs(v) ** power).sum(axis=-1).astype(np.float32),\n"
            "        jax.ShapeDtypeStruct(s.shape, s.dtype), x, vmap_method='broadcast_all')\n"
            "    return host + 0 * s"
        ),
        "the FFI result handed to the check's own reference in a callback": (
            "def power_sum_ffi(x, power):\n"
            "    call = jax.ffi.ffi_call(power_sum_target,\n"
            "                            jax.ShapeDtypeStruct(x.shape[:-1], x.dtype),\n"
            "                            vmap_method='broadcast_all')\n"
            "    s = call(x, power=np.int64(power))\n"
            "    return jax.pure_callback(\n"
            "        lambda s, v: power_sum_numpy(v, power).astype(np.float32),\n"
            "        jax.ShapeDtypeStruct(s.shape, s.dtype), s, x, vmap_method='broadcast_all')"
        ),
    },
    # --- end A1 ---
}
