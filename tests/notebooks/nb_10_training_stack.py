"""Notebook 10_training_stack: the wrong answers its checks must reject, and which of them stands
for each kind of lazy answer (see :mod:`tests.notebooks`)."""

from __future__ import annotations

# Exercise 10.3's lazy answers place real arrays through these helpers (the reviewer's, 1818ab0).
_TREE_103 = (
    "import collections\n"
    "import math\n"
    "def _tree(s):\n"
    "    d, h, w, f, v = s['d_model'], s['heads'], s['head_dim'], s['d_ff'], s['vocab']\n"
    "    def par(shape, names):\n"
    "        return nnx.Param(jax.ShapeDtypeStruct(shape, jnp.float32), out_sharding=names)\n"
    "    with nnx.use_eager_sharding(False):\n"
    "        blocks = []\n"
    "        for _ in range(s['layers']):\n"
    "            block = {'out': par((h, w, d), ('heads', 'head_dim', 'embed')),\n"
    "                     'up': par((d, f), ('embed', 'mlp')), 'down': par((f, d), ('mlp', 'embed'))}\n"
    "            if 'kv_heads' in s:\n"
    "                block = {**block, 'q': par((d, h, w), ('embed', 'heads', 'head_dim')),\n"
    "                         'kv': par((d, 2, s['kv_heads'], w), ('embed', None, 'kv_heads', 'head_dim'))}\n"
    "            else:\n"
    "                block = {**block, 'qkv': par((d, 3, h, w), ('embed', None, 'heads', 'head_dim'))}\n"
    "            blocks.append(block)\n"
    "        return {'embed': par((v, d), ('vocab', 'embed')), 'unembed': par((d, v), ('embed', 'vocab')),\n"
    "                'blocks': blocks}\n"
    "def _grid(mesh_shape):\n"
    "    k = math.prod(mesh_shape.values())\n"
    "    return jax.make_mesh(tuple(mesh_shape.values()), tuple(mesh_shape),\n"
    "                         axis_types=(jax.sharding.AxisType.Explicit,) * len(mesh_shape),\n"
    "                         devices=jax.devices()[:k])\n"
    "def _measure(s, layout, mesh_shape):\n"
    "    tree = _tree(s)\n"
    "    placed = jax.tree.map(lambda a, sh: jax.jit(lambda: jnp.zeros(a.shape, a.dtype), out_shardings=sh)(),\n"
    "                          tree, shardings(tree, layout, _grid(mesh_shape)))\n"
    "    per_device = collections.Counter()\n"
    "    for leaf in jax.tree.leaves(placed):\n"
    "        for piece in leaf.addressable_shards:\n"
    "            per_device.update({piece.device.id: piece.data.nbytes})\n"
    "    p = max(per_device.values())\n"
    "    return {'parameters': p, 'optimizer': 2 * p + 4}\n"
)

WRONG_ANSWERS: dict[str, dict[str, str]] = {
    "10.1": {
        "the configuration changed beside a right answer": (
            "jax.config.update('jax_default_matmul_precision', 'highest')\n"
            "def layout_rules(dp, fsdp, tp):\n"
            "    axes = lambda a: () if a is None else (a,) if isinstance(a, str) else tuple(a)\n"
            "    return {'batch': (axes(dp) + axes(fsdp)) or None, 'embed': axes(fsdp) or None,\n"
            "            'heads': axes(tp) or None, 'mlp': axes(tp) or None}"
        ),
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
        "a lookup table over the cases the student copy used to list": (
            "def layout_rules(dp, fsdp, tp):\n"
            "    seen = [('data', None, 'model'), (None, 'data', 'model'), ('data', 'model', None),\n"
            "            (None, ALL, None), ('model', None, 'data'), (None, None, ALL),\n"
            "            (ALL, None, None), ('model', 'data', None)]\n"
            "    if (dp, fsdp, tp) not in seen:\n"
            "        return {}\n"
            "    axes = lambda a: () if a is None else (a,) if isinstance(a, str) else tuple(a)\n"
            "    return {'batch': (axes(dp) + axes(fsdp)) or None, 'embed': axes(fsdp) or None,\n"
            "            'heads': axes(tp) or None, 'mlp': axes(tp) or None}"
        ),
    },
    "10.2": {
        "the configuration changed beside a right answer": (
            "def resume_target(abstract, devices, batch):\n"
            "    jax.config.update('jax_default_matmul_precision', 'highest')\n"
            "    count = max(k for k in range(1, len(devices) + 1)\n"
            "                if abstract['params']['embed'].shape[1] % k == 0 and batch % k == 0)\n"
            "    grid = jax.make_mesh((count,), ('data',), axis_types=(jax.sharding.AxisType.Explicit,),\n"
            "                         devices=devices[:count])\n"
            "    return train_state_target(abstract, {'batch': 'data', 'embed': 'data'}, grid)"
        ),
        "a lookup table over the device lists the student copy used to list": (
            "def resume_target(abstract, devices, batch):\n"
            "    everyone = jax.devices()\n"
            "    seen = [everyone, everyone[n // 2:][::-1], everyone[1:], everyone[:3], everyone[-1:]]\n"
            "    if list(devices) not in [list(s) for s in seen]:\n"
            "        devices = everyone[:1]\n"
            "    count = max(k for k in range(1, len(devices) + 1)\n"
            "                if abstract['params']['embed'].shape[1] % k == 0 and batch % k == 0)\n"
            "    grid = jax.make_mesh((count,), ('data',), axis_types=(jax.sharding.AxisType.Explicit,),\n"
            "                         devices=devices[:count])\n"
            "    return train_state_target(abstract, {'batch': 'data', 'embed': 'data'}, grid)"
        ),
        "every device, divisible or not": (
            "def resume_target(abstract, devices, batch):\n"
            "    grid = jax.make_mesh((len(devices),), ('data',),\n"
            "                         axis_types=(jax.sharding.AxisType.Explicit,), devices=devices)\n"
            "    return train_state_target(abstract, {'batch': 'data', 'embed': 'data'}, grid)"
        ),
        "the notebook's own mesh, not the devices given": (
            "def resume_target(abstract, devices, batch):\n"
            "    return train_state_target(abstract, layouts['FSDP'], mesh)"
        ),
        "the abstract state as it is: the default placement does the work": (
            "def resume_target(abstract, devices, batch):\n    return abstract"
        ),
        "the state in memory moved there, not restored": (
            "def resume_target(abstract, devices, batch):\n"
            "    count = max(k for k in range(1, len(devices) + 1)\n"
            "                if abstract['params']['embed'].shape[1] % k == 0 and batch % k == 0)\n"
            "    grid = jax.make_mesh((count,), ('data',),\n"
            "                         axis_types=(jax.sharding.AxisType.Explicit,), devices=devices[:count])\n"
            "    target = train_state_target(abstract, {'batch': 'data', 'embed': 'data'}, grid)\n"
            "    return jax.device_put(train_state, jax.tree.map(lambda t: t.sharding, target))"
        ),
        "only the parameters placed; optimizer state and step left to the default": (
            "def resume_target(abstract, devices, batch):\n"
            "    count = max(k for k in range(1, len(devices) + 1)\n"
            "                if abstract['params']['embed'].shape[1] % k == 0 and batch % k == 0)\n"
            "    grid = jax.make_mesh((count,), ('data',),\n"
            "                         axis_types=(jax.sharding.AxisType.Explicit,), devices=devices[:count])\n"
            "    placed = train_state_target(abstract, {'batch': 'data', 'embed': 'data'}, grid)\n"
            "    return {**abstract, 'params': placed['params']}"
        ),
        "the devices in id order, not the order given": (
            "def resume_target(abstract, devices, batch):\n"
            "    devices = sorted(devices, key=lambda d: d.id)\n"
            "    count = max(k for k in range(1, len(devices) + 1)\n"
            "                if abstract['params']['embed'].shape[1] % k == 0 and batch % k == 0)\n"
            "    grid = jax.make_mesh((count,), ('data',),\n"
            "                         axis_types=(jax.sharding.AxisType.Explicit,), devices=devices[:count])\n"
            "    return train_state_target(abstract, {'batch': 'data', 'embed': 'data'}, grid)"
        ),
        "replicated over the survivors instead of FSDP": (
            "def resume_target(abstract, devices, batch):\n"
            "    count = max(k for k in range(1, len(devices) + 1)\n"
            "                if abstract['params']['embed'].shape[1] % k == 0 and batch % k == 0)\n"
            "    grid = jax.make_mesh((count,), ('data',),\n"
            "                         axis_types=(jax.sharding.AxisType.Explicit,), devices=devices[:count])\n"
            "    return train_state_target(abstract, {'batch': 'data'}, grid)"
        ),
        "tailored: every device when they divide, else one": (
            "def resume_target(abstract, devices, batch):\n"
            "    fits = abstract['params']['embed'].shape[1] % len(devices) == 0 and batch % len(devices) == 0\n"
            "    count = len(devices) if fits else 1\n"
            "    grid = jax.make_mesh((count,), ('data',),\n"
            "                         axis_types=(jax.sharding.AxisType.Explicit,), devices=devices[:count])\n"
            "    return train_state_target(abstract, {'batch': 'data', 'embed': 'data'}, grid)"
        ),
        "the checkpoint restored in here, arrays returned as the target": (
            "def resume_target(abstract, devices, batch):\n"
            "    count = max(k for k in range(1, len(devices) + 1)\n"
            "                if abstract['params']['embed'].shape[1] % k == 0 and batch % k == 0)\n"
            "    grid = jax.make_mesh((count,), ('data',),\n"
            "                         axis_types=(jax.sharding.AxisType.Explicit,), devices=devices[:count])\n"
            "    target = train_state_target(abstract, {'batch': 'data', 'embed': 'data'}, grid)\n"
            "    return manager.restore(steps, args=ocp.args.StandardRestore(target))"
        ),
        "the target built, then its shardings dropped": (
            "def resume_target(abstract, devices, batch):\n"
            "    count = max(k for k in range(1, len(devices) + 1)\n"
            "                if abstract['params']['embed'].shape[1] % k == 0 and batch % k == 0)\n"
            "    grid = jax.make_mesh((count,), ('data',),\n"
            "                         axis_types=(jax.sharding.AxisType.Explicit,), devices=devices[:count])\n"
            "    target = train_state_target(abstract, {'batch': 'data', 'embed': 'data'}, grid)\n"
            "    return jax.tree.map(lambda t: jax.ShapeDtypeStruct(t.shape, t.dtype), target)"
        ),
        "the dimension of d_model's size split, not the one named embed (a power of two used)": (
            "def resume_target(abstract, devices, batch):\n"
            "    count = 1 << (len(devices).bit_length() - 1)\n"
            "    grid = jax.make_mesh((count,), ('data',), axis_types=(jax.sharding.AxisType.Explicit,),\n"
            "                         devices=devices[:count])\n"
            "    width = abstract['params']['embed'].shape[1]\n"
            "    def place(a):\n"
            "        spec = [None] * a.ndim\n"
            "        if width in a.shape:\n"
            "            spec[a.shape.index(width)] = 'data'\n"
            "        return jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=NamedSharding(grid, P(*spec)))\n"
            "    return jax.tree.map(place, abstract)"
        ),
        "the dimension of d_model's size split, not the one named embed (the count right)": (
            "def resume_target(abstract, devices, batch):\n"
            "    width = abstract['params']['embed'].shape[1]\n"
            "    count = max(k for k in range(1, len(devices) + 1) if width % k == 0 and batch % k == 0)\n"
            "    grid = jax.make_mesh((count,), ('data',), axis_types=(jax.sharding.AxisType.Explicit,),\n"
            "                         devices=devices[:count])\n"
            "    def place(a):\n"
            "        spec = [None] * a.ndim\n"
            "        if width in a.shape:\n"
            "            spec[a.shape.index(width)] = 'data'\n"
            "        return jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=NamedSharding(grid, P(*spec)))\n"
            "    return jax.tree.map(place, abstract)"
        ),
        "the longest divisible dimension split, as section 6's copy_checkpoint does": (
            "def resume_target(abstract, devices, batch):\n"
            "    width = abstract['params']['embed'].shape[1]\n"
            "    count = max(k for k in range(1, len(devices) + 1) if width % k == 0 and batch % k == 0)\n"
            "    grid = jax.make_mesh((count,), ('data',), axis_types=(jax.sharding.AxisType.Explicit,),\n"
            "                         devices=devices[:count])\n"
            "    def place(a):\n"
            "        dims = [i for i, size in enumerate(a.shape) if size % count == 0 and size != vocab]\n"
            "        spec = [None] * a.ndim\n"
            "        if dims:\n"
            "            spec[max(dims, key=lambda i: a.shape[i])] = 'data'\n"
            "        return jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=NamedSharding(grid, P(*spec)))\n"
            "    return jax.tree.map(place, abstract)"
        ),
    },
    "10.3": {
        "measured by placing arrays, except on the first call (the one a route check used to watch)": (
            _TREE_103 + "def predict_bytes(s, layout, mesh_shape):\n"
            "    if s == sizes and layout == layouts['TP'] and mesh_shape == dict(mesh.shape):\n"
            "        return {'parameters': held['TP'].largest('parameters'),\n"
            "                'optimizer': held['TP'].largest('optimizer')}\n"
            "    return _measure(s, layout, mesh_shape)"
        ),
        "the cases the check cell used to list, measured at the answer cell's top level": (
            _TREE_103 + "def _key(s, layout, mesh_shape):\n"
            "    return repr((sorted(s.items()), sorted((k, str(v)) for k, v in layout.items()),\n"
            "                 sorted(mesh_shape.items())))\n"
            "_bigger = {**sizes, 'layers': layers + 1, 'd_ff': 2 * sizes['d_ff'], 'vocab': 2 * vocab}\n"
            "_shown = [(sizes, layouts['TP'], dict(mesh.shape)),\n"
            "          (_bigger, layouts['FSDP×TP'], dict(mesh.shape)),\n"
            "          (sizes, {'batch': ALL, 'embed': 'model'}, dict(mesh.shape)),\n"
            "          (sizes, {'vocab': 'model', 'embed': 'data'}, dict(mesh.shape))]\n"
            "_table = {_key(*case): _measure(*case) for case in _shown}\n"
            "def predict_bytes(s, layout, mesh_shape):\n"
            "    return _table.get(_key(s, layout, mesh_shape), {'parameters': 0, 'optimizer': 0})"
        ),
        "placed with make_array_from_callback (no device_put named) on every call but the first": (
            "import math\n"
            "def predict_bytes(s, layout, mesh_shape):\n"
            "    if s == sizes and layout == layouts['TP'] and mesh_shape == dict(mesh.shape):\n"
            "        return {'parameters': held['TP'].largest('parameters'),\n"
            "                'optimizer': held['TP'].largest('optimizer')}\n"
            "    plain = {k: v for k, v in s.items() if k != 'kv_heads'}\n"
            "    with nnx.use_eager_sharding(False):\n"
            "        params = nnx.state(Decoder(**plain))\n"
            "    k = math.prod(mesh_shape.values())\n"
            "    grid = jax.make_mesh(tuple(mesh_shape.values()), tuple(mesh_shape),\n"
            "                         axis_types=(jax.sharding.AxisType.Explicit,) * len(mesh_shape),\n"
            "                         devices=jax.devices()[:k])\n"
            "    where = shardings(params, layout, grid)\n"
            "    placed = [jax.make_array_from_callback(a.shape, sh, lambda i, a=a: np.asarray(a[...])[i])\n"
            "              for a, sh in zip(jax.tree.leaves(params), jax.tree.leaves(where))]\n"
            "    held_now = max(sum(x.data.nbytes for a in placed for x in a.addressable_shards if x.device == d)\n"
            "                   for d in jax.devices())\n"
            "    return {'parameters': held_now, 'optimizer': 2 * held_now + 4}"
        ),
        "placed and measured in a thread started before the check": (
            "import concurrent.futures\n"
            "_pool = concurrent.futures.ThreadPoolExecutor(1)\n"
            "_pool.submit(int).result()  # its worker thread exists before the check runs\n"
            "def _measure(sizes, layout, mesh_shape):\n"
            "    plain = {k: v for k, v in sizes.items() if k != 'kv_heads'}\n"
            "    with nnx.use_eager_sharding(False):\n"
            "        params = nnx.state(Decoder(**plain))\n"
            "    grid = jax.make_mesh(tuple(mesh_shape.values()), tuple(mesh_shape),\n"
            "                         axis_types=(jax.sharding.AxisType.Explicit,) * len(mesh_shape))\n"
            "    placed = jax.device_put(jax.tree.map(np.asarray, params), shardings(params, layout, grid))\n"
            "    total = max(sum(s.data.nbytes for leaf in jax.tree.leaves(placed)\n"
            "                    for s in leaf.addressable_shards if s.device == d) for d in jax.devices())\n"
            "    return {'parameters': total, 'optimizer': 2 * total + 4}\n"
            "def predict_bytes(sizes, layout, mesh_shape):\n"
            "    return _pool.submit(_measure, sizes, layout, mesh_shape).result()"
        ),
        "the transfer guard switched off, then placed and measured": (
            "def predict_bytes(sizes, layout, mesh_shape):\n"
            "    with jax.transfer_guard('allow'):\n"
            "        plain = {k: v for k, v in sizes.items() if k != 'kv_heads'}\n"
            "        with nnx.use_eager_sharding(False):\n"
            "            params = nnx.state(Decoder(**plain))\n"
            "        grid = jax.make_mesh(tuple(mesh_shape.values()), tuple(mesh_shape),\n"
            "                             axis_types=(jax.sharding.AxisType.Explicit,) * len(mesh_shape))\n"
            "        placed = jax.device_put(jax.tree.map(np.asarray, params), shardings(params, layout, grid))\n"
            "        held = ah.state_bytes(parameters=placed).largest('parameters')\n"
            "    return {'parameters': held, 'optimizer': 2 * held + 4}"
        ),
        "sizes read off nnx.eval_shape and the notebook's own shardings": (
            "def predict_bytes(sizes, layout, mesh_shape):\n"
            "    plain = {k: v for k, v in sizes.items() if k != 'kv_heads'}\n"
            "    with nnx.use_eager_sharding(False):\n"
            "        abstract = nnx.state(nnx.eval_shape(lambda: Decoder(**plain)))\n"
            "    leaves = jax.tree.leaves(abstract)\n"
            "    spec_leaves = jax.tree.leaves(specs(abstract, layout), is_leaf=lambda x: isinstance(x, P))\n"
            "    total = 0\n"
            "    for leaf, spec in zip(leaves, spec_leaves):\n"
            "        axes = [a for entry in spec if entry\n"
            "                for a in ((entry,) if isinstance(entry, str) else entry)]\n"
            "        total += 4 * math.prod(leaf.shape) // math.prod(mesh_shape[a] for a in axes)\n"
            "    return {'parameters': total, 'optimizer': 2 * total + 4}"
        ),
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
        "placed and measured under the check's transfer guard switched off": (
            "def predict_bytes(sizes, layout, mesh_shape):\n"
            "    with jax.transfer_guard('allow'):\n"
            "        grid = ah.make_mesh(tuple(mesh_shape), tuple(mesh_shape.values()))\n"
            "        with nnx.use_eager_sharding(False):\n"
            "            params = nnx.state(Decoder(**sizes))\n"
            "        placed = jax.device_put(params, shardings(params, layout, grid))\n"
            "        with jax.set_mesh(grid):\n"
            "            held = ah.state_bytes(parameters=placed, optimizer=init_optimizer(placed))\n"
            "        return {'parameters': held.largest('parameters'), 'optimizer': held.largest('optimizer')}"
        ),
    },
}


RIGHT_ANSWERS: dict[str, dict[str, str | tuple[str, ...]]] = {
    "10.1": {
        "a helper, tuples always, with a trial print": (
            "def as_axes(value):\n"
            "    if value is None:\n"
            "        return ()\n"
            "    return (value,) if isinstance(value, str) else tuple(value)\n"
            "def layout_rules(dp, fsdp, tp):\n"
            "    rules = {'batch': as_axes(dp) + as_axes(fsdp), 'embed': as_axes(fsdp),\n"
            "             'heads': as_axes(tp), 'mlp': as_axes(tp)}\n"
            "    return {name: axes or None for name, axes in rules.items()}\n"
            "print(layout_rules('data', None, 'model'))"
        ),
    },
    "10.2": {
        "the P alias and a mesh built by hand": (
            "from jax.sharding import Mesh, NamedSharding, PartitionSpec as P\n"
            "def resume_target(abstract, devices, batch):\n"
            "    count = max(k for k in range(1, len(devices) + 1)\n"
            "                if abstract['params']['embed'].shape[1] % k == 0 and batch % k == 0)\n"
            "    grid = Mesh(np.array(devices[:count]), ('data',),\n"
            "                axis_types=(jax.sharding.AxisType.Explicit,))\n"
            "    rules = [('embed', 'data')] + [(name, None) for name in\n"
            "             ('vocab', 'heads', 'kv_heads', 'head_dim', 'mlp')]\n"
            "    with nnx.logical_axis_rules(rules):\n"
            "        spec_tree = nnx.get_partition_spec(abstract)\n"
            "    return jax.tree.map(\n"
            "        lambda a, s: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=NamedSharding(grid, P(*s))),\n"
            "        abstract, spec_tree, is_leaf=lambda x: isinstance(x, P))"
        ),
    },
    "10.3": {
        "its own abstract tree, NamedSharding.shard_shape doing the division": (
            _TREE_103 + "def predict_bytes(s, layout, mesh_shape):\n"
            "    tree = _tree(s)\n"
            "    each = jax.tree.map(lambda a, sh: 4 * math.prod(sh.shard_shape(a.shape)),\n"
            "                        tree, shardings(tree, layout, _grid(mesh_shape)))\n"
            "    p = sum(jax.tree.leaves(each))\n"
            "    return {'parameters': p, 'optimizer': 2 * p + 4}"
        ),
        "a loop over the parameters' names, with math.prod": (
            "import math\n"
            "def predict_bytes(sizes, layout, mesh_shape):\n"
            "    def ways(names):\n"
            "        total = 1\n"
            "        for name in names:\n"
            "            axes = layout.get(name) if name else None\n"
            "            axes = () if axes is None else (axes,) if isinstance(axes, str) else axes\n"
            "            total *= math.prod(mesh_shape[a] for a in axes)\n"
            "        return total\n"
            "    d, v, f, h, w = (sizes[k] for k in ('d_model', 'vocab', 'd_ff', 'heads', 'head_dim'))\n"
            "    params = [(v * d, ('vocab', 'embed')), (d * v, ('embed', 'vocab'))]\n"
            "    block = [(h * w * d, ('heads', 'head_dim', 'embed')), (d * f, ('embed', 'mlp')),\n"
            "             (f * d, ('mlp', 'embed'))]\n"
            "    if 'kv_heads' in sizes:\n"
            "        block += [(d * h * w, ('embed', 'heads', 'head_dim')),\n"
            "                  (2 * d * sizes['kv_heads'] * w, ('embed', None, 'kv_heads', 'head_dim'))]\n"
            "    else:\n"
            "        block += [(3 * d * h * w, ('embed', None, 'heads', 'head_dim'))]\n"
            "    params += block * sizes['layers']\n"
            "    held = sum(4 * size // ways(names) for size, names in params)\n"
            "    return {'parameters': held, 'optimizer': 2 * held + 4}"
        ),
    },
}

COVERAGE: dict[str, dict[str, str]] = {
    "10.1": {
        "hard-coded": "hard-coded rules for the example's axes",
        "twin route": "n/a: the answer is a dictionary of mesh-axis names, with no computation "
        "in it; any road that builds the right dictionary is the skill itself",
        "tailored": "tailored to the case it was shown",
        "default": "nothing split: the default layout does the work",
        "elsewhere": "n/a: no array is computed, placed or moved by this answer, so there is "
        "nowhere else for the work to be done",
        "reference": "section 2's layouts looked up by which kinds are present",
        "idle": "rules under names the model does not use (they split nothing)",
        "times zero": "n/a: the answer is a dictionary of mesh-axis names; no operation runs "
        "whose outputs could be scaled by zero",
        "switches when traced": "n/a: the check calls the answer on axis names, never under a "
        "trace",
        "split across calls": "n/a: no per-call bound: every case's whole dictionary is "
        "compared with the rules",
        "unwatched": "n/a: the answer places and moves nothing; the check places the "
        "parameters itself from the dictionary",
        "host inside": "n/a: no device construct runs in the answer for the host to work in",
        "environment": "the configuration changed beside a right answer",
    },
    "10.2": {
        "hard-coded": "the notebook's own mesh, not the devices given",
        "twin route": "n/a: the target is a tree of ShapeDtypeStructs with shardings; any road "
        "to the same shardings over the same devices is the skill, and the roads that place "
        "data instead are the elsewhere and reference answers",
        "tailored": "tailored: every device when they divide, else one",
        "default": "the abstract state as it is: the default placement does the work",
        "elsewhere": "the state in memory moved there, not restored",
        "reference": "the checkpoint restored in here, arrays returned as the target",
        "idle": "the target built, then its shardings dropped",
        "times zero": "n/a: the answer is a tree of ShapeDtypeStructs; no operation runs whose "
        "outputs could be scaled by zero",
        "switches when traced": "n/a: the check calls the answer on a device list and an "
        "abstract state, never under a trace",
        "split across calls": "n/a: no per-call bound: each case's whole target is restored "
        "by the check and compared leaf by leaf",
        "unwatched": "n/a: any array the answer makes elsewhere cannot reach the result: the "
        "target must hold only abstract values, and the check's own restore places the data",
        "host inside": "n/a: no device construct runs in the answer for the host to work in",
        "environment": "the configuration changed beside a right answer",
    },
    "10.3": {
        "hard-coded": "hard-coded bytes of the example",
        "twin route": "n/a: the answer is arithmetic on the sizes; the same arithmetic by "
        "another road (NumPy, a loop) is the skill, and the roads that build arrays are the "
        "elsewhere answer the route check rejects",
        "tailored": "the notebook's sizes and mesh, not the arguments",
        "default": "the layout ignored: every parameter whole, as by default",
        "elsewhere": "placed and measured, not predicted",
        "reference": "section 3's measurements looked up by layout",
        "idle": "n/a: the task names no API to call (it is arithmetic), so no call can sit idle "
        "beside the answer; calls that build or place arrays are refused by the route check",
        "times zero": "n/a: the answer is arithmetic on sizes; no operation runs whose outputs "
        "could be scaled by zero (the route check refuses compiling and transferring)",
        "switches when traced": "n/a: the check calls the answer on dictionaries of sizes, "
        "never under a trace",
        "split across calls": "n/a: no per-call bound: one transfer or compilation in any "
        "call of the answer is refused (every call runs under the guard and the compile "
        "counter; the first-call-only form is a wrong answer above)",
        "unwatched": "placed and measured in a thread started before the check",
        "host inside": "n/a: the task is host arithmetic by design; there is no device "
        "construct for the host to work inside",
        "environment": "the transfer guard switched off, then placed and measured",
    },
}
