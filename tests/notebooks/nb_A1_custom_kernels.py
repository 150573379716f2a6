"""Notebook A1_custom_kernels: the wrong answers its checks must reject, and which of them stands
for each kind of lazy answer (see :mod:`tests.notebooks`)."""

from __future__ import annotations

WRONG_ANSWERS: dict[str, dict[str, str]] = {
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
        "jnp sums plus 0 * a correct ffi_call": (
            "def power_sum_ffi(x, power):\n    call = jax.ffi.ffi_call(power_sum_target, jax.ShapeDtypeStruct(x.shape[:-1], x.dtype), vmap_method='broadcast_all')\n    return jnp.sum(jnp.abs(x) ** power, axis=-1) + 0 * call(x, power=np.int64(power))\n"
        ),
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
}

COVERAGE: dict[str, dict[str, str]] = {
    "A1.1": {
        "hard-coded": "hard-coded result of the example",
        "twin route": "plain jax.numpy, no kernel",
        "tailored": "tailored: a kernel written for 2-D blocks only",
        "default": "n/a: pallas_call's defaults (one program, the whole array as its block) are "
        "what the task asks for, and no default computes the squared difference for the learner",
        "elsewhere": "difference taken outside, a one-input kernel squares it",
        "reference": "the check's own reference called back from inside the kernel",
        "idle": "an idle kernel beside plain jax.numpy",
        "split across calls": "n/a: the check sets no per-call bound: one call of the answer is judged whole",
        "unwatched": "n/a: the check sets no budget on where arrays are made or how much memory the answer uses; it judges the returned values and the traced route",
    },
    "A1.2": {
        "hard-coded": "hard-coded result of the example",
        "twin route": "the lesson's row kernel applied to the transpose",
        "tailored": "tailored: an index_map in elements, right when a block is one column",
        "default": "no BlockSpecs: every program normalises the whole array",
        "elsewhere": "NumPy detour",
        "reference": "the check's own reference called back from inside a column-tiled kernel",
        "idle": "an idle column kernel beside plain jax.numpy",
        "split across calls": "n/a: the check sets no per-call bound: one call of the answer is judged whole",
        "unwatched": "n/a: the check sets no budget on where arrays are made or how much memory the answer uses; it judges the returned values and the traced route",
    },
    "A1.3": {
        "hard-coded": "hard-coded result of the example",
        "twin route": "plain jax.numpy, no FFI call",
        "tailored": "a fixed power",
        "default": "no vmap_method",
        "elsewhere": "the sums made on the host by a callback, the FFI result multiplied by zero",
        "reference": "the FFI result handed to the check's own reference in a callback",
        "idle": "an FFI call made and thrown away beside plain jax.numpy",
        "times zero": "jnp sums plus 0 * a correct ffi_call",
        "host inside": "the sums made on the host by a callback, the FFI result multiplied by zero",
        "split across calls": "n/a: the check sets no per-call bound: one call of the answer is judged whole",
        "unwatched": "n/a: the check sets no budget on where arrays are made or how much memory the answer uses; it judges the returned values and the traced route",
    },
}

# Issue 38's kinds not yet named above.
_SQUARED_KERNEL = (
    "def _kernel(x_ref, y_ref, o_ref):\n    d = x_ref[...] - y_ref[...]\n    o_ref[...] = d * d\n"
)
_SQUARED_CALL = (
    "pl.pallas_call(_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
    "                          interpret=INTERPRET)(x, y)"
)
_COLUMN_KERNEL = (
    "def _kernel(x_ref, o_ref):\n"
    "    v = x_ref[...]\n"
    "    o_ref[...] = v * jax.lax.rsqrt(jnp.mean(v * v, axis=0, keepdims=True) + EPS)\n"
    "def _tiled(x, block_cols):\n"
    "    spec = pl.BlockSpec((x.shape[0], block_cols), lambda j: (0, j))\n"
    "    return pl.pallas_call(_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
    "                          grid=(x.shape[1] // block_cols,), in_specs=[spec],\n"
    "                          out_specs=spec, interpret=INTERPRET)(x)\n"
)
_FFI_CALL = (
    "    call = jax.ffi.ffi_call(power_sum_target,\n"
    "                            jax.ShapeDtypeStruct(x.shape[:-1], x.dtype),\n"
    "                            vmap_method='broadcast_all')\n"
)
WRONG_ANSWERS["A1.1"].update(
    {
        "plain jax.numpy plus 0 * a correct kernel": (
            _SQUARED_KERNEL + "def squared_difference(x, y):\n"
            "    return (x - y) ** 2 + 0 * " + _SQUARED_CALL
        ),
        "NumPy on concrete arrays, the kernel only when traced": (
            _SQUARED_KERNEL + "def squared_difference(x, y):\n"
            "    try:\n"
            "        return jnp.asarray((np.asarray(x) - np.asarray(y)) ** 2)\n"
            "    except Exception:\n"
            "        return " + _SQUARED_CALL
        ),
        "a NumPy callback inside the kernel": (
            "def _kernel(x_ref, y_ref, o_ref):\n"
            "    a, b = x_ref[...], y_ref[...]\n"
            "    o_ref[...] = jax.pure_callback(lambda p, q: ((p - q) ** 2).astype(p.dtype),\n"
            "                                   jax.ShapeDtypeStruct(a.shape, a.dtype), a, b)\n"
            "def squared_difference(x, y):\n"
            "    return " + _SQUARED_CALL
        ),
        "the kernel called inside a transfer guard the answer switches off": (
            _SQUARED_KERNEL + "def squared_difference(x, y):\n"
            "    with jax.transfer_guard('allow'):\n"
            "        return " + _SQUARED_CALL
        ),
    }
)
WRONG_ANSWERS["A1.2"].update(
    {
        "plain jax.numpy plus 0 * a correct column kernel": (
            _COLUMN_KERNEL + "def column_rms_norm(x, block_cols):\n"
            "    plain = x * jax.lax.rsqrt(jnp.mean(x * x, axis=0, keepdims=True) + EPS)\n"
            "    return plain + 0 * _tiled(x, block_cols)"
        ),
        "NumPy on concrete arrays, the column kernel only when traced": (
            _COLUMN_KERNEL + "def column_rms_norm(x, block_cols):\n"
            "    try:\n"
            "        h = np.asarray(x)\n"
            "    except Exception:\n"
            "        return _tiled(x, block_cols)\n"
            "    return jnp.asarray(h / np.sqrt((h ** 2).mean(axis=0, keepdims=True) + EPS))"
        ),
        "a NumPy callback inside each column program": (
            "def _kernel(x_ref, o_ref):\n"
            "    v = x_ref[...]\n"
            "    o_ref[...] = jax.pure_callback(\n"
            "        lambda h: (h / np.sqrt((h ** 2).mean(axis=0, keepdims=True) + EPS)).astype(h.dtype),\n"
            "        jax.ShapeDtypeStruct(v.shape, v.dtype), v)\n"
            "def column_rms_norm(x, block_cols):\n"
            "    spec = pl.BlockSpec((x.shape[0], block_cols), lambda j: (0, j))\n"
            "    return pl.pallas_call(_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
            "                          grid=(x.shape[1] // block_cols,), in_specs=[spec],\n"
            "                          out_specs=spec, interpret=INTERPRET)(x)"
        ),
        "the column kernel called inside a transfer guard the answer switches off": (
            _COLUMN_KERNEL + "def column_rms_norm(x, block_cols):\n"
            "    with jax.transfer_guard('allow'):\n"
            "        return _tiled(x, block_cols)"
        ),
    }
)
WRONG_ANSWERS["A1.3"].update(
    {
        "NumPy on concrete arrays, the FFI call only when traced": (
            "def power_sum_ffi(x, power):\n" + _FFI_CALL + "    try:\n"
            "        return jnp.asarray((np.abs(np.asarray(x)) ** power).sum(axis=-1))\n"
            "    except Exception:\n"
            "        return call(x, power=np.int64(power))"
        ),
        "the FFI call made inside a transfer guard the answer switches off": (
            "def power_sum_ffi(x, power):\n" + _FFI_CALL + "    with jax.transfer_guard('allow'):\n"
            "        return call(x, power=np.int64(power))"
        ),
    }
)
COVERAGE["A1.1"].update(
    {
        "times zero": "plain jax.numpy plus 0 * a correct kernel",
        "switches when traced": "NumPy on concrete arrays, the kernel only when traced",
        "host inside": "a NumPy callback inside the kernel",
        "environment": "the kernel called inside a transfer guard the answer switches off",
    }
)
COVERAGE["A1.2"].update(
    {
        "times zero": "plain jax.numpy plus 0 * a correct column kernel",
        "switches when traced": "NumPy on concrete arrays, the column kernel only when traced",
        "host inside": "a NumPy callback inside each column program",
        "environment": "the column kernel called inside a transfer guard the answer switches off",
    }
)
COVERAGE["A1.3"].update(
    {
        "switches when traced": "NumPy on concrete arrays, the FFI call only when traced",
        "environment": "the FFI call made inside a transfer guard the answer switches off",
    }
)

# The review of 1818ab0: answers that change between the check's traces (a call counter), a
# kernel for the shown shape only, and terms that vanish on the real values only. Each check now
# reads the program its values came from, for every case, and A1.3's FFI result must be the answer.
_COUNTER = "import itertools\n_calls = itertools.count()\n"
_COPY_KERNEL = "def _copy(x_ref, o_ref):\n    o_ref[...] = x_ref[...]\n"
_COPY_COLUMNS = (
    "    spec = pl.BlockSpec((x.shape[0], block_cols), lambda j: (0, j))\n"
    "    k = pl.pallas_call(_copy, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
    "                       grid=(x.shape[1] // block_cols,), in_specs=[spec], out_specs=spec,\n"
    "                       interpret=INTERPRET)(x)\n"
)
WRONG_ANSWERS["A1.1"].update(
    {
        "jnp plus an exact-zero copy-kernel term, raising on the route checks' traces": (
            _COUNTER + _COPY_KERNEL + "def squared_difference(x, y):\n"
            "    if next(_calls) >= 4:\n"
            "        raise RuntimeError('not this time')\n"
            "    k = pl.pallas_call(_copy, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
            "                       interpret=INTERPRET)(x)\n"
            "    return (x - y) ** 2 + (k - x)"
        ),
        "the kernel for the shown shape only, jnp for the hidden ones": (
            _SQUARED_KERNEL + "def squared_difference(x, y):\n"
            "    if x.shape != (16, 32):\n"
            "        return (x - y) ** 2\n"
            "    return " + _SQUARED_CALL
        ),
    }
)
WRONG_ANSWERS["A1.2"].update(
    {
        "the row kernel on x.T for the values, a column-tiled copy for the later traces": (
            _COUNTER + _COPY_KERNEL + "def column_rms_norm(x, block_cols):\n"
            "    if next(_calls) < 4:\n"
            "        return rms_norm_ragged(x.T).T\n" + _COPY_COLUMNS + "    return k"
        ),
        "jnp plus an exact-zero copy-kernel term, the copy alone for the later traces": (
            _COUNTER
            + _COPY_KERNEL
            + "def column_rms_norm(x, block_cols):\n"
            + _COPY_COLUMNS
            + "    if next(_calls) >= 4:\n"
            "        return k\n"
            "    return x * jax.lax.rsqrt(jnp.mean(x * x, axis=0, keepdims=True) + EPS) + (k - x)"
        ),
    }
)
WRONG_ANSWERS["A1.3"].update(
    {
        "jnp sums plus min(FFI result, 0), zero on real sums only": (
            "def power_sum_ffi(x, power):\n"
            + _FFI_CALL
            + "    return jnp.sum(jnp.abs(x) ** power, axis=-1) + jnp.minimum(\n"
            "        call(x, power=np.int64(power)), 0)"
        ),
        "jnp.where(FFI result >= 0, jnp sums, FFI result)": (
            "def power_sum_ffi(x, power):\n"
            + _FFI_CALL
            + "    s = call(x, power=np.int64(power))\n"
            "    return jnp.where(s >= 0, jnp.sum(jnp.abs(x) ** power, axis=-1), s)"
        ),
        "jnp for the value traces, the FFI call for the route checks' traces": (
            _COUNTER + "def power_sum_ffi(x, power):\n"
            "    if next(_calls) < 4:\n"
            "        return jnp.sum(jnp.abs(x) ** power, axis=-1)\n"
            + _FFI_CALL
            + "    return call(x, power=np.int64(power))"
        ),
    }
)

# Honest answers in ordinary styles: each must score "solved" (names differ across answers, since
# all of them run in one kernel).
RIGHT_ANSWERS: dict[str, dict[str, str | tuple[str, ...]]] = {
    "A1.1": {
        "the kernel wrapped in jax.custom_vjp (the lesson's style)": (
            "def vjp_kernel(x_ref, y_ref, o_ref):\n"
            "    d = x_ref[...] - y_ref[...]\n"
            "    o_ref[...] = d * d\n\n\n"
            "def _difference_call(x, y):\n"
            "    return pl.pallas_call(vjp_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
            "                          interpret=INTERPRET)(x, y)\n\n\n"
            "@jax.custom_vjp\n"
            "def squared_difference(x, y):\n"
            "    return _difference_call(x, y)\n\n\n"
            "def _difference_fwd(x, y):\n"
            "    return _difference_call(x, y), (x, y)\n\n\n"
            "def _difference_bwd(residuals, g):\n"
            "    x, y = residuals\n"
            "    d = 2 * (x - y) * g\n"
            "    return d, -d\n\n\n"
            "squared_difference.defvjp(_difference_fwd, _difference_bwd)"
        ),
        "jax.jit-decorated, the kernel nested, functools.partial(pl.pallas_call)": (
            "@jax.jit\n"
            "def squared_difference(x, y):\n"
            "    def nested_kernel(x_ref, y_ref, o_ref):\n"
            "        o_ref[...] = jax.lax.square(jax.lax.sub(x_ref[...], y_ref[...]))\n\n"
            "    call = functools.partial(pl.pallas_call, interpret=INTERPRET)\n"
            "    return call(nested_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x, y)"
        ),
        "lax spelling, a helper for the difference, a standard-library import, a trial print": (
            "import math\n\n\n"
            "def _difference(a, b):\n    return jax.lax.sub(a, b)\n\n\n"
            "def lax_kernel(x_ref, y_ref, o_ref):\n"
            "    o_ref[...] = jax.lax.square(_difference(x_ref[...], y_ref[...]))\n\n\n"
            "def squared_difference(x, y):\n"
            "    out = jax.ShapeDtypeStruct(x.shape, x.dtype)\n"
            "    return pl.pallas_call(lax_kernel, out_shape=out, interpret=INTERPRET)(x, y)\n\n\n"
            "print(squared_difference(jnp.ones(3), jnp.zeros(3)), math.pi)"
        ),
        "jnp.square, the kernel and the wrapper in two cells, interpret=True spelled out": (
            "def square_kernel(x_ref, y_ref, o_ref):\n"
            "    o_ref[...] = jnp.square(x_ref[...] - y_ref[...])",
            "def squared_difference(x, y):\n"
            "    return pl.pallas_call(square_kernel,\n"
            "                          out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
            "                          interpret=True)(x, y)",
        ),
        "the power operator, the refs read with [:], a lambda wrapper": (
            "def power_kernel(x_ref, y_ref, o_ref):\n"
            "    o_ref[:] = (x_ref[:] - y_ref[:]) ** 2\n\n\n"
            "squared_difference = lambda x, y: pl.pallas_call(\n"
            "    power_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=INTERPRET\n"
            ")(x, y)"
        ),
    },
    "A1.2": {
        "the column kernel wrapped in jax.custom_vjp (the instructor note's extension)": (
            "def vjp_columns_kernel(x_ref, o_ref):\n"
            "    v = x_ref[...]\n"
            "    o_ref[...] = v * jax.lax.rsqrt(jnp.mean(v * v, axis=0, keepdims=True) + EPS)\n\n\n"
            "def _columns_tiled(x, block_cols):\n"
            "    spec = pl.BlockSpec((x.shape[0], block_cols), lambda j: (0, j))\n"
            "    return pl.pallas_call(vjp_columns_kernel,\n"
            "                          out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
            "                          grid=(x.shape[1] // block_cols,), in_specs=[spec],\n"
            "                          out_specs=spec, interpret=INTERPRET)(x)\n\n\n"
            "@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))\n"
            "def column_rms_norm(x, block_cols):\n"
            "    return _columns_tiled(x, block_cols)\n\n\n"
            "def _columns_fwd(x, block_cols):\n"
            "    return _columns_tiled(x, block_cols), x\n\n\n"
            "def _columns_bwd(block_cols, x, g):\n"
            "    r = jax.lax.rsqrt(jnp.mean(x * x, axis=0, keepdims=True) + EPS)\n"
            "    return (r * g - x * r**3 * jnp.mean(g * x, axis=0, keepdims=True),)\n\n\n"
            "column_rms_norm.defvjp(_columns_fwd, _columns_bwd)"
        ),
        "a BlockSpec helper, a pl.cdiv grid, sum / n and 1 / sqrt, a trial print": (
            "import math\n\n\n"
            "def columns_kernel(x_ref, o_ref):\n"
            "    v = x_ref[...]\n"
            "    mean_square = jnp.sum(v * v, axis=0, keepdims=True) / v.shape[0]\n"
            "    o_ref[...] = v / jnp.sqrt(mean_square + EPS)\n\n\n"
            "def column_spec(n, b):\n    return pl.BlockSpec((n, b), lambda j: (0, j))\n\n\n"
            "def column_rms_norm(x, block_cols):\n"
            "    n, width = x.shape\n"
            "    return pl.pallas_call(columns_kernel,\n"
            "                          out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
            "                          grid=(pl.cdiv(width, block_cols),),\n"
            "                          in_specs=[column_spec(n, block_cols)],\n"
            "                          out_specs=column_spec(n, block_cols),\n"
            "                          interpret=INTERPRET)(x)\n\n\n"
            "print(column_rms_norm(jnp.ones((4, 8)), 2).shape, math.e)"
        ),
        "lax reductions, keyword BlockSpec arguments, in_specs as a tuple, in two cells": (
            "def lax_columns_kernel(x_ref, o_ref):\n"
            "    v = x_ref[:, :]\n"
            "    mean_square = jax.lax.reduce_sum(v * v, axes=(0,))[None, :] / v.shape[0]\n"
            "    o_ref[:, :] = v * jax.lax.rsqrt(mean_square + EPS)",
            "def column_rms_norm(x, block_cols):\n"
            "    spec = pl.BlockSpec(block_shape=(x.shape[0], block_cols), index_map=lambda j: (0, j))\n"
            "    return pl.pallas_call(lax_columns_kernel,\n"
            "                          out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
            "                          grid=(x.shape[1] // block_cols,), in_specs=(spec,),\n"
            "                          out_specs=spec, interpret=INTERPRET)(x)",
        ),
    },
    "A1.3": {
        "jax.jit with a static power, a Python int attribute": (
            "@functools.partial(jax.jit, static_argnames='power')\n"
            "def power_sum_ffi(x, power):\n"
            "    out = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n"
            "    return jax.ffi.ffi_call(power_sum_target, out, vmap_method='broadcast_all')(\n"
            "        x, power=power)"
        ),
        "a Python int power, expand_dims, a helper, a standard-library import, a trial print": (
            "import math\n\n\n"
            "def _power_sum_call(shape, dtype):\n"
            "    return jax.ffi.ffi_call(power_sum_target, jax.ShapeDtypeStruct(shape, dtype),\n"
            "                            vmap_method='expand_dims')\n\n\n"
            "def power_sum_ffi(x, power):\n"
            "    return _power_sum_call(x.shape[:-1], x.dtype)(x, power=int(power))\n\n\n"
            "print(power_sum_ffi(jnp.ones((2, 3)), 2), math.tau)"
        ),
        "np.int64, ffi_call's arguments by keyword, in two cells": (
            "def make_power_sum(x):\n"
            "    return jax.ffi.ffi_call(target_name=power_sum_target,\n"
            "                            result_shape_dtypes=jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32),\n"
            "                            vmap_method='broadcast_all')",
            "def power_sum_ffi(x, power):\n    return make_power_sum(x)(x, power=np.int64(power))",
        ),
    },
}
