"""Notebook 02_transformations: the wrong answers its checks must reject, and which of them stands
for each kind of lazy answer (see :mod:`tests.notebooks`)."""

from __future__ import annotations

WRONG_ANSWERS: dict[str, dict[str, str]] = {
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
        "NumPy on concrete values, the convolution when traced": (
            "def downsample_conv(images, kernels):\n    try:\n        x, k = np.asarray(images), np.asarray(kernels)\n        kh, kw = k.shape[:2]\n        oh, ow = (x.shape[1] - kh) // 2 + 1, (x.shape[2] - kw) // 2 + 1\n        out = sum(np.einsum('nhwc,co->nhwo', x[:, i:i + 2 * oh - 1:2, j:j + 2 * ow - 1:2, :], k[i, j])\n                  for i in range(kh) for j in range(kw))\n        return jnp.asarray(out.astype(x.dtype))\n    except Exception:\n        return lax.conv_general_dilated(images, kernels, (2, 2), 'VALID', dimension_numbers=('NHWC', 'HWIO', 'NHWC'))\n"
        ),
        "strided slices and einsum plus 0 * the strided convolution": (
            "def downsample_conv(images, kernels):\n    kh, kw = kernels.shape[:2]\n    oh, ow = (images.shape[1] - kh) // 2 + 1, (images.shape[2] - kw) // 2 + 1\n    out = sum(jnp.einsum('nhwc,co->nhwo', images[:, i:i + 2 * oh - 1:2, j:j + 2 * ow - 1:2, :], kernels[i, j])\n              for i in range(kh) for j in range(kw))\n    taught = lax.conv_general_dilated(images, kernels, (2, 2), 'VALID', dimension_numbers=('NHWC', 'HWIO', 'NHWC'))\n    return out + 0 * taught\n"
        ),
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
}

COVERAGE: dict[str, dict[str, str]] = {
    "02.1": {
        "hard-coded": "hard-coded three vmaps",
        "twin route": "lax.map over the examples",
        "tailored": "jnp.vectorize with cosine's signature",
        "default": "f unchanged: broadcasting left to do the batching",
        "elsewhere": "each example computed through NumPy on the host",
        "reference": "the check's reference called back from the mapped function",
        "idle": "vmaps built and thrown away beside a loop",
        "split across calls": "n/a: the check sets no per-call bound: one call of the answer is judged whole",
        "unwatched": "n/a: the check sets no budget on where arrays are made or how much memory the answer uses; it judges the returned values and the traced route",
        "host inside": "n/a: the taught operation is one primitive with no body (loop, kernel or shard_map) a callback could sit in; a callback anywhere in the answer is refused as 'elsewhere'",
    },
    "02.2": {
        "hard-coded": "hard-coded padding of 3",
        "twin route": "NumPy, not compiled",
        "tailored": "assumes a non-empty x",
        "default": "zeros in the default dtype",
        "elsewhere": "padded on the host in a callback",
        "reference": "the check's reference called back",
        "idle": "a jitted version built and not used",
        "split across calls": "n/a: the check sets no per-call bound: one call of the answer is judged whole",
        "unwatched": "n/a: the check sets no budget on where arrays are made or how much memory the answer uses; it judges the returned values and the traced route",
        "host inside": "padded on the host in a callback",
    },
    "02.3": {
        "hard-coded": "hard-coded output",
        "twin route": "stride 1, then every other output",
        "tailored": "SAME padding cropped to the 16x16 example's output",
        "default": "default dimension numbers",
        "elsewhere": "correlated on the host in a callback",
        "reference": "the check's reference called back",
        "idle": "an idle strided convolution beside windows sliced by hand",
        "times zero": "strided slices and einsum plus 0 * the strided convolution",
        "switches when traced": "NumPy on concrete values, the convolution when traced",
        "split across calls": "n/a: the check sets no per-call bound: one call of the answer is judged whole",
        "unwatched": "n/a: the check sets no budget on where arrays are made or how much memory the answer uses; it judges the returned values and the traced route",
        "host inside": "correlated on the host in a callback",
    },
    "02.4": {
        "hard-coded": "hard-coded results",
        "twin route": "inputs deleted by hand, memory not reused",
        "tailored": "learning rate fixed at the example's 0.1",
        "default": "no donation",
        "elsewhere": "computed on the host in a callback, with donation",
        "reference": "the check's reference called with a guessed seed",
        "idle": "a donating step built and not used",
        "split across calls": "n/a: the check sets no per-call bound: one call of the answer is judged whole",
        "unwatched": "n/a: the check sets no budget on where arrays are made or how much memory the answer uses; it judges the returned values and the traced route",
        "host inside": "computed on the host in a callback, with donation",
    },
}

# Issue 38's kinds not yet named above.
WRONG_ANSWERS["02.1"].update(
    {
        "a Python loop per example, plus 0 * the vmapped result": (
            "def vmap_n(f, n):\n"
            "    batched = f\n"
            "    for _ in range(n):\n"
            "        batched = jax.vmap(batched)\n"
            "    def mapped(*args):\n"
            "        batch = args[0].shape[:n]\n"
            "        outs = [f(*(a[i] for a in args)) for i in np.ndindex(*batch)]\n"
            "        looped = jax.tree.map(\n"
            "            lambda *leaves: jnp.stack(leaves).reshape(batch + jnp.shape(leaves[0])), *outs)\n"
            "        return jax.tree.map(lambda a, b: a + 0 * b, looped, batched(*args))\n"
            "    return mapped"
        ),
        "NumPy per example on concrete arrays, vmap only when traced": (
            "def vmap_n(f, n):\n"
            "    batched = f\n"
            "    for _ in range(n):\n"
            "        batched = jax.vmap(batched)\n"
            "    def mapped(*args):\n"
            "        try:\n"
            "            host = [np.asarray(a) for a in args]\n"
            "        except Exception:\n"
            "            return batched(*args)\n"
            "        batch = host[0].shape[:n]\n"
            "        outs = [f(*(a[i] for a in host)) for i in np.ndindex(*batch)]\n"
            "        return jax.tree.map(\n"
            "            lambda *leaves: jnp.asarray(np.stack([np.asarray(v) for v in leaves])"
            ".reshape(batch + np.shape(leaves[0]))),\n"
            "            *outs)\n"
            "    return mapped"
        ),
        "the vmaps built inside a transfer guard the answer switches off": (
            "def vmap_n(f, n):\n"
            "    with jax.transfer_guard('allow'):\n"
            "        for _ in range(n):\n"
            "            f = jax.vmap(f)\n"
            "    return f"
        ),
    }
)
WRONG_ANSWERS["02.2"].update(
    {
        "padded on the host in a callback, plus 0 * jnp.pad": (
            "def zero_pad(x, length):\n"
            "    shape = jax.ShapeDtypeStruct((length,), x.dtype)\n"
            "    host = jax.pure_callback(lambda v: np.pad(v, (0, length - v.shape[0])), shape, x)\n"
            "    return host + 0 * jnp.pad(x, (0, length - x.shape[0]))\n\n"
            "pad_to = jax.jit(zero_pad, static_argnames='length')"
        ),
        "NumPy on concrete arrays, the jitted pad only when traced": (
            "def zero_pad(x, length):\n"
            "    return jnp.pad(x, (0, length - x.shape[0]))\n\n"
            "compiled_pad = jax.jit(zero_pad, static_argnames='length')\n\n"
            "def pad_to(x, length):\n"
            "    try:\n"
            "        return jnp.asarray(np.pad(np.asarray(x), (0, length - len(x))))\n"
            "    except Exception:\n"
            "        return compiled_pad(x, length=length)"
        ),
        "padded inside a transfer guard the answer switches off": (
            "def zero_pad(x, length):\n"
            "    with jax.transfer_guard('allow'):\n"
            "        return jnp.pad(x, (0, length - x.shape[0]))\n\n"
            "pad_to = jax.jit(zero_pad, static_argnames='length')"
        ),
    }
)
WRONG_ANSWERS["02.3"]["the convolution inside a transfer guard the answer switches off"] = (
    "def downsample_conv(images, kernels):\n"
    "    with jax.transfer_guard('allow'):\n"
    "        return lax.conv_general_dilated(images, kernels, (2, 2), 'VALID',\n"
    "                                        dimension_numbers=('NHWC', 'HWIO', 'NHWC'))"
)
WRONG_ANSWERS["02.4"].update(
    {
        "a plain step's results plus 0 * a donating step's": (
            "def momentum_update(params, velocity, grads, lr):\n"
            "    velocity = 0.9 * velocity + grads\n"
            "    return params - lr * velocity, velocity\n\n"
            "plain_step = jax.jit(momentum_update)\n"
            "donating_step = jax.jit(momentum_update, donate_argnames=('params', 'velocity'))\n\n"
            "def momentum_step(params, velocity, grads, lr):\n"
            "    p, v = plain_step(params, velocity, grads, lr)\n"
            "    dp, dv = donating_step(params, velocity, grads, lr)\n"
            "    return p + 0 * dp, v + 0 * dv"
        ),
        "NumPy on concrete arrays, the donating step only when traced": (
            "def momentum_update(params, velocity, grads, lr):\n"
            "    velocity = 0.9 * velocity + grads\n"
            "    return params - lr * velocity, velocity\n\n"
            "donating_step = jax.jit(momentum_update, donate_argnames=('params', 'velocity'))\n\n"
            "def momentum_step(params, velocity, grads, lr):\n"
            "    try:\n"
            "        p, v, g = (np.asarray(a) for a in (params, velocity, grads))\n"
            "    except Exception:\n"
            "        return donating_step(params, velocity, grads, lr)\n"
            "    v = 0.9 * v + g\n"
            "    return jnp.asarray(p - lr * v), jnp.asarray(v)"
        ),
        "the update traced inside a transfer guard the answer switches off": (
            "def momentum_update(params, velocity, grads, lr):\n"
            "    with jax.transfer_guard('allow'):\n"
            "        velocity = 0.9 * velocity + grads\n"
            "        return params - lr * velocity, velocity\n\n"
            "momentum_step = jax.jit(momentum_update, donate_argnames=('params', 'velocity'))"
        ),
    }
)
COVERAGE["02.1"].update(
    {
        "times zero": "a Python loop per example, plus 0 * the vmapped result",
        "switches when traced": "NumPy per example on concrete arrays, vmap only when traced",
        "environment": "the vmaps built inside a transfer guard the answer switches off",
    }
)
COVERAGE["02.2"].update(
    {
        "times zero": "padded on the host in a callback, plus 0 * jnp.pad",
        "switches when traced": "NumPy on concrete arrays, the jitted pad only when traced",
        "environment": "padded inside a transfer guard the answer switches off",
    }
)
COVERAGE["02.3"]["environment"] = "the convolution inside a transfer guard the answer switches off"
COVERAGE["02.4"].update(
    {
        "times zero": "a plain step's results plus 0 * a donating step's",
        "switches when traced": "NumPy on concrete arrays, the donating step only when traced",
        "environment": "the update traced inside a transfer guard the answer switches off",
    }
)


# Honest answers in ordinary styles (issue 38, "Must hold"): each must score "solved".
RIGHT_ANSWERS: dict[str, dict[str, str | tuple[str, ...]]] = {
    "02.1": {
        "functools.reduce": "import functools\n\n\ndef vmap_n(f, n):\n    return functools.reduce(lambda g, _: jax.vmap(g), range(n), f)",
        "recursion": "def vmap_n(f, n):\n    if n == 0:\n        return f\n    return jax.vmap(vmap_n(f, n - 1))",
        "explicit in_axes, while loop, print": "def vmap_n(f, n):\n    mapped = f\n    while n > 0:\n        mapped = jax.vmap(mapped, in_axes=0, out_axes=0)\n        n -= 1\n    return mapped\n\n\nprint(vmap_n(jnp.sum, 1)(jnp.ones((2, 3))))",
    },
    "02.2": {
        "static_argnums": "def zero_pad(x, length):\n    return jnp.pad(x, (0, length - x.shape[0]))\n\n\npad_to = jax.jit(zero_pad, static_argnums=1)",
        "lax.pad, helper, two cells": (
            "from jax import lax\n\n\ndef zero_pad(x, length):\n    return lax.pad(x, jnp.zeros((), x.dtype), [(0, length - x.shape[0], 0)])",
            "pad_to = jax.jit(zero_pad, static_argnames=['length'])",
        ),
        "at[].set into zeros, partial, print": "import functools\n\n\ndef zero_pad(x, length):\n    return jnp.zeros(length, x.dtype).at[: x.shape[0]].set(x)\n\n\npad_to = functools.partial(jax.jit, static_argnames='length')(zero_pad)\nprint(pad_to(jnp.arange(3), length=5))",
        "concatenate": "def zero_pad(x, length):\n    return jnp.concatenate([x, jnp.zeros(length - len(x), dtype=x.dtype)])\n\n\npad_to = jax.jit(zero_pad, static_argnames=('length',))",
    },
    "02.3": {
        "conv_dimension_numbers": "def downsample_conv(images, kernels):\n    numbers = lax.conv_dimension_numbers(images.shape, kernels.shape, ('NHWC', 'HWIO', 'NHWC'))\n    return lax.conv_general_dilated(images, kernels, (2, 2), 'VALID', dimension_numbers=numbers)",
        "NCHW transposes, helper": "def to_nchw(images):\n    return jnp.transpose(images, (0, 3, 1, 2))\n\n\ndef downsample_conv(images, kernels):\n    out = jax.lax.conv_general_dilated(to_nchw(images), jnp.transpose(kernels, (3, 2, 0, 1)), window_strides=[2, 2], padding=[(0, 0), (0, 0)])\n    return jnp.transpose(out, (0, 2, 3, 1))",
        "print, two cells": (
            "from jax import lax as L",
            "def downsample_conv(images, kernels):\n    out = L.conv_general_dilated(images, kernels, window_strides=(2, 2), padding='VALID', dimension_numbers=('NHWC', 'HWIO', 'NHWC'))\n    print('output shape', out.shape)\n    return out",
        ),
    },
    "02.4": {
        "donate_argnums": "def momentum_update(params, velocity, grads, lr):\n    velocity = 0.9 * velocity + grads\n    params = params - lr * velocity\n    return params, velocity\n\n\nmomentum_step = jax.jit(momentum_update, donate_argnums=(0, 1))",
        "partial, two cells": (
            "def momentum_update(params, velocity, grads, lr):\n    new_velocity = velocity * 0.9 + grads\n    return params - lr * new_velocity, new_velocity",
            "import functools\n\nmomentum_step = functools.partial(jax.jit, donate_argnames=['params', 'velocity'])(momentum_update)",
        ),
        "tree.map helper, print": "def momentum_update(params, velocity, grads, lr):\n    velocity = jax.tree.map(lambda v, g: 0.9 * v + g, velocity, grads)\n    return jax.tree.map(lambda p, v: p - lr * v, params, velocity), velocity\n\n\nmomentum_step = jax.jit(momentum_update, donate_argnums=[0, 1])\nprint(momentum_step.lower(jnp.ones(2), jnp.ones(2), jnp.ones(2), 0.1).args_info)",
    },
}


# The review of 1818ab0 (/work/tmp/review-02_transformations.md): its lazy answers (each now rejected) and
# its honest ones (each solved).
WRONG_ANSWERS["02.1"][
    "lookup table: hand-vectorized versions of the visible hidden functions (no vmap)"
] = "def vmap_n(f, n):\n    if n == 0:\n        return f\n    def mapped(*args):\n        if f is cosine:\n            a, b = args\n            return jnp.einsum('...k,...k->...', a, b) / (jnp.linalg.norm(a, axis=-1) * jnp.linalg.norm(b, axis=-1))\n        if f is peak_response:\n            x, w, bias = args\n            return jnp.max(jnp.sin(frequency * x) * w, axis=-1) + bias\n        m = args[0]\n        gram = m @ jnp.swapaxes(m, -1, -2)\n        return {'energy': weight * jnp.sum(gram * gram, axis=(-2, -1)), 'rows': jnp.exp(-jnp.abs(m)).sum(axis=-1)}\n    return mapped"
WRONG_ANSWERS["02.1"]["Python loop over examples, each example under jax.checkpoint"] = (
    "def vmap_n(f, n):\n    one = jax.checkpoint(f)\n    def mapped(*args):\n        batch = args[0].shape[:n]\n        outs = [one(*(a[i] for a in args)) for i in np.ndindex(*batch)]\n        return jax.tree.map(lambda *leaves: jnp.stack(leaves).reshape(batch + jnp.shape(leaves[0])), *outs)\n    return mapped if n else f"
)
RIGHT_ANSWERS.setdefault("02.1", {})["flatten the n axes, one vmap, reshape back"] = (
    "def vmap_n(f, n):\n    if n == 0:\n        return f\n    def mapped(*args):\n        batch = args[0].shape[:n]\n        flat = [a.reshape((-1,) + a.shape[n:]) for a in args]\n        out = jax.vmap(f)(*flat)\n        return jax.tree.map(lambda y: y.reshape(batch + y.shape[1:]), out)\n    return mapped"
)
RIGHT_ANSWERS.setdefault("02.1", {})["functools.reduce, in two cells with a trial print"] = (
    "import functools\n\ndef vmap_n(f, n):\n    return functools.reduce(lambda g, _: jax.vmap(g), range(n), f)",
    "print(vmap_n(lambda a: a * 2, 2)(jnp.ones((2, 3))).shape)",
)
WRONG_ANSWERS["02.1"]["lookup for the visible functions, a Python loop for anything else"] = (
    "def vmap_n(f, n):\n    if n == 0:\n        return f\n    def mapped(*args):\n        if f is peak_response:\n            x, w, bias = args\n            return jnp.max(jnp.sin(frequency * x) * w, axis=-1) + bias\n        if f is gram_summary:\n            m = args[0]\n            gram = m @ jnp.swapaxes(m, -1, -2)\n            return {'energy': weight * jnp.sum(gram * gram, axis=(-2, -1)), 'rows': jnp.exp(-jnp.abs(m)).sum(axis=-1)}\n        a, b = args\n        return jnp.einsum('...k,...k->...', a, b) / (jnp.linalg.norm(a, axis=-1) * jnp.linalg.norm(b, axis=-1))\n    return mapped"
)
RIGHT_ANSWERS.setdefault("02.2", {})["static_argnums=1 (length passed by name)"] = (
    "def zero_pad(x, length):\n    return jnp.pad(x, (0, length - x.shape[0]))\n\npad_to = jax.jit(zero_pad, static_argnums=1)"
)
RIGHT_ANSWERS.setdefault("02.2", {})["lax.pad spelling with a decorator"] = (
    "import functools\n\n@functools.partial(jax.jit, static_argnames=('length',))\ndef zero_pad(x, length):\n    return lax.pad(x, jnp.zeros((), x.dtype), [(0, length - x.shape[0], 0)])\n\npad_to = zero_pad"
)
WRONG_ANSWERS["02.2"]["length smuggled through the shape of a dummy array (not static)"] = (
    "def zero_pad(x, length):\n    return jnp.pad(x, (0, length - x.shape[0]))\n\n_inner = jax.jit(lambda x, like: jnp.pad(x, (0, like.shape[0] - x.shape[0])))\npad_by_shape = jax.jit(lambda x, like: jnp.pad(x, (0, like.shape[0] - x.shape[0])))\n\nclass_free = None\ndef pad_to(x, length):\n    return pad_by_shape(x, jnp.empty((length,), x.dtype))\n"
)
RIGHT_ANSWERS.setdefault("02.2", {})["two cells: the body, then the jit"] = (
    "def zero_pad(x, length):\n    return jnp.concatenate([x, jnp.zeros((length - x.shape[0],), x.dtype)])",
    "pad_to = jax.jit(zero_pad, static_argnames=['length'])\nprint(pad_to(jnp.arange(3.0), length=5))",
)
WRONG_ANSWERS["02.3"][
    "one strided identity-kernel conv for patches (conv_general_dilated_patches), einsum does the work"
] = "def downsample_conv(images, kernels):\n    kh, kw, c, o = kernels.shape\n    patches = lax.conv_general_dilated_patches(images, (kh, kw), (2, 2), 'VALID',\n                                               dimension_numbers=('NHWC', 'HWIO', 'NHWC'))\n    # patches: (n, h, w, c*kh*kw) ordered (c, kh, kw)\n    k = jnp.transpose(kernels, (2, 0, 1, 3)).reshape(c * kh * kw, o)\n    return jnp.einsum('nhwp,po->nhwo', patches, k)"
WRONG_ANSWERS["02.3"][
    "strided 1x1 conv with ones (a subsample), windows summed by hand with einsum"
] = "def downsample_conv(images, kernels):\n    kh, kw, c, o = kernels.shape\n    oh, ow = (images.shape[1] - kh) // 2 + 1, (images.shape[2] - kw) // 2 + 1\n    stacked = jnp.concatenate([images[:, i:i + 2 * oh - 1, j:j + 2 * ow - 1, :] for i in range(kh) for j in range(kw)], axis=-1)\n    eye = jnp.eye(stacked.shape[-1], dtype=images.dtype).reshape(1, 1, stacked.shape[-1], stacked.shape[-1])\n    sub = lax.conv_general_dilated(stacked, eye, (2, 2), 'VALID', dimension_numbers=('NHWC', 'HWIO', 'NHWC'))\n    return jnp.einsum('nhwp,po->nhwo', sub, kernels.reshape(kh * kw * c, o))"
RIGHT_ANSWERS.setdefault("02.3", {})[
    "transposes to NCHW/OIHW and the default dimension numbers"
] = "def downsample_conv(images, kernels):\n    x = jnp.transpose(images, (0, 3, 1, 2))\n    k = jnp.transpose(kernels, (3, 2, 0, 1))\n    y = lax.conv_general_dilated(x, k, window_strides=(2, 2), padding='VALID')\n    return jnp.transpose(y, (0, 2, 3, 1))"
RIGHT_ANSWERS.setdefault("02.3", {})[
    "conv_dimension_numbers + explicit zero padding, trial print"
] = "def downsample_conv(images, kernels):\n    dn = lax.conv_dimension_numbers(images.shape, kernels.shape, ('NHWC', 'HWIO', 'NHWC'))\n    return lax.conv_general_dilated(images, kernels, (2, 2), ((0, 0), (0, 0)), dimension_numbers=dn)\n\nprint(downsample_conv(images, kernels).shape)"
RIGHT_ANSWERS.setdefault("02.3", {})["explicit precision and preferred_element_type"] = (
    "def downsample_conv(images, kernels):\n    return lax.conv_general_dilated(images, kernels, (2, 2), 'VALID',\n        dimension_numbers=('NHWC', 'HWIO', 'NHWC'), precision=lax.Precision.HIGHEST,\n        preferred_element_type=jnp.float32)"
)
WRONG_ANSWERS["02.3"][
    "depthwise strided conv per tap (feature_group_count), channel mixing by einsum"
] = "def downsample_conv(images, kernels):\n    kh, kw, c, o = kernels.shape\n    # one depthwise conv: each input channel convolved with a one-hot tap filter per (i, j)\n    taps = jnp.eye(kh * kw, dtype=images.dtype).reshape(kh, kw, 1, kh * kw)\n    taps = jnp.tile(taps, (1, 1, 1, c))\n    sub = lax.conv_general_dilated(images, taps, (2, 2), 'VALID', dimension_numbers=('NHWC', 'HWIO', 'NHWC'),\n                                   feature_group_count=c)\n    sub = sub.reshape(sub.shape[:3] + (c, kh * kw))\n    return jnp.einsum('nhwct,tco->nhwo', sub, kernels.reshape(kh * kw, c, o))"
WRONG_ANSWERS["02.4"]["host callback except on the route check's (3,) probe shape"] = (
    "def momentum_update(params, velocity, grads, lr):\n    if params.shape == (3,):\n        velocity = 0.9 * velocity + grads\n        return params - lr * velocity, velocity\n    def host(p, v, g, rate):\n        v = 0.9 * v + g\n        return (p - rate * v).astype(np.float32), v.astype(np.float32)\n    shapes = (jax.ShapeDtypeStruct(params.shape, jnp.float32),) * 2\n    return jax.pure_callback(host, shapes, params, velocity, grads, lr)\n\nmomentum_step = jax.jit(momentum_update, donate_argnames=('params', 'velocity'))"
)
WRONG_ANSWERS["02.4"][
    "host callback; probe's lr 0.1 is a Python float (the cases' too?): weak-typed switch"
] = "def momentum_update(params, velocity, grads, lr):\n    def host(p, v, g, rate):\n        v = 0.9 * v + g\n        return (p - rate * v).astype(np.float32), v.astype(np.float32)\n    shapes = (jax.ShapeDtypeStruct(params.shape, jnp.float32),) * 2\n    return jax.pure_callback(host, shapes, params, velocity, grads, lr)\n\nplain = jax.jit(momentum_update, donate_argnames=('params', 'velocity'))\nmomentum_step = plain"
RIGHT_ANSWERS.setdefault("02.4", {})["donate_argnums=(0, 1), decorator style"] = (
    "import functools\n\n@functools.partial(jax.jit, donate_argnums=(0, 1))\ndef momentum_update(params, velocity, grads, lr):\n    velocity = 0.9 * velocity + grads\n    return params - lr * velocity, velocity\n\nmomentum_step = momentum_update"
)
RIGHT_ANSWERS.setdefault("02.4", {})["a helper, optax-style names"] = (
    "def sgd_momentum(p, v, g, lr, beta=0.9):\n    v = beta * v + g\n    return p - lr * v, v\n\ndef momentum_update(params, velocity, grads, lr):\n    return sgd_momentum(params, velocity, grads, lr)\n\nmomentum_step = jax.jit(momentum_update, donate_argnames=['params', 'velocity'])"
)
RIGHT_ANSWERS.setdefault("02.4", {})["lr static (recompiles per rate, but correct)"] = (
    "def momentum_update(params, velocity, grads, lr):\n    velocity = 0.9 * velocity + grads\n    return params - lr * velocity, velocity\n\nmomentum_step = jax.jit(momentum_update, donate_argnames=('params', 'velocity'), static_argnames='lr')"
)
WRONG_ANSWERS["02.4"]["host callback except for 1-D inputs (the shown case and the probe)"] = (
    "def momentum_update(params, velocity, grads, lr):\n    if params.ndim == 1 and params.shape[0] > 1:\n        velocity = 0.9 * velocity + grads\n        return params - lr * velocity, velocity\n    def host(p, v, g, rate):\n        v = 0.9 * v + g\n        return (p - rate * v).astype(np.float32), v.astype(np.float32)\n    shapes = (jax.ShapeDtypeStruct(params.shape, jnp.float32),) * 2\n    return jax.pure_callback(host, shapes, params, velocity, grads, lr)\n\nmomentum_step = jax.jit(momentum_update, donate_argnames=('params', 'velocity'))"
)
