"""Notebook 06_sharding: the wrong answers its checks must reject, and which of them stands
for each kind of lazy answer (see :mod:`tests.notebooks`)."""

from __future__ import annotations

WRONG_ANSWERS: dict[str, dict[str, str]] = {
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
        "the right spec, inside a mesh made current by the answer": (
            "def column_strips(mesh):\n    with jax.set_mesh(mesh):\n        return P(None, tuple(mesh.axis_names))"
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
        "the lined-up spec, after switching the partitioner": (
            "def weight_spec(x_spec, out_spec):\n    jax.config.update('jax_use_shardy_partitioner', False)\n    return P(x_spec[1], out_spec[1])"
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
        "the taught product times zero, plus a gathered product": (
            "def project(h, w):\n    taught = jnp.matmul(h, w, out_sharding=P('data', 'model'))\n    gathered = jax.reshard(h, P('data', None)) @ jax.reshard(w, P(None, 'model'))\n    return gathered + 0 * taught"
        ),
        "the product made by a host callback": (
            "def project(h, w):\n    shape = jax.ShapeDtypeStruct((h.shape[0], w.shape[1]), h.dtype)\n    product = jax.pure_callback(lambda a, b: np.asarray(a) @ np.asarray(b), shape,\n                                jax.reshard(h, P()), jax.reshard(w, P()))\n    return jax.reshard(product, P('data', 'model'))"
        ),
        "the right call, inside a mesh the answer makes current": (
            "def project(h, w):\n    with jax.set_mesh(mesh):\n        return jnp.matmul(h, w, out_sharding=P('data', 'model'))"
        ),
        # Review of 1818ab0: a gather spelled as one all-reduce of zero-padded operands.
        "both operands gathered by a psum of zero-padded blocks, then multiplied": (
            "def project(h, w):\n"
            "    k = w.shape[0]\n"
            "    msize = mesh.shape['model']\n"
            "    def local(hb, wb):\n"
            "        i = jax.lax.axis_index('model')\n"
            "        kb = hb.shape[1]\n"
            "        hfull = jax.lax.dynamic_update_slice(jnp.zeros((hb.shape[0], k), hb.dtype), hb, (0, i * kb))\n"
            "        wfull = jax.lax.dynamic_update_slice(jnp.zeros((k, wb.shape[1]), wb.dtype), wb, (i * kb, 0))\n"
            "        flat = jax.lax.psum(jnp.concatenate([hfull.ravel(), wfull.ravel()]), 'model')\n"
            "        hg = flat[: hfull.size].reshape(hfull.shape)\n"
            "        wg = flat[hfull.size :].reshape(wfull.shape)\n"
            "        m = wg.shape[1] // msize\n"
            "        return hg @ jax.lax.dynamic_slice_in_dim(wg, i * m, m, axis=1)\n"
            "    return jax.shard_map(local, in_specs=(P('data', 'model'), P('model', None)),\n"
            "                         out_specs=P('data', 'model'))(h, w)"
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
        "the whole built with jnp on a device in every callback, its block sliced out": (
            "def coordinates(shape, sharding):\n"
            "    def block(index):\n"
            "        i, j = jnp.indices(shape)\n"
            "        return (1000 * i + j).astype(jnp.int32)[index]\n"
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
        "make_array_from_callback times zero, plus the whole placed": (
            "def coordinates(shape, sharding):\n    def block(index):\n        r0, r1, _ = index[0].indices(shape[0])\n        c0, c1, _ = index[1].indices(shape[1])\n        i, j = np.mgrid[r0:r1, c0:c1]\n        return (1000 * i + j).astype(np.int32)\n    built = jax.make_array_from_callback(shape, sharding, block)\n    i, j = np.indices(shape)\n    return jax.device_put((1000 * i + j).astype(np.int32), sharding) + 0 * built"
        ),
        "blocks built inside a device the answer chose": (
            "def coordinates(shape, sharding):\n    def block(index):\n        r0, r1, _ = index[0].indices(shape[0])\n        c0, c1, _ = index[1].indices(shape[1])\n        i, j = np.mgrid[r0:r1, c0:c1]\n        return (1000 * i + j).astype(np.int32)\n    with jax.default_device(jax.devices()[0]):\n        return jax.make_array_from_callback(shape, sharding, block)"
        ),
        # Review of 1818ab0: the whole built in every callback, below the old 4 x whole bound.
        "the whole from sparse np.indices in every callback, a .copy() of the slice": (
            "def coordinates(shape, sharding):\n"
            "    def block(index):\n"
            "        i, j = np.indices(shape, dtype=np.int32, sparse=True)\n"
            "        return (1000 * i + j)[index].copy()\n"
            "    return jax.make_array_from_callback(shape, sharding, block)"
        ),
        "the whole from np.fromfunction in every callback": (
            "def coordinates(shape, sharding):\n"
            "    return jax.make_array_from_callback(shape, sharding, lambda index: np.fromfunction(lambda i, j: 1000 * i + j, shape, dtype=np.int32)[index].copy())"
        ),
        "the whole made with jnp in every callback, then made untraceable": (
            "def coordinates(shape, sharding):\n"
            "    def block(index):\n"
            "        i, j = jnp.indices(shape)\n"
            "        whole = np.asarray((1000 * i + j).astype(jnp.int32))\n"
            "        return whole[index].copy()\n"
            "    return jax.make_array_from_callback(shape, sharding, block)"
        ),
        "the whole made with jnp up front, kept in a deque": (
            "import collections\n\n\n"
            "def coordinates(shape, sharding):\n"
            "    i, j = jnp.indices(shape)\n"
            "    held = collections.deque([(1000 * i + j).astype(jnp.int32)])\n"
            "    return jax.make_array_from_callback(shape, sharding, lambda index: np.asarray(held[0])[index].copy())"
        ),
    },
}

COVERAGE: dict[str, dict[str, str]] = {
    "06.1": {
        "hard-coded": "hard-coded axis names",
        "twin route": "axis names sorted, not in the mesh's order",
        "tailored": "tailored: right for two-axis meshes only",
        "default": "nothing split (the default layout)",
        "elsewhere": "n/a: the answer is a PartitionSpec and the check places the data itself, "
        "so no answer can compute on one device or the host and place the result",
        "reference": "n/a: the check's helpers return block bounds and device ids, never a "
        "PartitionSpec, so nothing of the check's can be returned in place of the answer",
        "idle": "the mesh's names read, then a fixed spec returned",
        "times zero": "n/a: the answer is a PartitionSpec: there is no computed value whose taught operation could be multiplied by zero",
        "switches when traced": "n/a: the answer returns a PartitionSpec and is never traced; the check places data with it itself",
        "split across calls": "n/a: there is no per-call bound: each case is one call that returns one spec",
        "unwatched": "n/a: the answer does no work that a budget could miss: the check places the data and compiles the program with the returned spec",
        "host inside": "n/a: the answer returns a PartitionSpec; no device construct runs that the host could take work into",
        "environment": "the right spec, inside a mesh made current by the answer",
    },
    "06.2": {
        "hard-coded": "hard-coded spec of the example",
        "twin route": "the output's spec copied onto the weight",
        "tailored": "the contracted split ignored (right while it is never split)",
        "default": "weight replicated",
        "elsewhere": "n/a: the answer is a PartitionSpec; the check places both operands and "
        "compiles the product itself, so no answer can compute it elsewhere and place it",
        "reference": "n/a: the check holds no spec of its own; it compares measured collectives "
        "and the weight's block shape with counts, so it has no answer an answer could call",
        "idle": "the lined-up spec worked out, then not returned",
        "times zero": "n/a: the answer is a PartitionSpec: there is no computed value whose taught operation could be multiplied by zero",
        "switches when traced": "n/a: the answer returns a PartitionSpec and is never traced; the check places data with it itself",
        "split across calls": "n/a: there is no per-call bound: each case is one call that returns one spec",
        "unwatched": "n/a: the answer does no work that a budget could miss: the check places the data and compiles the program with the returned spec",
        "host inside": "n/a: the answer returns a PartitionSpec; no device construct runs that the host could take work into",
        "environment": "the lined-up spec, after switching the partitioner",
    },
    "06.3": {
        "hard-coded": "hard-coded product",
        "twin route": "reshard both operands first (gathers)",
        "tailored": "the right call only for the shapes shown",
        "default": "summed into whole rows (the fix shown above, not the layout asked for)",
        "elsewhere": "NumPy product placed afterwards",
        "reference": "the check's project_inputs product returned",
        "idle": "the partial-sum product computed and dropped, gathers used",
        "times zero": "the taught product times zero, plus a gathered product",
        "switches when traced": "n/a: the check traces the answer and takes every value from that one program (ah.uses reads it), so a branch for concrete values never runs",
        "split across calls": "n/a: there is no per-call bound: the budget is every collective of the compiled program, counted whole for each input tried",
        "unwatched": "n/a: the budget is the compiled program for every input tried; the only other place for the work is the host, through a callback, which is refused (host inside)",
        "host inside": "the product made by a host callback",
        "environment": "the right call, inside a mesh the answer makes current",
    },
    "06.4": {
        "hard-coded": "hard-coded array of the example",
        "twin route": "the whole built with jnp on the devices, no callback",
        "tailored": "start and stop read directly (an unsplit axis has none)",
        "default": "device_put of the whole array",
        "elsewhere": "NumPy-built coordinates, a .copy() of each slice",
        "reference": "the check's coordinates_reference, its blocks copied out",
        "idle": "make_array_from_callback called, its result unused",
        "times zero": "make_array_from_callback times zero, plus the whole placed",
        "switches when traced": "n/a: make_array_from_callback builds concrete arrays and is never traced: the values and the route checks come from the same eager calls",
        "split across calls": "n/a: the budget is the whole array itself: a callback holding half of it fails, however the work is divided among the calls",
        "unwatched": "the whole built with jnp on a device in every callback, its block sliced out",
        "host inside": "n/a: the callback is the taught construct and runs on the host by design: building each block on the host is the lesson",
        "environment": "blocks built inside a device the answer chose",
    },
}


RIGHT_ANSWERS: dict[str, dict[str, str | tuple[str, ...]]] = {
    "06.1": {
        "PartitionSpec spelled out, from its own import": "from jax.sharding import PartitionSpec\n\n\ndef column_strips(mesh):\n    every_axis = tuple(mesh.axis_names)\n    return PartitionSpec(None, every_axis)",
    },
    "06.2": {
        "PartitionSpec spelled out, the entries named": "from jax.sharding import PartitionSpec\n\n\ndef weight_spec(x_spec, out_spec):\n    contracted, columns = x_spec[1], out_spec[1]\n    return PartitionSpec(contracted, columns)",
    },
    "06.3": {
        "PartitionSpec spelled out, jnp.dot, a trial print": "from jax.sharding import PartitionSpec\n\n\ndef project(h, w):\n    out = jnp.matmul(h, w, out_sharding=PartitionSpec('data', 'model'))\n    print('product type:', jax.typeof(out))\n    return out",
    },
    "06.4": {
        "np.mgrid over the block's bounds": "def coordinates(shape, sharding):\n    def block(index):\n        (r0, r1, _), (c0, c1, _) = (s.indices(length) for s, length in zip(index, shape))\n        i, j = np.mgrid[r0:r1, c0:c1]\n        return (1000 * i + j).astype(np.int32)\n\n    return jax.make_array_from_callback(shape, sharding, block)",
        "np.arange outer sum in a helper": "def block_values(rows, cols):\n    return (1000 * rows[:, None] + cols[None, :]).astype(np.int32)\n\n\ndef coordinates(shape, sharding):\n    def block(index):\n        rows = np.arange(shape[0])[index[0]]\n        cols = np.arange(shape[1])[index[1]]\n        return block_values(rows, cols)\n\n    return jax.make_array_from_callback(shape, sharding, block)",
    },
}
