"""Notebook 08_multi_host: the wrong answers its checks must reject, and which of them stands
for each kind of lazy answer (see :mod:`tests.notebooks`)."""

from __future__ import annotations

WRONG_ANSWERS: dict[str, dict[str, str]] = {
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
        "every row replicated on every device, then NumPy on the host copy": (
            "def global_feature_stds(local_rows):\n"
            "    import jax\n"
            "    import numpy as np\n"
            "    from jax.sharding import NamedSharding, PartitionSpec as P\n"
            "    mesh = jax.make_mesh((jax.device_count(),), ('data',))\n"
            "    data = jax.make_array_from_process_local_data(NamedSharding(mesh, P('data')), local_rows)\n"
            "    everywhere = jax.device_put(data, NamedSharding(mesh, P()))\n"
            "    spread = np.asarray(everywhere.addressable_data(0)).std(axis=0)\n"
            "    return jax.device_put(spread, NamedSharding(mesh, P()))"
        ),
        "the jitted spread times zero, plus a NumPy spread of gathered rows": (
            "def global_feature_stds(local_rows):\n    import jax\n    from jax.experimental import multihost_utils\n    from jax.sharding import NamedSharding, PartitionSpec as P\n    mesh = jax.make_mesh((jax.device_count(),), ('data',))\n    data = jax.make_array_from_process_local_data(NamedSharding(mesh, P('data')), local_rows)\n    device = jax.jit(lambda x: x.std(axis=0), out_shardings=NamedSharding(mesh, P()))(data)\n    host = multihost_utils.process_allgather(local_rows, tiled=True).std(axis=0)\n    return device * 0 + host"
        ),
        "the right program, inside a mesh the answer makes current": (
            "def global_feature_stds(local_rows):\n    import jax\n    from jax.sharding import AxisType, NamedSharding, PartitionSpec as P\n    mesh = jax.make_mesh((jax.device_count(),), ('data',), axis_types=(AxisType.Explicit,))\n    with jax.set_mesh(mesh):\n        data = jax.make_array_from_process_local_data(NamedSharding(mesh, P('data')), local_rows)\n        return jax.jit(lambda x: x.std(axis=0), out_shardings=NamedSharding(mesh, P()))(data)"
        ),
        "the rows all-gathered by a jitted identity returning a tuple, NumPy spread (review of 1818ab0)": "def global_feature_stds(local_rows):\n    import jax\n    import numpy as np\n    from jax.sharding import NamedSharding, PartitionSpec as P\n    mesh = jax.make_mesh((jax.device_count(),), ('data',))\n    data = jax.make_array_from_process_local_data(NamedSharding(mesh, P('data')), local_rows)\n    (everywhere,) = jax.jit(lambda x: (x * 1.0,), out_shardings=(NamedSharding(mesh, P()),))(data)\n    spread = np.asarray(everywhere).std(axis=0)\n    return jax.device_put(spread, NamedSharding(mesh, P()))",
        "the same, returned in a dict": "def global_feature_stds(local_rows):\n    import jax\n    import numpy as np\n    from jax.sharding import NamedSharding, PartitionSpec as P\n    mesh = jax.make_mesh((jax.device_count(),), ('data',))\n    data = jax.make_array_from_process_local_data(NamedSharding(mesh, P('data')), local_rows)\n    rows = jax.jit(lambda x: {'all': x + 0}, out_shardings={'all': NamedSharding(mesh, P())})(data)['all']\n    return jax.device_put(np.asarray(rows).std(axis=0), NamedSharding(mesh, P()))",
    },
    "08.2": {
        "one process_allgather per row, each within the per-call bound": (
            "def uneven_mean(local_rows):\n"
            "    import numpy as np\n"
            "    from jax.experimental import multihost_utils\n"
            "    counts = multihost_utils.process_allgather(np.int32(len(local_rows)))\n"
            "    width = local_rows.shape[1]\n"
            "    rows = []\n"
            "    for i in range(int(counts.max())):\n"
            "        mine = local_rows[i] if i < len(local_rows) else np.full(width, np.nan, np.float32)\n"
            "        rows.append(multihost_utils.process_allgather(mine.astype(np.float32)))\n"
            "    everything = np.concatenate(rows)\n"
            "    return np.nanmean(everything, axis=0).astype(np.float32)"
        ),
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
        "the gathered totals times zero, plus this process's mean": (
            "def uneven_mean(local_rows):\n    import numpy as np\n    from jax.experimental import multihost_utils\n    packed = np.append(local_rows.sum(axis=0), len(local_rows)).astype(np.float32)\n    totals = multihost_utils.process_allgather(packed).sum(axis=0)\n    return 0 * totals[:-1] / totals[-1] + local_rows.mean(axis=0)"
        ),
        "the right gathers, in 64-bit mode switched on by the answer": (
            "def uneven_mean(local_rows):\n    import jax\n    import numpy as np\n    from jax.experimental import multihost_utils\n    jax.config.update('jax_enable_x64', True)\n    counts = multihost_utils.process_allgather(np.float32(len(local_rows)))\n    sums = multihost_utils.process_allgather(local_rows.sum(axis=0).astype(np.float32))\n    return sums.sum(axis=0) / counts.sum()"
        ),
        "padded rows gathered inside a dict (review of 1818ab0)": "def uneven_mean(local_rows):\n    import numpy as np\n    from jax.experimental import multihost_utils\n    counts = multihost_utils.process_allgather(np.int32(len(local_rows)))\n    padded = np.zeros((int(counts.max()), local_rows.shape[1]), np.float32)\n    padded[: len(local_rows)] = local_rows\n    rows = multihost_utils.process_allgather({'rows': padded})['rows']\n    every = np.concatenate([r[:c] for r, c in zip(rows, counts)])\n    return every.mean(axis=0)",
        "padded rows made a global array, that gathered": "def uneven_mean(local_rows):\n    import jax\n    import numpy as np\n    from jax.experimental import multihost_utils\n    from jax.sharding import NamedSharding, PartitionSpec as P\n    counts = multihost_utils.process_allgather(np.int32(len(local_rows)))\n    k = jax.local_device_count()\n    m = -(-int(counts.max()) // k) * k\n    padded = np.zeros((m, local_rows.shape[1]), np.float32)\n    padded[: len(local_rows)] = local_rows\n    mesh = jax.make_mesh((jax.device_count(),), ('data',))\n    glob = jax.make_array_from_process_local_data(NamedSharding(mesh, P('data')), padded)\n    rows = multihost_utils.process_allgather(glob, tiled=True).reshape(len(counts), m, -1)\n    every = np.concatenate([r[:c] for r, c in zip(rows, counts)])\n    return every.mean(axis=0)",
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
        "rank 0's order broadcast one element per call": (
            "def shared_order(my_seed, n):\n    import numpy as np\n    from jax.experimental import multihost_utils\n    mine = np.random.default_rng(my_seed).permutation(n).astype(np.int32)\n    order = np.array([int(multihost_utils.broadcast_one_to_all(np.int32(v))) for v in mine], np.int32)\n    multihost_utils.assert_equal(order, 'the processes disagree on the order')\n    return order"
        ),
        "the broadcast order times zero, plus this process's own draw": (
            "def shared_order(my_seed, n):\n    import numpy as np\n    from jax.experimental import multihost_utils\n    mine = np.random.default_rng(my_seed).permutation(n).astype(np.int32)\n    order = np.asarray(multihost_utils.broadcast_one_to_all(mine))\n    multihost_utils.assert_equal(order, 'the processes disagree on the order')\n    return 0 * order + mine"
        ),
        "the right calls, with the default PRNG the answer switched": (
            "def shared_order(my_seed, n):\n    import jax\n    import numpy as np\n    from jax.experimental import multihost_utils\n    jax.config.update('jax_default_prng_impl', 'rbg')\n    mine = np.random.default_rng(my_seed).permutation(n).astype(np.int32)\n    order = np.asarray(multihost_utils.broadcast_one_to_all(mine))\n    multihost_utils.assert_equal(order, 'the processes disagree on the order')\n    return order"
        ),
        "draws gathered in a tuple, rank 0's kept, then broadcast (review of 1818ab0)": "def shared_order(my_seed, n):\n    import numpy as np\n    from jax.experimental import multihost_utils\n    mine = np.random.default_rng(my_seed).permutation(n).astype(np.int32)\n    (everyone,) = multihost_utils.process_allgather((mine,))\n    order = np.asarray(multihost_utils.broadcast_one_to_all(np.asarray(everyone[0])))\n    multihost_utils.assert_equal(order, 'disagree')\n    return order",
        "everyone's draws gathered, rank 0's kept, broadcast from rank 0 (an identity)": "def shared_order(my_seed, n):\n    import numpy as np\n    from jax.experimental import multihost_utils\n    mine = np.random.default_rng(my_seed).permutation(n).astype(np.int32)\n    first = multihost_utils.process_allgather([mine])[0][0]\n    order = np.asarray(multihost_utils.broadcast_one_to_all(first))\n    multihost_utils.assert_equal(order, 'disagree')\n    return order",
    },
}

COVERAGE: dict[str, dict[str, str]] = {
    "08.1": {
        "hard-coded": "hard-coded ones (the spread the data is drawn with)",
        "twin route": "NumPy spread of rows gathered with process_allgather",
        "tailored": "tailored: the shown row count written in",
        "default": "this process's rows only",
        "elsewhere": "each host's moments in NumPy, only they made global",
        "reference": "the lesson's feature_means repeated (a mean, not a spread)",
        "idle": "rows shared through files behind an unwatched barrier",
        "times zero": "the jitted spread times zero, plus a NumPy spread of gathered rows",
        "switches when traced": "n/a: the answer runs eagerly in each process on NumPy data; nothing of it is traced, so there is no traced route to switch to",
        "split across calls": "n/a: every call of process_allgather is refused in 08.1, one or many, and one device holding more rows than its process has fails however the copies are made",
        "unwatched": "every row replicated on every device, then NumPy on the host copy",
        "host inside": "n/a: the exercise is about process-level collectives on host values; there is no device construct for the host to take work into",
        "environment": "the right program, inside a mesh the answer makes current",
    },
    "08.2": {
        "hard-coded": "hard-coded zeros",
        "twin route": "one broadcast_one_to_all per rank instead of the gather",
        "tailored": "tailored: every shard assumed as large as this one",
        "default": "this process's mean only",
        "elsewhere": "every process's rows padded and gathered, then NumPy",
        "reference": "n/a: the check's reference runs in the notebook's process, a"
        "nd the answer runs in the cluster's processes, which receive only the answer's source and their own inputs, so no reference is within its reach",
        "idle": "broadcasts per rank, a gather called beside them and unused",
        "times zero": "the gathered totals times zero, plus this process's mean",
        "switches when traced": "n/a: the answer runs eagerly in each process on NumPy data; nothing of it is traced, so there is no traced route to switch to",
        "split across calls": "one process_allgather per row, each within the per-call bound",
        "unwatched": "n/a: the budget is everything handed to process_allgather over all calls; another way between processes means files or sockets, which the answer rules refuse (08.1's table has one through files)",
        "host inside": "n/a: the exercise is about process-level collectives on host values; there is no device construct for the host to take work into",
        "environment": "the right gathers, in 64-bit mode switched on by the answer",
    },
    "08.3": {
        "hard-coded": "hard-coded identity order",
        "twin route": "rank 0's seed broadcast, its permutation drawn again on every process",
        "tailored": "tailored: the draw of a seed all processes share",
        "default": "each process keeps its own draw",
        "elsewhere": "everyone's draws gathered, rank 0's row kept (no broadcast)",
        "reference": "n/a: the check's reference runs in the notebook's process, a"
        "nd the answer runs in the cluster's processes, which receive only the answer's source and their own inputs, so no reference is within its reach",
        "idle": "assert_equal on a constant",
        "times zero": "the broadcast order times zero, plus this process's own draw",
        "switches when traced": "n/a: the answer runs eagerly in each process on NumPy data; nothing of it is traced, so there is no traced route to switch to",
        "split across calls": "rank 0's order broadcast one element per call",
        "unwatched": "n/a: the only way to rank 0's order is another process's data, and every way between processes but the watched collectives (files, sockets) is refused by the answer rules",
        "host inside": "n/a: the exercise is about process-level collectives on host values; there is no device construct for the host to take work into",
        "environment": "the right calls, with the default PRNG the answer switched",
    },
}


RIGHT_ANSWERS: dict[str, dict[str, str | tuple[str, ...]]] = {
    "08.1": {
        "PartitionSpec spelled out, a helper for the mesh": "def global_feature_stds(local_rows):\n    import jax\n    from jax.sharding import NamedSharding, PartitionSpec\n\n    def rows_mesh():\n        return jax.make_mesh((jax.device_count(),), ('rows',))\n\n    mesh = rows_mesh()\n    rows = jax.make_array_from_process_local_data(NamedSharding(mesh, PartitionSpec('rows')), local_rows)\n    std = jax.jit(lambda x: x.std(axis=0), out_shardings=NamedSharding(mesh, PartitionSpec()))\n    return std(rows)",
    },
    "08.2": {
        "one gather of the sums and the count together": "def uneven_mean(local_rows):\n    import numpy as np\n    from jax.experimental import multihost_utils\n\n    mine = np.concatenate([local_rows.sum(axis=0), [len(local_rows)]]).astype(np.float32)\n    everyone = multihost_utils.process_allgather(mine)\n    return everyone[:, :-1].sum(axis=0) / everyone[:, -1].sum()",
        "sums and count gathered as one tuple (a pytree)": "def uneven_mean(local_rows):\n    import numpy as np\n    from jax.experimental import multihost_utils\n    sums, counts = multihost_utils.process_allgather((local_rows.sum(axis=0), np.float32(len(local_rows))))\n    return sums.sum(axis=0) / counts.sum()",
    },
    "08.3": {
        "is_source spelled out, a helper for the draw": "def shared_order(my_seed, n):\n    import jax\n    import numpy as np\n    from jax.experimental import multihost_utils\n\n    def draw(seed, size):\n        return np.random.default_rng(seed).permutation(size).astype(np.int32)\n\n    order = multihost_utils.broadcast_one_to_all(draw(my_seed, n), is_source=jax.process_index() == 0)\n    order = np.asarray(order)\n    multihost_utils.assert_equal(order, 'orders differ')\n    return order",
        "agreement confirmed on a dict": "def shared_order(my_seed, n):\n    import numpy as np\n    from jax.experimental import multihost_utils\n    order = multihost_utils.broadcast_one_to_all(np.random.default_rng(my_seed).permutation(n).astype(np.int32))\n    multihost_utils.assert_equal({'order': order}, 'orders differ')\n    return order",
    },
}
