"""Notebook 05_async: the wrong answers its checks must reject, and which of them stands
for each kind of lazy answer (see :mod:`tests.notebooks`)."""

from __future__ import annotations

WRONG_ANSWERS: dict[str, dict[str, str]] = {
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
        "a timer's reading times zero, plus a typical figure": (
            "def honest_time(f, x, repeats=7):\n    jax.block_until_ready(f(x))\n    t0 = time.perf_counter()\n    jax.block_until_ready(f(x))\n    return 0 * (time.perf_counter() - t0) + 0.004"
        ),
        "async dispatch switched off, then no wait": (
            "def honest_time(f, x, repeats=7):\n    jax.config.update('jax_cpu_enable_async_dispatch', False)\n    f(x)\n    times = []\n    for _ in range(repeats):\n        t0 = time.perf_counter()\n        f(x)\n        times.append(time.perf_counter() - t0)\n    return float(np.median(times))"
        ),
        "repeats ignored: twenty timed calls": "def honest_time(f, x, repeats=7):\n    jax.block_until_ready(f(x))\n    times = []\n    for _ in range(20):\n        t0 = time.perf_counter()\n        jax.block_until_ready(f(x))\n        times.append(time.perf_counter() - t0)\n    return float(np.median(times))",
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
        "XLA's cost analysis through the runtime executable": (
            "def arithmetic_intensity(op, size):\n"
            "    if op == 'f':\n"
            "        fn, shapes = (lambda v: 3 * v + 1), [(size,)]\n"
            "    else:\n"
            "        fn, shapes = (lambda p, q: p @ q), [(size, size), (size, size)]\n"
            "    args = [jax.ShapeDtypeStruct(s, jnp.float32) for s in shapes]\n"
            "    compiled = jax.jit(fn).lower(*args).compile()\n"
            "    cost = compiled.runtime_executable().cost_analysis()\n"
            "    cost = cost[0] if isinstance(cost, list) else cost\n"
            "    return cost['flops'] / cost['bytes accessed']\n\n\n"
            "def is_memory_bound(op, size, ridge):\n"
            "    return arithmetic_intensity(op, size) < ridge"
        ),
        "bytes counted, then unused: FLOPs per value": (
            "def arithmetic_intensity(op, size):\n"
            "    moved = 8 * size if op == 'f' else 12 * size**2\n"
            "    return 2.0 if op == 'f' else 2 * size**3 / size**2\n\n\n"
            "def is_memory_bound(op, size, ridge):\n"
            "    return arithmetic_intensity(op, size) < ridge"
        ),
        "XLA's count made in a child Python": (
            "def arithmetic_intensity(op, size):\n    import subprocess, sys\n    shapes = '[(s,)]' if op == 'f' else '[(s, s), (s, s)]'\n    fn = '(lambda v: 3 * v + 1)' if op == 'f' else '(lambda p, q: p @ q)'\n    code = (f'import jax, jax.numpy as jnp; s = {size}; '\n            f'args = [jax.ShapeDtypeStruct(t, jnp.float32) for t in {shapes}]; '\n            f'c = jax.jit({fn}).lower(*args).compile().cost_analysis(); '\n            \"c = c[0] if isinstance(c, list) else c; print(c['flops'] / c['bytes accessed'])\")\n    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)\n    return float(out.stdout)\n\n\ndef is_memory_bound(op, size, ridge):\n    return arithmetic_intensity(op, size) < ridge"
        ),
        "JAX's roofline estimator counting the matmul (review of 1818ab0)": "from jax.experimental import roofline\n\n\ndef arithmetic_intensity(op, size):\n    if op == 'f':\n        return 2 * size / (8 * size)\n    spec = jax.ShapeDtypeStruct((size, size), jnp.float32)\n    _, result = roofline.roofline(lambda p, q: p @ q)(spec, spec)\n    return result.flops / result.hbm_bytes\n\n\ndef is_memory_bound(op, size, ridge):\n    return arithmetic_intensity(op, size) < ridge",
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
        "Newton in NumPy in a callback, passed through a fori_loop": (
            "def newton_sqrt(a, steps):\n"
            "    def on_host(a, steps):\n"
            "        x = np.ones_like(a)\n"
            "        for _ in range(int(steps)):\n"
            "            x = np.float32(0.5) * (x + a / x)\n"
            "        return x.astype(a.dtype)\n"
            "    x = jax.pure_callback(on_host, jax.ShapeDtypeStruct(a.shape, a.dtype), a, steps)\n"
            "    return lax.fori_loop(0, steps, lambda i, v: v * 1.0, x)"
        ),
        "an idle fori_loop beside a fixed unrolled loop": (
            "def newton_sqrt(a, steps):\n"
            "    lax.fori_loop(0, steps, lambda i, x: 0.5 * (x + a / x), jnp.ones_like(a))\n"
            "    x = jnp.ones_like(a)\n"
            "    for i in range(40):  # unrolled; steps only masks the tail\n"
            "        x = jnp.where(i < steps, 0.5 * (x + a / x), x)\n"
            "    return x"
        ),
        "a fori_loop times zero beside an unrolled loop": (
            "def newton_sqrt(a, steps):\n    loop = lax.fori_loop(0, steps, lambda i, x: 0.5 * (x + a / x), jnp.ones_like(a))\n    x = jnp.ones_like(a)\n    for i in range(40):\n        x = jnp.where(i < steps, 0.5 * (x + a / x), x)\n    return x + 0 * loop"
        ),
        "jit switched off, then a Python loop": (
            "def newton_sqrt(a, steps):\n    with jax.disable_jit():\n        x = jnp.ones_like(a)\n        for _ in range(int(steps)):\n            x = 0.5 * (x + a / x)\n    return x"
        ),
        "a closed form of the k-th iterate, the loop only counting (review of 1818ab0)": "def newton_sqrt(a, steps):\n    k = lax.fori_loop(0, steps, lambda i, k: k * 2.0, jnp.float32(1.0))\n    s = jnp.sqrt(a)\n    r = ((1 - s) / (1 + s)) ** k\n    return s * (1 + r) / (1 - r)",
        "a loop whose body ignores its carry, each iterate from a closed form": "def newton_sqrt(a, steps):\n    s = jnp.sqrt(a)\n    r0 = (1 - s) / (1 + s)\n    def body(i, x):\n        r = r0 ** (2.0 ** (i + 1))\n        return s * (1 + r) / (1 - r)\n    return lax.fori_loop(0, steps, body, jnp.ones_like(a))",
    },
}

COVERAGE: dict[str, dict[str, str]] = {
    "05.1": {
        "hard-coded": "hard-coded figure",
        "twin route": "np.asarray as the wait",
        "tailored": "tailored: a warm-up only when repeats is small",
        "default": "timeit's defaults: no warm-up, no wait",
        "elsewhere": "timed on a host copy of x",
        "reference": "ah.benchmark instead of a timer of one's own",
        "idle": "block_until_ready on the input, the output unused",
        "times zero": "a timer's reading times zero, plus a typical figure",
        "switches when traced": "n/a: honest_time is called with Python callables and concrete arrays and is never traced, so there is no traced route to switch to",
        "split across calls": "n/a: there is no per-call bound: the figure returned is compared with the check's own timing of the same calls, however many there are",
        "unwatched": "n/a: the answer is one number compared with timings the check makes itself; there is no memory or work budget that work elsewhere could escape",
        "host inside": "n/a: the exercise is timing on the host; there is no device construct for the host to take the work into",
        "environment": "async dispatch switched off, then no wait",
    },
    "05.2": {
        "hard-coded": "hard-coded figures of the example",
        "twin route": "XLA's cost analysis instead of counting",
        "tailored": "this machine's ridge, not the one given",
        "default": "the ridge ignored (elementwise always memory-bound)",
        "elsewhere": "n/a: the answer is two numbers worked out from an operation's name and "
        "size; no array is made, so no work can be done on one device or the host and placed",
        "reference": "the check's xla_answer called",
        "idle": "bytes counted, then unused: FLOPs per value",
        "times zero": "n/a: the answer is arithmetic on Python numbers; no JAX operation is taught whose outputs could be cancelled",
        "switches when traced": "n/a: the check calls the answer with Python ints and floats and never traces it: there is one route only",
        "split across calls": "n/a: there is no per-call bound: the check compares two numbers per case and keeps XLA's counts out of reach on every call alike",
        "unwatched": "XLA's count made in a child Python",
        "host inside": "n/a: the answer is host arithmetic by design; there is no device construct the host could take work into",
        "environment": "n/a: the answer's numbers depend on no configuration, transfer guard or mesh, so changing them cannot change what the check compares",
    },
    "05.3": {
        "hard-coded": "hard-coded result of the example",
        "twin route": "jnp.sqrt, no iteration",
        "tailored": "unrolled 40 times, masked by steps (no loop in the program)",
        "default": "a default step count, steps ignored",
        "elsewhere": "the iteration in NumPy on the host, through a callback",
        "reference": "the check's newton_numpy called through a callback",
        "idle": "an idle fori_loop beside a fixed unrolled loop",
        "times zero": "a fori_loop times zero beside an unrolled loop",
        "switches when traced": "n/a: the check runs the answer only under jax.jit with steps traced, for its values and its route alike, so a branch for concrete values never runs",
        "split across calls": "n/a: there is no per-call bound: each call is one program, compared in its values and read for its loop",
        "unwatched": "n/a: the check reads the one program the values come from; work outside it could only come back through a host callback, which is refused (host inside)",
        "host inside": "Newton in NumPy in a callback, passed through a fori_loop",
        "environment": "jit switched off, then a Python loop",
    },
}


RIGHT_ANSWERS: dict[str, dict[str, str | tuple[str, ...]]] = {
    "05.1": {
        "statistics.median and a trial print": "import statistics\n\n\ndef honest_time(f, x, repeats=7):\n    jax.block_until_ready(f(x))  # compile and warm up, untimed\n    times = []\n    for _ in range(repeats):\n        start = time.perf_counter()\n        jax.block_until_ready(f(x))\n        times.append(time.perf_counter() - start)\n    print('times:', [round(t, 6) for t in times])\n    return statistics.median(times)",
        "two waited warm-up calls (review of 1818ab0)": "def honest_time(f, x, repeats=7):\n    for _ in range(2):\n        jax.block_until_ready(f(x))\n    times = []\n    for _ in range(repeats):\n        t0 = time.perf_counter()\n        jax.block_until_ready(f(x))\n        times.append(time.perf_counter() - t0)\n    return float(np.median(times))",
    },
    "05.2": {
        "a helper for the bytes, and a trial print": "def bytes_moved(values_in, values_out):\n    return 4 * (values_in + values_out)\n\n\ndef arithmetic_intensity(op, size):\n    if op == 'f':\n        flops, moved = 2 * size, bytes_moved(size, size)\n    else:\n        flops, moved = 2 * size**3, bytes_moved(2 * size**2, size**2)\n    return flops / moved\n\n\nprint('f at 1000:', arithmetic_intensity('f', 1000))\n\n\ndef is_memory_bound(op, size, ridge):\n    return arithmetic_intensity(op, size) < ridge",
    },
    "05.3": {
        "jax.lax spelled out, the body a named function": "def newton_sqrt(a, steps):\n    def newton_step(i, x):\n        return (x + a / x) / 2\n\n    return jax.lax.fori_loop(0, steps, newton_step, jnp.ones_like(a))",
        "lax.while_loop with a counter": "def newton_sqrt(a, steps):\n    def body(state):\n        i, x = state\n        return i + 1, 0.5 * (x + a / x)\n    return lax.while_loop(lambda st: st[0] < steps, body, (0, jnp.ones_like(a)))[1]",
    },
}
