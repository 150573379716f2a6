"""Notebook 01_arrays: the wrong answers its checks must reject, and which of them stands
for each kind of lazy answer (see :mod:`tests.notebooks`)."""

from __future__ import annotations

WRONG_ANSWERS: dict[str, dict[str, str]] = {
    "01.1": {
        "the check's configuration changed by the answer (64-bit mode switched globally)": (
            'jax.config.update(\'jax_enable_x64\', True)\ndef histogram(values, weights, n_bins):\n    """Float32 sums: entry b adds the weights of the values equal to b; other values count nowhere."""\n    bins = jnp.zeros(n_bins, jnp.float32)\n    return bins.at[values].add(weights, mode="drop", wrap_negative_indices=False)\n'
        ),
        "NumPy on concrete values, the taught update when traced": (
            "def histogram(values, weights, n_bins):\n    try:\n        v, w = np.asarray(values), np.asarray(weights)\n        ok = (v >= 0) & (v < n_bins)\n        return jnp.asarray(np.bincount(v[ok], weights=w[ok], minlength=n_bins).astype(np.float32))\n    except Exception:\n        return jnp.zeros(n_bins, jnp.float32).at[values].add(weights, mode='drop', wrap_negative_indices=False)\n"
        ),
        "a comparison matrix plus 0 * the scatter-add": (
            "def histogram(values, weights, n_bins):\n    hits = (values[:, None] == jnp.arange(n_bins)).astype(jnp.float32)\n    taught = jnp.zeros(n_bins, jnp.float32).at[values].add(weights, mode='drop', wrap_negative_indices=False)\n    return weights @ hits + 0 * taught\n"
        ),
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
        "the check's configuration changed by the answer (64-bit mode switched globally)": (
            'jax.config.update(\'jax_enable_x64\', True)\ndef lookup_or_default(table, ids, default):\n    """table[ids], with `default` wherever an id is past the end of the table."""\n    return table.at[ids].get(mode="fill", fill_value=default)\n'
        ),
        "NumPy on concrete values, the fill-mode gather when traced": (
            "def lookup_or_default(table, ids, default):\n    try:\n        t, i = np.asarray(table), np.asarray(ids)\n        return jnp.asarray(np.where(i < len(t), t[np.minimum(i, len(t) - 1)], default).astype(t.dtype))\n    except Exception:\n        return table.at[ids].get(mode='fill', fill_value=default)\n"
        ),
        "indices compared by hand, plus 0 * the fill-mode gather": (
            "def lookup_or_default(table, ids, default):\n    inside = ids < table.shape[0]\n    picked = jnp.where(inside, table[jnp.minimum(ids, table.shape[0] - 1)], default)\n    return picked + 0 * table.at[ids].get(mode='fill', fill_value=default)\n"
        ),
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
        "the check's configuration changed by the answer (64-bit mode switched globally)": (
            'jax.config.update(\'jax_enable_x64\', True)\n@jax.jit\ndef sparse_update(table, rows, grads, lr):\n    """Subtract lr * grads[k] from row rows[k] for every k; pure, and compiled with jax.jit."""\n    return table.at[rows].add(-lr * grads, mode="drop", wrap_negative_indices=False)\n'
        ),
        "a one-hot matmul plus 0 * the scatter": (
            "@jax.jit\ndef sparse_update(table, rows, grads, lr):\n    one_hot = (rows[:, None] == jnp.arange(table.shape[0])).astype(table.dtype)\n    taught = table.at[rows].add(-lr * grads, mode='drop', wrap_negative_indices=False)\n    return table - lr * one_hot.T @ grads + 0 * taught\n"
        ),
        "hard-coded table": (
            "def sparse_update(table, rows, grads, lr):\n"
            "    return jnp.asarray(sparse_reference(emb, used, grad_rows, 0.5))"
        ),
        "not compiled with jax.jit": (
            "def sparse_update(table, rows, grads, lr):\n"
            "    return table.at[rows].add(-lr * grads, mode='drop')"
        ),
        "the default index rules: -1 padding wraps to the last row": (
            "@jax.jit\n"
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
        "the check's configuration changed by the answer (64-bit mode switched globally)": (
            'jax.config.update(\'jax_enable_x64\', False)\ndef mean64(x):\n    """Mean of the float32 array x, computed in float64; 64-bit mode is on only inside."""\n    with jax.enable_x64(True):\n        return jnp.mean(x.astype(jnp.float64))\n'
        ),
        "NumPy float64 on concrete values, the 64-bit block when traced": (
            "def mean64(x):\n    try:\n        return np.float64(np.asarray(x, np.float64).mean())\n    except Exception:\n        with jax.enable_x64(True):\n            return jnp.mean(x.astype(jnp.float64))\n"
        ),
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
}

COVERAGE: dict[str, dict[str, str]] = {
    "01.1": {
        "hard-coded": "hard-coded sums (tailored to the shown input)",
        "twin route": "jnp.bincount of the values masked by hand",
        "tailored": "tailored: indices shifted by two for the -1 and -2 of the shown values",
        "default": "the default scatter: -1 wraps to the last bin",
        "elsewhere": "the sums made on the host and added to an empty scatter",
        "reference": "the check's own case builder called",
        "idle": "an idle .at update beside a comparison sum",
        "times zero": "a comparison matrix plus 0 * the scatter-add",
        "switches when traced": "NumPy on concrete values, the taught update when traced",
        "split across calls": "n/a: the check sets no per-call bound: one call of the answer is judged whole",
        "unwatched": "n/a: the check sets no budget on where arrays are made or how much memory the answer uses; it judges the returned values and the traced route",
        "environment": "the check's configuration changed by the answer (64-bit mode switched globally)",
        "host inside": "n/a: the taught operation is one primitive with no body (loop, kernel or shard_map) a callback could sit in; a callback anywhere in the answer is refused as 'elsewhere'",
    },
    "01.2": {
        "hard-coded": "hard-coded lookup",
        "twin route": "compares the indices with jnp.where",
        "tailored": "tailored: only ids 10 and 15 are past the end",
        "default": "the default read (clamped)",
        "elsewhere": "NumPy detour",
        "reference": "the check's own reference called",
        "idle": "an idle fill-mode read beside a comparison",
        "times zero": "indices compared by hand, plus 0 * the fill-mode gather",
        "switches when traced": "NumPy on concrete values, the fill-mode gather when traced",
        "split across calls": "n/a: the check sets no per-call bound: one call of the answer is judged whole",
        "unwatched": "n/a: the check sets no budget on where arrays are made or how much memory the answer uses; it judges the returned values and the traced route",
        "environment": "the check's configuration changed by the answer (64-bit mode switched globally)",
        "host inside": "n/a: the taught operation is one primitive with no body (loop, kernel or shard_map) a callback could sit in; a callback anywhere in the answer is refused as 'elsewhere'",
    },
    "01.3": {
        "hard-coded": "hard-coded table",
        "twin route": "a one-hot matmul, no scatter",
        "tailored": "tailored: the last two entries taken for the padding",
        "default": "the default index rules: -1 padding wraps to the last row",
        "elsewhere": "the update made on the host (pure_callback)",
        "reference": "the check's own reference called",
        "idle": "an idle scatter beside a one-hot matmul",
        "times zero": "a one-hot matmul plus 0 * the scatter",
        "split across calls": "n/a: the check sets no per-call bound: one call of the answer is judged whole",
        "unwatched": "n/a: the check sets no budget on where arrays are made or how much memory the answer uses; it judges the returned values and the traced route",
        "environment": "the check's configuration changed by the answer (64-bit mode switched globally)",
        "host inside": "the update made on the host (pure_callback)",
        "switches when traced": "n/a: the task requires a jitted function, so every call traces it and a NumPy branch for concrete arrays never runs; the jit route check refuses an unjitted one",
    },
    "01.4": {
        "hard-coded": "hard-coded mean",
        "twin route": "NumPy float64 detour",
        "tailored": "tailored: a float32 mean shifted by the first sample (the shown values are close)",
        "default": "float32 input not converted: the mean is float32",
        "elsewhere": "a host callback inside the 64-bit block",
        "reference": "the check's own case builder called",
        "idle": "an idle float64 mean, the host's returned",
        "switches when traced": "NumPy float64 on concrete values, the 64-bit block when traced",
        "split across calls": "n/a: the check sets no per-call bound: one call of the answer is judged whole",
        "unwatched": "n/a: the check sets no budget on where arrays are made or how much memory the answer uses; it judges the returned values and the traced route",
        "environment": "the check's configuration changed by the answer (64-bit mode switched globally)",
        "host inside": "a host callback inside the 64-bit block",
    },
}

# Issue 38's kinds not yet named above.
WRONG_ANSWERS["01.4"]["a float64 dot for the mean, plus 0 * the float64 sum"] = (
    "def mean64(x):\n"
    "    with jax.enable_x64(True):\n"
    "        wide = x.astype(jnp.float64)\n"
    "        by_dot = wide @ jnp.ones(x.shape, jnp.float64) / x.size\n"
    "        return by_dot + 0 * jnp.mean(wide)"
)
COVERAGE["01.4"]["times zero"] = "a float64 dot for the mean, plus 0 * the float64 sum"


# Honest answers in ordinary styles (issue 38, "Must hold"): each must score "solved".
RIGHT_ANSWERS: dict[str, dict[str, str | tuple[str, ...]]] = {
    "01.1": {
        "lax.scatter_add spelled out": "from jax import lax\n\n\ndef histogram(values, weights, n_bins):\n    numbers = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))\n    bins = jnp.zeros(n_bins, jnp.float32)\n    return lax.scatter_add(bins, values[:, None], weights.astype(jnp.float32), numbers, mode=lax.GatherScatterMode.FILL_OR_DROP)",
        "segment_sum and a print": "def histogram(values, weights, n_bins):\n    return jax.ops.segment_sum(weights, values, num_segments=n_bins).astype(jnp.float32)\n\n\nprint(histogram(jnp.array([0, 1, 1, -1]), jnp.ones(4), 3))",
        "helper, two cells": (
            "def empty_bins(n_bins):\n    return jnp.zeros((n_bins,), dtype=jnp.float32)",
            "def histogram(values, weights, n_bins):\n    return empty_bins(n_bins).at[values].add(weights, mode='drop', wrap_negative_indices=False)",
        ),
        "mode=GatherScatterMode enum": "from jax.lax import GatherScatterMode\n\n\ndef histogram(values, weights, n_bins):\n    return jnp.zeros(n_bins, jnp.float32).at[values].add(weights, mode=GatherScatterMode.FILL_OR_DROP, wrap_negative_indices=False)",
    },
    "01.2": {
        "jnp.take with fill": "def lookup_or_default(table, ids, default):\n    return jnp.take(table, ids, mode='fill', fill_value=default)",
        "helper and a print": "def read_past_end(table, ids, value):\n    return table.at[ids].get(mode='fill', fill_value=value)\n\n\ndef lookup_or_default(table, ids, default):\n    return read_past_end(table, ids, default)\n\n\nprint(lookup_or_default(jnp.arange(3.0), jnp.array([0, 5]), -1.0))",
        "lax.gather spelled out": "from jax import lax\n\n\ndef lookup_or_default(table, ids, default):\n    numbers = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))\n    return lax.gather(table, ids[:, None], numbers, slice_sizes=(1,), mode=lax.GatherScatterMode.FILL_OR_DROP, fill_value=default)",
        "take_along_axis with fill": "def lookup_or_default(table, ids, default):\n    return jnp.take_along_axis(table, ids, axis=0, mode='fill', fill_value=default)",
    },
    "01.3": {
        "jit as a call, helper": "def one_update(table, rows, grads, lr):\n    return table.at[rows].add(-lr * grads, mode='drop', wrap_negative_indices=False)\n\n\nsparse_update = jax.jit(one_update)",
        "functools.partial jit, print": "import functools\n\n\n@functools.partial(jax.jit)\ndef sparse_update(table, rows, grads, lr):\n    update = grads * -lr\n    return table.at[rows].add(update, mode='drop', wrap_negative_indices=False)\n\n\nprint(sparse_update(jnp.zeros((2, 1)), jnp.array([0, -1]), jnp.ones((2, 1)), 1.0))",
        "lax.scatter_add spelled out": "from jax import lax\n\n\n@jax.jit\ndef sparse_update(table, rows, grads, lr):\n    numbers = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))\n    return lax.scatter_add(table, rows[:, None], -lr * grads, numbers, mode=lax.GatherScatterMode.FILL_OR_DROP)",
        "`.at[].subtract`": "@jax.jit\ndef sparse_update(table, rows, grads, lr):\n    return table.at[rows].subtract(lr * grads, mode='drop', wrap_negative_indices=False)",
    },
    "01.4": {
        "sum over size": "def mean64(x):\n    with jax.enable_x64(True):\n        wide = x.astype(jnp.float64)\n        return jnp.sum(wide) / wide.size",
        "jnp.mean(dtype=float64)": "def mean64(x):\n    with jax.enable_x64(True):\n        return jnp.mean(x, dtype=jnp.float64)",
        "helper, math, print": "import math\n\n\ndef wide_mean(values):\n    return values.astype(jnp.float64).sum() / math.prod(values.shape)\n\n\ndef mean64(x):\n    with jax.enable_x64(True):\n        result = wide_mean(x)\n    return result\n\n\nprint(mean64(jnp.ones(4)))",
        "jnp.asarray(dtype=float64) and jnp.average": "def mean64(x):\n    with jax.enable_x64(True):\n        return jnp.average(jnp.asarray(x, dtype=jnp.float64))",
    },
}


# The review of 1818ab0 (/work/tmp/review-01_arrays.md): the taught operation as a pass-through
# (fed zeros, at arange indices, over one element), the same primitive on both routes, and
# add-and-subtract. The checks now read what the result is made of: the taught operation's own
# output, fed the arguments as given (flat_program in the notebook).
WRONG_ANSWERS["01.1"][
    "pass-through: sign-arithmetic one-hot sums, then a scatter-add copying them into place"
] = "def histogram(values, weights, n_bins):\n    hits = 1 - jnp.sign(jnp.abs(values[:, None] - jnp.arange(n_bins)[None, :]))\n    real = (hits.astype(jnp.float32) * weights[:, None]).sum(axis=0)\n    return jnp.zeros(n_bins, jnp.float32).at[np.arange(n_bins)].add(real, wrap_negative_indices=False)\n"
WRONG_ANSWERS["01.1"]["zero-fed scatter: sign-arithmetic sums + a scatter-add of zeros"] = (
    "def histogram(values, weights, n_bins):\n    hits = 1 - jnp.sign(jnp.abs(values[:, None] - jnp.arange(n_bins)[None, :]))\n    real = (hits.astype(jnp.float32) * weights[:, None]).sum(axis=0)\n    return real + jnp.zeros(n_bins, jnp.float32).at[values].add(jnp.zeros_like(weights), mode='drop', wrap_negative_indices=False)\n"
)
WRONG_ANSWERS["01.1"][
    "hand-made index rule by arithmetic (abs) instead of comparisons, default wrapping off"
] = "def histogram(values, weights, n_bins):\n    far = values + (jnp.abs(values) - values) * n_bins  # negative values sent past the end\n    return jnp.zeros(n_bins, jnp.float32).at[far].add(weights, wrap_negative_indices=False)\n"
WRONG_ANSWERS["01.1"][
    "hand-made mask by arithmetic: weights of negative values zeroed, default wrapping"
] = "def histogram(values, weights, n_bins):\n    keep = (1 + jnp.sign(values) * jnp.sign(jnp.abs(values))) // 2 + (1 - jnp.abs(jnp.sign(values)))\n    return jnp.zeros(n_bins, jnp.float32).at[values].add(weights * keep, mode='drop')\n"
WRONG_ANSWERS["01.1"]["sort-based: jnp.argsort/cumsum segment sums, passed through a scatter"] = (
    "def histogram(values, weights, n_bins):\n    hits = jax.nn.one_hot(values, n_bins, dtype=jnp.float32)\n    return jnp.zeros(n_bins, jnp.float32).at[np.arange(n_bins)].add(weights @ hits, wrap_negative_indices=False)\n"
)
RIGHT_ANSWERS.setdefault("01.1", {})["segment_sum"] = (
    "def histogram(values, weights, n_bins):\n    return jax.ops.segment_sum(weights, values, num_segments=n_bins)\n"
)
RIGHT_ANSWERS.setdefault("01.1", {})["lax.scatter_add spelling"] = (
    "from jax import lax\n\ndef histogram(values, weights, n_bins):\n    dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))\n    return lax.scatter_add(jnp.zeros(n_bins, jnp.float32), values[:, None], weights, dn, mode=lax.GatherScatterMode.FILL_OR_DROP)\n"
)
RIGHT_ANSWERS.setdefault("01.1", {})["helper in a separate cell + trial print"] = (
    "def _empty(n):\n    return jnp.zeros(n, jnp.float32)\n",
    "def histogram(values, weights, n_bins):\n    return _empty(n_bins).at[values].add(weights, mode='drop', wrap_negative_indices=False)\n\nprint(histogram(jnp.array([0, 1, 1, -1]), jnp.ones(4), 3))\n",
)
RIGHT_ANSWERS.setdefault("01.1", {})["mode='fill' spelling, weights cast"] = (
    "import math\n\ndef histogram(values, weights, n_bins):\n    return jnp.zeros((n_bins,), 'float32').at[values].add(weights.astype(jnp.float32), mode='fill', wrap_negative_indices=False)\n"
)
WRONG_ANSWERS["01.1"][
    "add-and-subtract: sign sums + t - t, t a scatter-add of every weight into bin 0"
] = "def histogram(values, weights, n_bins):\n    hits = 1 - jnp.sign(jnp.abs(values[:, None] - jnp.arange(n_bins)[None, :]))\n    real = (hits.astype(jnp.float32) * weights[:, None]).sum(axis=0)\n    t = jnp.zeros(n_bins, jnp.float32).at[jnp.zeros_like(values)].add(weights, mode='drop', wrap_negative_indices=False)\n    return (real + t) - t\n"
WRONG_ANSWERS["01.2"][
    "pass-through: arithmetic mask on a clamped read, then a fill gather on arange"
] = "from jax import lax\n\ndef lookup_or_default(table, ids, default):\n    inside = 1 - lax.sign(lax.div(ids, table.shape[0]))\n    real = table[ids] * inside + default * (1 - inside)\n    return real.at[np.arange(real.shape[0])].get(mode='fill', fill_value=default)\n"
WRONG_ANSWERS["01.2"]["arithmetic mask, fill gather of zeros added"] = (
    "from jax import lax\n\ndef lookup_or_default(table, ids, default):\n    inside = 1 - lax.sign(lax.div(ids, table.shape[0]))\n    real = table[ids] * inside + default * (1 - inside)\n    return real + jnp.zeros_like(table).at[ids].get(mode='fill', fill_value=default) * 0 + jnp.zeros_like(table).at[ids].get(mode='fill', fill_value=default) - jnp.zeros_like(table).at[ids].get(mode='fill', fill_value=default)\n"
)
WRONG_ANSWERS["01.2"]["table padded with the default, then a clamped read"] = (
    "def lookup_or_default(table, ids, default):\n    padded = jnp.concatenate([table, jnp.full((1,), default, table.dtype)])\n    return padded.at[ids].get(mode='fill', fill_value=default)\n"
)
WRONG_ANSWERS["01.2"]["padded table, clip mode (default-like), no fill"] = (
    "def lookup_or_default(table, ids, default):\n    padded = jnp.concatenate([table, jnp.full((1,), default, table.dtype)])\n    return padded.at[ids].get(mode='clip') + 0 * table.at[ids].get(mode='fill', fill_value=default)\n"
)
RIGHT_ANSWERS.setdefault("01.2", {})["jnp.take with mode/fill_value"] = (
    "def lookup_or_default(table, ids, default):\n    return jnp.take(table, ids, mode='fill', fill_value=default)\n"
)
RIGHT_ANSWERS.setdefault("01.2", {})["lax.GatherScatterMode enum + helper"] = (
    "from jax import lax\n\nFILL = lax.GatherScatterMode.FILL_OR_DROP\n\ndef lookup_or_default(table, ids, default):\n    return table.at[ids].get(mode=FILL, fill_value=default)\n"
)
RIGHT_ANSWERS.setdefault("01.2", {})["two cells with a trial print"] = (
    "def lookup_or_default(table, ids, default):\n    return table.at[ids].get(mode='fill', fill_value=default)\n",
    "print(lookup_or_default(jnp.arange(3.0), jnp.array([0, 5]), -1.0))\n",
)
WRONG_ANSWERS["01.3"][
    "no index options: padding ids redirected by hand with jnp.where, default mode"
] = "@jax.jit\ndef sparse_update(table, rows, grads, lr):\n    safe = jnp.where(rows < 0, table.shape[0], rows)\n    return table.at[safe].add(-lr * grads)\n"
WRONG_ANSWERS["01.3"]["padding grads zeroed by a mask, -1 still wraps to the last row"] = (
    "@jax.jit\ndef sparse_update(table, rows, grads, lr):\n    real = (rows >= 0)[:, None]\n    return table.at[rows].add(-lr * grads * real)\n"
)
WRONG_ANSWERS["01.3"]["one-hot matmul, scatter-add of zeros"] = (
    "@jax.jit\ndef sparse_update(table, rows, grads, lr):\n    one_hot = (rows[:, None] == jnp.arange(table.shape[0])).astype(table.dtype)\n    return (table - lr * one_hot.T @ grads).at[rows].add(jnp.zeros_like(grads), mode='drop')\n"
)
WRONG_ANSWERS["01.3"]["unsigned cast so -1 is far out of range"] = (
    "@jax.jit\ndef sparse_update(table, rows, grads, lr):\n    return table.at[rows.astype(jnp.uint32)].add(-lr * grads)\n"
)
RIGHT_ANSWERS.setdefault("01.3", {})["jax.jit(fn) wrapping + lax spelling"] = (
    "from jax import lax\n\ndef _update(table, rows, grads, lr):\n    return table.at[rows].add(lax.neg(lr * grads), mode='drop', wrap_negative_indices=False)\n\nsparse_update = jax.jit(_update)\n"
)
RIGHT_ANSWERS.setdefault("01.3", {})["functools.partial(jax.jit) + subtract"] = (
    "import functools\n\n@functools.partial(jax.jit)\ndef sparse_update(table, rows, grads, lr):\n    return table.at[rows].subtract(lr * grads, mode='drop', wrap_negative_indices=False)\n"
)
RIGHT_ANSWERS.setdefault("01.3", {})[".at[].subtract under @jax.jit"] = (
    "@jax.jit\ndef sparse_update(table, rows, grads, lr):\n    return table.at[rows].subtract(lr * grads, mode='drop', wrap_negative_indices=False)\n"
)
RIGHT_ANSWERS.setdefault("01.3", {})["donate the table (section 2's in-place update)"] = (
    "import functools\n\n@functools.partial(jax.jit, donate_argnums=0)\ndef sparse_update(table, rows, grads, lr):\n    return table.at[rows].add(-lr * grads, mode='drop', wrap_negative_indices=False)\n"
)
RIGHT_ANSWERS.setdefault("01.3", {})["functools.partial(jax.jit) + add"] = (
    "import functools\n\n@functools.partial(jax.jit)\ndef sparse_update(table, rows, grads, lr):\n    return table.at[rows].add(-lr * grads, mode='drop', wrap_negative_indices=False)\n"
)
WRONG_ANSWERS["01.4"]["pass-through: float64 dot, then a reduce_sum over one element"] = (
    "def mean64(x):\n    with jax.enable_x64(True):\n        wide = x.astype(jnp.float64)\n        by_dot = wide @ jnp.ones(x.shape, jnp.float64) / x.size\n        return jnp.sum(by_dot[None])\n"
)
WRONG_ANSWERS["01.4"]["float64 sum of zeros added to a cumsum mean"] = (
    "def mean64(x):\n    with jax.enable_x64(True):\n        wide = x.astype(jnp.float64)\n        return jnp.cumsum(wide)[-1] / x.size + jnp.sum(jnp.zeros_like(wide))\n"
)
RIGHT_ANSWERS.setdefault("01.4", {})["jnp.mean(dtype=float64)"] = (
    "def mean64(x):\n    with jax.enable_x64(True):\n        return jnp.mean(x, dtype=jnp.float64)\n"
)
RIGHT_ANSWERS.setdefault("01.4", {})["from jax import enable_x64 + helper cell"] = (
    "from jax import enable_x64\n\ndef widen(x):\n    return x.astype('float64')\n",
    "def mean64(x):\n    with enable_x64(True):\n        return widen(x).sum() / x.size\n",
)
RIGHT_ANSWERS.setdefault("01.4", {})["inner jitted function"] = (
    "@jax.jit\ndef _mean(x):\n    return jnp.mean(x.astype(jnp.float64))\n\ndef mean64(x):\n    with jax.enable_x64(True):\n        return _mean(x)\n"
)
RIGHT_ANSWERS.setdefault("01.4", {})["np.float64 dtype + statistics import + print"] = (
    "import statistics\n\ndef mean64(x):\n    with jax.enable_x64(True):\n        return jnp.asarray(x, dtype=np.float64).mean()\n\nprint(mean64(jnp.ones(3)))\n"
)
RIGHT_ANSWERS.setdefault("01.4", {})["jax.enable_x64() with no argument"] = (
    "def mean64(x):\n    with jax.enable_x64():\n        return jnp.mean(x.astype(jnp.float64))\n"
)
RIGHT_ANSWERS.setdefault("01.4", {})["from jax import enable_x64 as x64"] = (
    "from jax import enable_x64 as x64\n\ndef mean64(x):\n    with x64(True):\n        return jnp.mean(x.astype(jnp.float64))\n"
)
