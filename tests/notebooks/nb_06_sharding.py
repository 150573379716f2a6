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
    },
    "06.3": {
        "hard-coded": "hard-coded product",
        "twin route": "reshard both operands first (gathers)",
        "tailored": "the right call only for the shapes shown",
        "default": "summed into whole rows (the fix shown above, not the layout asked for)",
        "elsewhere": "NumPy product placed afterwards",
        "reference": "the check's project_inputs product returned",
        "idle": "the partial-sum product computed and dropped, gathers used",
    },
    "06.4": {
        "hard-coded": "hard-coded array of the example",
        "twin route": "the whole built with jnp on the devices, no callback",
        "tailored": "start and stop read directly (an unsplit axis has none)",
        "default": "device_put of the whole array",
        "elsewhere": "NumPy-built coordinates, a .copy() of each slice",
        "reference": "the check's coordinates_reference, its blocks copied out",
        "idle": "make_array_from_callback called, its result unused",
    },
}
