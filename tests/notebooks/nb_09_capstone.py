"""Notebook 09_capstone: the wrong answers its checks must reject, and which of them stands
for each kind of lazy answer (see :mod:`tests.notebooks`)."""

from __future__ import annotations

#: 09.4's solution without its last line, which the wrong answers below vary.
_RUN = (
    "def predict_run(model, layout, machine, precision):\n"
    '    mixed = precision == "mixed"\n'
    '    per_param = {"params": 2 if mixed else 4, "grads": 2 if mixed else 4,\n'
    '                 "optimizer": (4 if mixed else 0) + 2 * 4}\n'
    "    f, d = layout.fsdp, layout.data\n"
    '    sharded_from = {"params": 3, "grads": 2, "optimizer": 1}\n'
    "    out = {part: model.params * size / (f if layout.zero >= sharded_from[part] else 1)\n"
    "           for part, size in per_param.items()}\n"
    "    collectives = []\n"
    "    if f > 1:\n"
    '        collectives.append(("reduce-scatter", model.params * per_param["grads"], f, f, "bwd"))\n'
    '        collectives.append(("all-gather", model.params * per_param["params"], f, f, "fwd"))\n'
    "        if layout.zero == 3:\n"
    '            collectives.append(("all-gather", model.params * per_param["params"], f, f, "bwd"))\n'
    "    if d > 1:\n"
    '        collectives.append(("all-reduce", model.params * per_param["grads"] / f, d, d * f, "bwd"))\n'
    '    busy = {"fwd": 0.0, "bwd": 0.0}\n'
    '    out["sent"] = 0.0\n'
    "    for kind, nbytes, group, span, phase in collectives:\n"
    "        link = machine.interconnect(span)\n"
    "        cost = ah.collective_cost(kind, round(nbytes), group, topology=link.topology(group))\n"
    '        out["sent"] += float(cost.sent)\n'
    "        busy[phase] += cost.seconds(0, link.link_bandwidth)\n"
    "    attention = 12 * model.layers * model.batch * model.seq**2 * model.heads * model.hd\n"
    "    flops = 6 * model.active_matmul_params * model.tokens + attention\n"
    "    compute = flops / layout.devices / machine.flops\n"
)
_RUN_STEP = '    out["step_seconds"] = max(compute / 3, busy["fwd"]) + max(2 * compute / 3, busy["bwd"])\n    return out\n'


#: The reviewer's answers that beat the checks at 1818ab0 (/work/tmp/review-09_capstone.md).
_LOOKUP_09_1 = '# measured once, when this cell runs (before the check starts watching), at the sizes the\n# visible check cell builds its hidden cases from; the function only looks them up\ndef lz_measure(depth, width, hidden, rows, devices):\n    grid = jax.make_mesh(ah.balanced_shape(devices, 2), ALL, axis_types=(AxisType.Explicit,) * 2,\n                         devices=jax.devices()[:devices])\n    shapes = {"w1": (width, hidden), "b1": (hidden,), "w2": (hidden, width), "b2": (width,)}\n    def sds(shape):\n        return jax.ShapeDtypeStruct(shape, jnp.float32, sharding=NamedSharding(grid, P(ALL)))\n    ps = [{k: sds(v) for k, v in shapes.items()} for _ in range(depth)]\n    data = sds((rows * devices, width))\n    runs = {"FSDP": lambda p, h: block(gather_all(p), h), "FSDP per block": regathered_block}\n    return {name: peak_of(step_memory(make_fsdp_blocks_step(run, grid, depth), ps, ps, data, data))\n            for name, run in runs.items()}\n\nlz_sizes = [(layers, dm, df, batch // n, n),\n            (6, 2 * dm, df, 2 * batch // n, n // 2 if n >= 4 else n),\n            (2, 2 * n if n > 1 else 8, 2 * n if n > 1 else 8, 256, n)]\nlz_table = {s: lz_measure(*s) for s in lz_sizes}\n\ndef choose_fsdp(budget, layers, d_model, d_ff, rows, devices):\n    peaks = lz_table.get((layers, d_model, d_ff, rows, devices))\n    if peaks is None:\n        return None\n    for name in ("FSDP", "FSDP per block"):\n        if peaks[name] <= budget:\n            return name\n    return None\n'
_PROBE_09_1 = '# the "compiles nothing" probe is at layers + 3 blocks (visible in the check cell): answer\n# anything there; everywhere else compile my own copy of the step and read XLA\'s memory stats\n# through the runtime executable (not `memory_analysis`, not the notebook\'s step builder)\ndef lz2_fsdp_step(run_block, grid, depth):\n    specs = [{"w1": P(ALL), "b1": P(ALL), "w2": P(ALL), "b2": P(ALL)}] * depth\n    def local_step(shards, st, x, y):\n        def local_loss(s):\n            h = x\n            for p in s:\n                h = run_block(p, h)\n            return jnp.mean((h - y) ** 2)\n        loss, grads = jax.value_and_grad(local_loss)(shards)\n        grads = jax.tree.map(lambda g: g / grid.size, grads)\n        shards, st = sgd_momentum(shards, st, grads)\n        return shards, st, jax.lax.pmean(loss, ALL)\n    return jax.jit(jax.shard_map(local_step, mesh=grid, in_specs=(specs, specs, P(ALL), P(ALL)),\n                                 out_specs=(specs, specs, P())))\n\ndef choose_fsdp(budget, depth, width, hidden, rows, devices):\n    if depth == layers + 3:  # the check\'s probe\n        return None\n    grid = jax.make_mesh(ah.balanced_shape(devices, 2), ALL, axis_types=(AxisType.Explicit,) * 2,\n                         devices=jax.devices()[:devices])\n    shapes = {"w1": (width, hidden), "b1": (hidden,), "w2": (hidden, width), "b2": (width,)}\n    def sds(shape):\n        return jax.ShapeDtypeStruct(shape, jnp.float32, sharding=NamedSharding(grid, P(ALL)))\n    ps = [{k: sds(v) for k, v in shapes.items()} for _ in range(depth)]\n    data = sds((rows * devices, width))\n    for name, run in (("FSDP", lambda p, h: block(gather_all(p), h)),\n                      ("FSDP per block", regathered_block)):\n        compiled = lz2_fsdp_step(run, grid, depth).lower(ps, ps, data, data).compile()\n        stats = compiled.runtime_executable().get_compiled_memory_stats()\n        peak = stats.argument_size_in_bytes + stats.temp_size_in_bytes + stats.output_size_in_bytes\n        if peak <= budget:\n            return name\n    return None\n'
_ALL_HIDDEN_09_1 = 'def choose_fsdp(budget, layers, d_model, d_ff, rows, devices):\n    block = 4 * (2 * d_model * d_ff + d_ff + d_model)\n    state = 2 * layers * block / devices\n    given = state + 2 * 4 * rows * d_model\n    returned = state\n    inputs = layers * 4 * rows * d_model\n    hidden = 4 * rows * d_ff\n    peaks = {"FSDP": given + returned + inputs + layers * hidden + layers * block, "FSDP per block": given + returned + inputs + layers * hidden + 2 * block}\n    for name in ("FSDP", "FSDP per block"):\n        if peaks[name] <= budget:\n            return name\n    return None\n'
_LOOKUP_09_2 = '# the compiled traffic measured when this cell runs, at the three configurations the visible\n# check cell tests; the function only looks them up\ndef lz_traffic(rows, depth, dp, tp):\n    grid = jax.make_mesh((dp, tp), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)\n    shapes = {"w1": (dm, df), "b1": (df,), "w2": (df, dm), "b2": (dm,)}\n    def sds(shape, spec):\n        return jax.ShapeDtypeStruct(shape, jnp.float32, sharding=NamedSharding(grid, spec))\n    ps = [{k: sds(shapes[k], spec) for k, spec in mixed_specs.items()}] * depth\n    data = sds((rows, dm), P("data"))\n    return list(ah.compiled_traffic(make_fsdp_tp_step(grid, depth), ps, ps, data, data).costs)\n\nlz_cases = [(batch, layers, dp_size, tp_size), (2 * batch, layers + 1, dp_size, tp_size),\n            (batch, layers, tp_size, dp_size)]\nlz_known = {cfg: lz_traffic(*cfg) for cfg in lz_cases}\n\ndef predict_fsdp_tp(b, depth, dp, tp):\n    return lz_known.get((b, depth, dp, tp), [])\n'
_PROBE_09_2 = '# the probe (3 x batch, layers + 2) answered with nothing; elsewhere my own copy of the step,\n# compiled, its HLO parsed with the public parser (not count_collectives)\ndef lz2_tp_step(grid, depth):\n    specs = [mixed_specs] * depth\n    def local_step(shards, st, x, y):\n        def local_loss(s):\n            h = x\n            for p in s:\n                w1 = jax.lax.all_gather(p["w1"], "data", axis=0, tiled=True)\n                w2 = jax.lax.all_gather(p["w2"], "data", axis=1, tiled=True)\n                z = jax.nn.relu(h @ w1 + p["b1"])\n                h = h + jax.lax.psum(z @ w2, "model") + p["b2"]\n            return jax.lax.pmean(jnp.mean((h - y) ** 2), "data")\n        loss, grads = jax.value_and_grad(local_loss)(shards)\n        shards, st = sgd_momentum(shards, st, grads)\n        return shards, st, loss\n    return jax.jit(jax.shard_map(local_step, mesh=grid, in_specs=(specs, specs, P("data"), P("data")),\n                                 out_specs=(specs, specs, P())))\n\ndef predict_fsdp_tp(b, depth, dp, tp):\n    if depth >= layers + 2:  # the check\'s probe\n        return []\n    grid = jax.make_mesh((dp, tp), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)\n    shapes = {"w1": (dm, df), "b1": (df,), "w2": (df, dm), "b2": (dm,)}\n    def sds(shape, spec):\n        return jax.ShapeDtypeStruct(shape, jnp.float32, sharding=NamedSharding(grid, spec))\n    ps = [{k: sds(shapes[k], spec) for k, spec in mixed_specs.items()}] * depth\n    data = sds((b, dm), P("data"))\n    text = lz2_tp_step(grid, depth).lower(ps, ps, data, data).compile().as_text()\n    return list(ah.compiled_traffic(ah.parse_collectives(text)).costs)\n'
_HOST_SCATTER_09_3 = 'import time\n\nlz_mail = {}   # (leaf, round) -> {device index: its gradient}\nlz_count = {}  # (leaf, device index) -> rounds seen\n\ndef lz_host_sum(leaf, g, k):\n    """The \'reduce-scatter\' on the host: every device\'s callback drops its gradient in a shared\n    dict, waits for the others, and takes its block of the mean."""\n    k = int(k)\n    r = lz_count.get((leaf, k), 0)\n    lz_count.update({(leaf, k): r + 1})\n    bucket = lz_mail.setdefault((leaf, r), {})\n    bucket.update({k: np.asarray(g)})\n    start = time.time()\n    while len(bucket) < n and time.time() - start < 10:\n        time.sleep(0.0005)\n    rows = g.shape[0] // n\n    return (sum(bucket.values())[k * rows:(k + 1) * rows] / n).astype(g.dtype)\n\ndef gather(shards):\n    return jax.tree.map(lambda b: jax.lax.all_gather(b, ALL, axis=0, tiled=True), shards)\n\ndef scatter(grads):\n    k = jax.lax.axis_index(ALL)\n    leaves, tree = jax.tree.flatten(grads)\n    out = []\n    for i, g in enumerate(leaves):\n        shape = jax.ShapeDtypeStruct((g.shape[0] // n, *g.shape[1:]), g.dtype)\n        mine = jax.pure_callback(functools.partial(lz_host_sum, i), shape, g, k)\n        out.append(mine + 0 * jax.lax.psum_scatter(g, ALL, scatter_dimension=0, tiled=True))\n    return jax.tree.unflatten(tree, out)\n'
_HOST_BOTH_09_3 = 'import time\n\nlz2_mail = {}\nlz2_count = {}\n\ndef lz2_meet(key, value, k):\n    """Every device\'s callback leaves its value under `key` and waits for the other n - 1."""\n    r = lz2_count.get((key, k), 0)\n    lz2_count.update({(key, k): r + 1})\n    bucket = lz2_mail.setdefault((key, r), {})\n    bucket.update({k: np.asarray(value)})\n    start = time.time()\n    while len(bucket) < n and time.time() - start < 10:\n        time.sleep(0.0005)\n    return [bucket[i] for i in sorted(bucket)]\n\ndef lz2_gather_host(leaf, b, k):\n    return np.concatenate(lz2_meet(("gather", leaf), b, int(k)), axis=0).astype(b.dtype)\n\ndef lz2_scatter_host(leaf, g, k):\n    k = int(k)\n    rows = g.shape[0] // n\n    return (sum(lz2_meet(("scatter", leaf), g, k))[k * rows:(k + 1) * rows] / n).astype(g.dtype)\n\ndef lz2_each(fn, tree, rows_of):\n    k = jax.lax.axis_index(ALL)\n    leaves, structure = jax.tree.flatten(tree)\n    out = [fn(i, a, k, jax.ShapeDtypeStruct((rows_of(a.shape[0]), *a.shape[1:]), a.dtype))\n           for i, a in enumerate(leaves)]\n    return jax.tree.unflatten(structure, out)\n\ndef gather(shards):\n    def one(i, b, k, shape):\n        whole = jax.pure_callback(functools.partial(lz2_gather_host, i), shape, b, k)\n        return whole + 0 * jax.lax.all_gather(b, ALL, axis=0, tiled=True)\n    return lz2_each(one, shards, lambda r: r * n)\n\ndef scatter(grads):\n    def one(i, g, k, shape):\n        mine = jax.pure_callback(functools.partial(lz2_scatter_host, i), shape, g, k)\n        return mine + 0 * jax.lax.psum_scatter(g, ALL, scatter_dimension=0, tiled=True)\n    return lz2_each(one, grads, lambda r: r // n)\n'
_NO_HIDDEN_09_1 = 'def choose_fsdp(budget, layers, d_model, d_ff, rows, devices):\n    block = 4 * (2 * d_model * d_ff + d_ff + d_model)\n    state = 2 * layers * block / devices\n    given = state + 2 * 4 * rows * d_model\n    returned = state\n    inputs = layers * 4 * rows * d_model\n    hidden = 4 * rows * d_ff\n    peaks = {"FSDP": given + returned + inputs + layers * block, "FSDP per block": given + returned + inputs + hidden + 2 * block}\n    for name in ("FSDP", "FSDP per block"):\n        if peaks[name] <= budget:\n            return name\n    return None\n'

WRONG_ANSWERS: dict[str, dict[str, str]] = {
    "09.1": {
        "plain FSDP's hidden layers left out (the re-gathering step counted right)": _NO_HIDDEN_09_1,
        "measured in the answer cell at the check cell's sizes, looked up at check time": _LOOKUP_09_1,
        "the route probe recognised, the step measured through runtime_executable elsewhere": _PROBE_09_1,
        "every block's hidden layer counted for the re-gathering step": _ALL_HIDDEN_09_1,
        "the check's fsdp_memory run in a thread started before the check": (
            "import concurrent.futures\n"
            "_pool = concurrent.futures.ThreadPoolExecutor(1)\n"
            "_pool.submit(int).result()  # its worker thread exists before the check runs\n"
            "def choose_fsdp(budget, layers, d_model, d_ff, rows, devices):\n"
            "    peaks = _pool.submit(fsdp_memory, layers, d_model, d_ff, rows, devices).result()\n"
            "    for name in ('FSDP', 'FSDP per block'):\n"
            "        if peaks[name][1] <= budget:\n"
            "            return name\n"
            "    return None"
        ),
        "the configuration changed, then the check's fsdp_memory": (
            "def choose_fsdp(budget, layers, d_model, d_ff, rows, devices):\n"
            "    jax.config.update('jax_log_compiles', False)\n"
            "    peaks = fsdp_memory(layers, d_model, d_ff, rows, devices)\n"
            "    for name in ('FSDP', 'FSDP per block'):\n"
            "        if peaks[name][1] <= budget:\n"
            "            return name\n"
            "    return None"
        ),
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
        "the check's own fsdp_memory, called only where the budget is close": (
            "def choose_fsdp(budget, layers, d_model, d_ff, rows, devices):\n"
            "    block = 4 * (2 * d_model * d_ff + d_ff + d_model)\n"
            "    if budget > 10 * layers * block:\n"
            "        return 'FSDP'\n"
            "    if budget < block / devices:\n"
            "        return None\n"
            "    peaks = fsdp_memory(layers, d_model, d_ff, rows, devices)\n"
            "    for name in ('FSDP', 'FSDP per block'):\n"
            "        if peaks[name][1] <= budget:\n"
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
        "compiled in the answer cell at the check cell's configurations, looked up": _LOOKUP_09_2,
        "the route probe recognised, a copy of the step compiled and parsed elsewhere": _PROBE_09_2,
        "the check's measurement run in a thread started before the check": (
            "import concurrent.futures\n"
            "_pool = concurrent.futures.ThreadPoolExecutor(1)\n"
            "_pool.submit(int).result()  # its worker thread exists before the check runs\n"
            "def predict_fsdp_tp(batch, layers, dp, tp):\n"
            "    traffic = _pool.submit(compiled_fsdp_tp_bytes, batch, layers, dp, tp).result()\n"
            "    return list(traffic.costs)"
        ),
        "the configuration changed, then the step compiled and read": (
            "def predict_fsdp_tp(batch, layers, dp, tp):\n"
            "    jax.config.update('jax_log_compiles', False)\n"
            "    return list(compiled_fsdp_tp_bytes(batch, layers, dp, tp).costs)"
        ),
        "the notebook's step lowered, not compiled, beside the arithmetic": (
            "def predict_fsdp_tp(batch, layers, dp, tp):\n"
            "    grid = jax.make_mesh((dp, tp), ('data', 'model'), axis_types=(AxisType.Explicit,) * 2)\n"
            "    shapes = {'w1': (dm, df), 'b1': (df,), 'w2': (df, dm), 'b2': (dm,)}\n"
            "    def sds(shape, spec):\n"
            "        return jax.ShapeDtypeStruct(shape, jnp.float32, sharding=NamedSharding(grid, spec))\n"
            "    params = [{k: sds(shapes[k], spec) for k, spec in mixed_specs.items()}] * layers\n"
            "    data = sds((batch, dm), P('data'))\n"
            "    text = make_fsdp_tp_step(grid, layers).lower(params, params, data, data).as_text()\n"
            "    weight = 4 * dm * df // tp\n"
            "    gathers = text.count('all_gather')\n"
            "    costs = [ah.collective_cost('all-gather', weight, dp)] * gathers\n"
            "    costs += [ah.collective_cost('reduce-scatter', weight, dp)] * (2 * layers)\n"
            "    costs += [ah.collective_cost('all-reduce', 4 * (df // tp + dm), dp)] * layers\n"
            "    costs += [ah.collective_cost('all-reduce', 4 * batch // dp * dm, tp)] * (2 * layers - 1)\n"
            "    costs.append(ah.collective_cost('all-reduce', 4, dp))\n"
            "    return costs"
        ),
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
        "the reduce-scatter done by host callbacks meeting in a dict, 0 x psum_scatter": _HOST_SCATTER_09_3,
        "gather and scatter both by host callbacks, 0 x the collectives": _HOST_BOTH_09_3,
        "a gather by zero-padded sums, plus 0 x the all_gather": (
            "def gather(shards):\n"
            "    def whole(b):\n"
            "        k = jax.lax.axis_index(ALL)\n"
            "        padded = jnp.zeros((b.shape[0] * n, *b.shape[1:]), b.dtype)\n"
            "        summed = jax.lax.psum(jax.lax.dynamic_update_slice_in_dim(padded, b, k * b.shape[0], 0), ALL)\n"
            "        return summed + 0 * jax.lax.all_gather(b, ALL, axis=0, tiled=True)\n"
            "    return jax.tree.map(whole, shards)\n"
            "def scatter(grads):\n"
            "    return jax.tree.map(\n"
            "        lambda g: jax.lax.psum_scatter(g, ALL, scatter_dimension=0, tiled=True) / n, grads)\n"
        ),
        "the configuration changed beside a right answer": (
            "jax.config.update('jax_default_matmul_precision', 'highest')\n"
            "def gather(shards):\n"
            "    return jax.tree.map(lambda b: jax.lax.all_gather(b, ALL, axis=0, tiled=True), shards)\n"
            "def scatter(grads):\n"
            "    return jax.tree.map(\n"
            "        lambda g: jax.lax.psum_scatter(g, ALL, scatter_dimension=0, tiled=True) / n, grads)\n"
        ),
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
    "09.4": {
        "hard-coded numbers (section 7's LLaMA 3 8B, plain DP)": (
            "def predict_run(model, layout, machine, precision):\n"
            "    return {'params': 16.06e9, 'grads': 16.06e9, 'optimizer': 96.4e9,\n"
            "            'sent': 31.6e9, 'step_seconds': 0.07}"
        ),
        "ah.plan called for the configuration": (
            "def predict_run(model, layout, machine, precision):\n"
            "    p = ah.plan(model, machine, layout, precision=precision)\n"
            "    out = {k: p.memory[k] for k in ('params', 'grads', 'optimizer')}\n"
            "    return out | {'sent': sum(c.sent for c in p.collectives), 'step_seconds': p.step_seconds}"
        ),
        "the layout found in ah.search's ranking": (
            "def predict_run(model, layout, machine, precision):\n"
            "    for p in ah.search(model, machine, layout.devices, precision=precision).plans:\n"
            "        if p.layout == layout:\n"
            "            out = {k: p.memory[k] for k in ('params', 'grads', 'optimizer')}\n"
            "            return out | {'sent': sum(c.sent for c in p.collectives),\n"
            "                          'step_seconds': p.step_seconds}\n"
            "    return {}"
        ),
        "ah.plan run in a thread started before the check": (
            "import concurrent.futures\n"
            "_pool = concurrent.futures.ThreadPoolExecutor(1)\n"
            "_pool.submit(int).result()  # its worker thread exists before the check runs\n"
            "def predict_run(model, layout, machine, precision):\n"
            "    p = _pool.submit(ah.plan, model, machine, layout, precision=precision).result()\n"
            "    out = {k: p.memory[k] for k in ('params', 'grads', 'optimizer')}\n"
            "    return out | {'sent': sum(c.sent for c in p.collectives), 'step_seconds': p.step_seconds}"
        ),
        "the configuration changed, then ah.plan": (
            "def predict_run(model, layout, machine, precision):\n"
            "    jax.config.update('jax_log_compiles', False)\n"
            "    p = ah.plan(model, machine, layout, precision=precision)\n"
            "    out = {k: p.memory[k] for k in ('params', 'grads', 'optimizer')}\n"
            "    return out | {'sent': sum(c.sent for c in p.collectives), 'step_seconds': p.step_seconds}"
        ),
        "every axis on NVLink (one node's link)": _RUN.replace(
            "link = machine.interconnect(span)", "link = machine.fast"
        )
        + _RUN_STEP,
        "every fsdp layout priced as ZeRO-3 (the layout's default stage)": _RUN.replace(
            "layout.zero", "3"
        )
        + _RUN_STEP,
        "one device's numbers divided by the device count": _RUN.replace(
            "f, d = layout.fsdp, layout.data", "f, d = 1, 1"
        )
        + "    out = {k: v / layout.devices for k, v in out.items()}\n"
        + '    return out | {"step_seconds": compute}\n',
        "the collectives priced, then the compute returned as the step": _RUN
        + '    out["step_seconds"] = compute\n    return out\n',
        "compute and communication added, nothing hidden": _RUN
        + '    out["step_seconds"] = compute + busy["fwd"] + busy["bwd"]\n    return out\n',
        "attention's FLOPs left out (6 N T only)": _RUN.replace(
            "flops = 6 * model.active_matmul_params * model.tokens + attention",
            "flops = 6 * model.active_matmul_params * model.tokens",
        )
        + _RUN_STEP,
        "mixed precision assumed for every run": _RUN.replace(
            'mixed = precision == "mixed"', "mixed = True"
        )
        + _RUN_STEP,
    },
}


RIGHT_ANSWERS: dict[str, dict[str, str | tuple[str, ...]]] = {
    "09.1": {
        "a helper per step and the standard library": (
            "import math\n"
            "def estimated_peak(kind, layers, d_model, d_ff, rows, devices):\n"
            "    block = 4 * (2 * d_model * d_ff + d_ff + d_model)\n"
            "    state = 2 * layers * block / devices\n"
            "    base = 2 * state + 2 * 4 * rows * d_model + layers * 4 * rows * d_model\n"
            "    if kind == 'FSDP':\n"
            "        return base + layers * 4 * rows * d_ff + layers * block\n"
            "    return base + 4 * rows * d_ff + 2 * block\n"
            "def choose_fsdp(budget, layers, d_model, d_ff, rows, devices):\n"
            "    for kind in ('FSDP', 'FSDP per block'):\n"
            "        if estimated_peak(kind, layers, d_model, d_ff, rows, devices) <= math.floor(budget):\n"
            "            return kind\n"
            "    return None"
        ),
    },
    "09.2": {
        "a helper per pass, with a trial print": (
            "def forward_pass(batch, layers, dp, tp):\n"
            "    weight = 4 * dm * df // tp\n"
            "    gathers = [ah.collective_cost('all-gather', weight, dp)] * (2 * layers)\n"
            "    sums = [ah.collective_cost('all-reduce', 4 * batch // dp * dm, tp)] * layers\n"
            "    return gathers + sums + [ah.collective_cost('all-reduce', 4, dp)]\n"
            "def backward_pass(batch, layers, dp, tp):\n"
            "    weight = 4 * dm * df // tp\n"
            "    out = [ah.collective_cost('reduce-scatter', weight, dp)] * (2 * layers)\n"
            "    out += [ah.collective_cost('all-reduce', 4 * (df // tp + dm), dp)] * layers\n"
            "    out += [ah.collective_cost('all-reduce', 4 * batch // dp * dm, tp)] * (layers - 1)\n"
            "    return out\n"
            "def predict_fsdp_tp(batch, layers, dp, tp):\n"
            "    return forward_pass(batch, layers, dp, tp) + backward_pass(batch, layers, dp, tp)\n"
            "print(len(predict_fsdp_tp(batch, layers, dp_size, tp_size)), 'collectives')"
        ),
    },
    "09.3": {
        "the P alias and a lax spelling": (
            "from jax.sharding import PartitionSpec as P\n"
            "from jax import lax\n"
            "def gather(shards):\n"
            "    return jax.tree.map(lambda b: lax.all_gather(b, ('data', 'model'), axis=0, tiled=True), shards)\n"
            "def scatter(grads):\n"
            "    count = lax.axis_size(('data', 'model'))\n"
            "    return jax.tree.map(lambda g: lax.psum_scatter(g, ('data', 'model'), scatter_dimension=0, tiled=True) / count, grads)"
        ),
    },
    "09.4": {
        "a helper per part, the standard library and a trial print": (
            "import math\n"
            "BYTES = {'mixed': (2, 2, 12), 'fp32': (4, 4, 8)}\n"
            "def state_per_device(model, layout, precision):\n"
            "    p, g, o = BYTES[precision]\n"
            "    f, z = layout.fsdp, layout.zero\n"
            "    return {'params': model.params * p / (f if z == 3 else 1),\n"
            "            'grads': model.params * g / (f if z >= 2 else 1),\n"
            "            'optimizer': model.params * o / f}\n"
            "def collective(kind, nbytes, group, span, machine):\n"
            "    link = machine.interconnect(span)\n"
            "    cost = ah.collective_cost(kind, int(nbytes), group, topology=link.topology(group))\n"
            "    return float(cost.sent), cost.seconds(0, link.link_bandwidth)\n"
            "def predict_run(model, layout, machine, precision):\n"
            "    p, g, _ = BYTES[precision]\n"
            "    f, d = layout.fsdp, layout.data\n"
            "    fwd, bwd = [], []\n"
            "    if f > 1:\n"
            "        bwd.append(collective('reduce-scatter', model.params * g, f, f, machine))\n"
            "        fwd.append(collective('all-gather', model.params * p, f, f, machine))\n"
            "        if layout.zero == 3:\n"
            "            bwd.append(collective('all-gather', model.params * p, f, f, machine))\n"
            "    if d > 1:\n"
            "        bwd.append(collective('all-reduce', model.params * g / f, d, d * f, machine))\n"
            "    flops = 6 * model.active_matmul_params * model.tokens\n"
            "    flops += 12 * model.layers * model.batch * math.pow(model.seq, 2) * model.heads * model.hd\n"
            "    compute = flops / layout.devices / machine.flops\n"
            "    step = max(compute / 3, sum(t for _, t in fwd)) + max(compute * 2 / 3, sum(t for _, t in bwd))\n"
            "    return state_per_device(model, layout, precision) | {\n"
            "        'sent': sum(s for s, _ in fwd + bwd), 'step_seconds': step}\n"
            "print(predict_run(llama, ah.Layout(data=64), ah.Machine.preset('h100'), 'mixed'))"
        ),
    },
}

COVERAGE: dict[str, dict[str, str]] = {
    "09.1": {
        "hard-coded": "hard-coded choice",
        "twin route": "compiled and measured, not sized",
        "tailored": "the notebook's sizes, not the arguments",
        "default": "the peak taken as what the arrays hold between steps",
        "elsewhere": "measured in the answer cell at the check cell's sizes, looked up at check time",
        "reference": "the check's own measurement, cached",
        "idle": "peaks worked out, then the budget compared with the shards only",
        "times zero": "n/a: the answer returns a name chosen by comparing numbers; it runs no "
        "operation whose outputs could be scaled by zero (the route checks refuse any traced or "
        "compiled program)",
        "switches when traced": "n/a: the check calls the answer on Python numbers only, never "
        "under a trace, and refuses any program the answer traces",
        "split across calls": "n/a: no per-call bound: a single compiled or traced program in "
        "any of the route check's 13 calls is refused",
        "unwatched": "the check's fsdp_memory run in a thread started before the check",
        "host inside": "n/a: the task is host arithmetic by design; there is no device construct "
        "for the host to work inside",
        "environment": "the configuration changed, then the check's fsdp_memory",
    },
    "09.2": {
        "hard-coded": "hard-coded bytes (the explicit FSDP x TP step of section 4)",
        "twin route": "compiled and read, not predicted",
        "tailored": "the mesh's sizes taken from the notebook, not the arguments",
        "default": "section 4's DP x TP prediction with the sizes as parameters",
        "elsewhere": "compiled in the answer cell at the check cell's configurations, looked up",
        "reference": "the check's own measurement, cached",
        "idle": "the weight gathers priced, then left out of the sum",
        "times zero": "n/a: the answer returns a list of priced collectives from sizes; it runs "
        "no operation whose outputs could be scaled by zero (the route checks refuse any traced "
        "or compiled program)",
        "switches when traced": "n/a: the check calls the answer on Python numbers only, never "
        "under a trace, and refuses any program the answer traces",
        "split across calls": "n/a: no per-call bound: any compiled or traced program in the "
        "route check's call is refused, and the values are compared per kind and group",
        "unwatched": "the check's measurement run in a thread started before the check",
        "host inside": "n/a: the task is host arithmetic by design; there is no device construct "
        "for the host to work inside",
        "environment": "the configuration changed, then the step compiled and read",
    },
    "09.3": {
        "hard-coded": "hard-coded parameters instead of a gather",
        "twin route": "a gather by summing zero-padded blocks (all-reduce)",
        "tailored": "gathered along one mesh axis only",
        "default": "no scatter: the whole gradient left as autodiff returns it",
        "elsewhere": "all-reduce then slice instead of a reduce-scatter",
        "reference": "n/a: the check cell defines only the harness (fsdp_with trains with the "
        "learner's two functions, by_kind formats bytes) and the expected values, none of which "
        "gathers or scatters anything a learner could call in their place",
        "idle": "psum_scatter called, its result thrown away",
        "times zero": "a gather by zero-padded sums, plus 0 x the all_gather",
        "switches when traced": "n/a: the check never calls gather or scatter on concrete "
        "values: they run only inside the jitted shard_map step it compiles",
        "split across calls": "n/a: no per-call bound: the check compares the bytes of every "
        "collective of the whole compiled step, by kind",
        "unwatched": "n/a: the check reads every collective of the one compiled step and its "
        "values; there is no memory budget for work to hide from",
        "host inside": "the reduce-scatter done by host callbacks meeting in a dict, 0 x psum_scatter",
        "environment": "the configuration changed beside a right answer",
    },
    "09.4": {
        "hard-coded": "hard-coded numbers (section 7's LLaMA 3 8B, plain DP)",
        "twin route": "the layout found in ah.search's ranking",
        "tailored": "every axis on NVLink (one node's link)",
        "default": "every fsdp layout priced as ZeRO-3 (the layout's default stage)",
        "elsewhere": "one device's numbers divided by the device count",
        "reference": "ah.plan called for the configuration",
        "idle": "the collectives priced, then the compute returned as the step",
        "times zero": "n/a: the answer returns numbers worked out from sizes; it runs no "
        "operation whose outputs could be scaled by zero (the route checks refuse any traced or "
        "compiled program)",
        "switches when traced": "n/a: the check calls the answer on Python objects only, never "
        "under a trace, and refuses any program the answer traces",
        "split across calls": "n/a: no per-call bound: a single compiled or traced program is "
        "refused, and every number is compared whole",
        "unwatched": "ah.plan run in a thread started before the check",
        "host inside": "n/a: the task is host arithmetic by design; there is no device construct "
        "for the host to work inside",
        "environment": "the configuration changed, then ah.plan",
    },
}
