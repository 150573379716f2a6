"""Notebook 04_placement: the wrong answers its checks must reject, and which of them stands
for each kind of lazy answer (see :mod:`tests.notebooks`)."""

from __future__ import annotations

WRONG_ANSWERS: dict[str, dict[str, str]] = {
    "04.1": {
        "the check's configuration changed by the answer (64-bit mode switched globally)": (
            'jax.config.update(\'jax_enable_x64\', True)\ndef bytes_arriving(src, dst):\n    """Bytes that must arrive on devices (and memories) to turn src into dst."""\n\n    def bounds(index, shape):\n        return [sl.indices(size)[:2] for sl, size in zip(index, shape, strict=True)]\n\n    def overlap(a, b):\n        return math.prod(max(0, min(a1, b1) - max(a0, b0)) for (a0, a1), (b0, b1) in zip(a, b, strict=True))\n\n    same_memory = src.sharding.memory_kind == dst.sharding.memory_kind\n    total = 0\n    for shard in dst.addressable_shards:\n        wanted = bounds(shard.index, dst.shape)\n        held = sum(overlap(wanted, bounds(s.index, src.shape))\n                   for s in src.addressable_shards if same_memory and s.device == shard.device)\n        total += (math.prod(hi - lo for lo, hi in wanted) - held) * dst.dtype.itemsize\n    return total\n'
        ),
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
        "the check's transfer guard switched off for a NumPy detour": (
            "def park_state(state):\n"
            "    with jax.transfer_guard('allow'):\n"
            "        return jax.tree.map(lambda a: jax.device_put(\n"
            "            np.asarray(a), a.sharding.with_memory_kind('pinned_host')), state)"
        ),
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
        "the check's transfer guard switched off for a NumPy detour": (
            "from jax import transfer_guard as guard\n"
            "\n"
            "def add_on(a, b, device):\n"
            "    with guard('allow'):\n"
            "        return jax.device_put(np.asarray(a) + np.asarray(b), device)"
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
        "the check's transfer guard switched off for section 7's NumPy route": (
            "def replicate_rows(v):\n"
            "    with jax.transfer_guard('allow'):\n"
            "        stacked_rows = np.broadcast_to(np.asarray(v), (n, *np.shape(v)))\n"
            "        rows = Mesh(np.array(jax.devices()), ('rows',))\n"
            "        return jax.device_put(stacked_rows, NamedSharding(rows, PartitionSpec('rows')))"
        ),
    },
}

COVERAGE: dict[str, dict[str, str]] = {
    "04.1": {
        "hard-coded": "hard-coded: the one-device-to-split figure",
        "twin route": "all or nothing by comparing shardings",
        "tailored": "four bytes per element assumed",
        "default": "memory kinds ignored",
        "elsewhere": "n/a: the answer is arithmetic on shard metadata (slices, devices, memory "
        "kinds) in Python; no array is computed, so no work could run elsewhere and be moved",
        "reference": "the check's cases looked up by identity",
        "idle": "shards read, then ignored",
        "times zero": "n/a: the answer is arithmetic on shard metadata; no operation's values could be cancelled",
        "switches when traced": "n/a: the answer is arithmetic on shard metadata; nothing is traced",
        "host inside": "n/a: no taught construct runs code the host could take over",
        "split across calls": "n/a: the check sets no per-call bound: one call of the answer is judged whole",
        "unwatched": "n/a: the check sets no budget on where arrays are made or how much memory the answer uses; it judges the returned values and the traced route",
        "environment": "the check's configuration changed by the answer (64-bit mode switched globally)",
    },
    "04.2": {
        "hard-coded": "hard-coded: the state of the notebook",
        "twin route": "a detour through NumPy",
        "tailored": "tailored: only the two keys of the example",
        "default": "the default does the work: still in device memory",
        "elsewhere": "the layout is lost: every leaf on one device",
        "reference": "the check's own reference",
        "idle": "the API called and its result thrown away",
        "environment": "the check's transfer guard switched off for a NumPy detour",
        "split across calls": "n/a: the check sets no per-call bound: one call of the answer is judged whole",
        "unwatched": "n/a: the check sets no budget on where arrays are made or how much memory the answer uses; it judges the returned values and the traced route",
        "host inside": "n/a: the taught operation is one primitive with no body (loop, kernel or shard_map) a callback could sit in; a callback anywhere in the answer is refused as 'elsewhere'",
    },
    "04.3": {
        "hard-coded": "hard-coded: the sum of the notebook's inputs",
        "twin route": "a twin route: jnp.add on device 0 under jit, moved",
        "tailored": "tailored: both moved to the shown target, the middle device",
        "default": "no explicit move: plain a + b",
        "elsewhere": "added on b's device, the result moved",
        "reference": "the check's own reference",
        "idle": "a move to device made and dropped; the sum made on a's device and moved",
        "environment": "the check's transfer guard switched off for a NumPy detour",
        "split across calls": "n/a: the check sets no per-call bound: one call of the answer is judged whole",
        "unwatched": "n/a: the check sets no budget on where arrays are made or how much memory the answer uses; it judges the returned values and the traced route",
        "host inside": "n/a: the taught operation is one primitive with no body (loop, kernel or shard_map) a callback could sit in; a callback anywhere in the answer is refused as 'elsewhere'",
    },
    "04.4": {
        "hard-coded": "hard-coded: rows of the notebook's vector",
        "twin route": "the whole stack broadcast under jit from a replicated copy",
        "tailored": "tailored: the whole stack built flat on v's device, split, then reshaped",
        "default": "stacked on the default device",
        "elsewhere": "the whole stack built on v's device, then resharded",
        "reference": "the check's own reference",
        "idle": "per-device copies made and dropped; the whole stack built eagerly and resharded",
        "environment": "the check's transfer guard switched off for section 7's NumPy route",
        "split across calls": "n/a: the check sets no per-call bound: one call of the answer is judged whole",
        "host inside": "n/a: the taught operation is one primitive with no body (loop, kernel or shard_map) a callback could sit in; a callback anywhere in the answer is refused as 'elsewhere'",
    },
}

# Issue 38's kinds not yet named above.
WRONG_ANSWERS["04.2"]["NumPy on concrete leaves, the move to pinned_host only when traced"] = (
    "def park_state(state):\n"
    "    def park(a):\n"
    "        target = a.sharding.with_memory_kind('pinned_host')\n"
    "        try:\n"
    "            return jax.device_put(np.asarray(a), target)\n"
    "        except Exception:\n"
    "            return jax.device_put(a, target)\n"
    "    return jax.tree.map(park, state)"
)
WRONG_ANSWERS["04.3"].update(
    {
        "a NumPy sum placed on device, plus 0 * the sum on device": (
            "def add_on(a, b, device):\n"
            "    on_device = jax.device_put(a, device) + jax.device_put(b, device)\n"
            "    return jax.device_put(np.asarray(a) + np.asarray(b), device) + 0 * on_device"
        ),
        "NumPy on concrete inputs, the moves only when traced": (
            "def add_on(a, b, device):\n"
            "    try:\n"
            "        return jax.device_put(np.asarray(a) + np.asarray(b), device)\n"
            "    except Exception:\n"
            "        return jax.device_put(a, device) + jax.device_put(b, device)"
        ),
    }
)
WRONG_ANSWERS["04.4"].update(
    {
        "the whole stack resharded, plus 0 * rows assembled per device": (
            "def replicate_rows(v):\n"
            "    everyone = jax.devices()\n"
            "    rows = NamedSharding(Mesh(np.array(everyone), ('rows',)), PartitionSpec('rows'))\n"
            "    own = [jax.device_put(v, d)[None] for d in everyone]\n"
            "    assembled = jax.make_array_from_single_device_arrays((len(everyone), *v.shape), rows, own)\n"
            "    return jax.device_put(jnp.stack([v] * n), rows) + 0 * assembled"
        ),
        "NumPy rows on a concrete v, per-device copies only when traced": (
            "def replicate_rows(v):\n"
            "    everyone = jax.devices()\n"
            "    rows = NamedSharding(Mesh(np.array(everyone), ('rows',)), PartitionSpec('rows'))\n"
            "    try:\n"
            "        return jax.device_put(np.broadcast_to(np.asarray(v), (n, *np.shape(v))), rows)\n"
            "    except Exception:\n"
            "        own = [jax.device_put(v, d)[None] for d in everyone]\n"
            "        return jax.make_array_from_single_device_arrays((n, *v.shape), rows, own)"
        ),
        "the whole stack built on v's device, handed out by make_array_from_callback": (
            "def replicate_rows(v):\n"
            "    whole = jnp.stack([v] * n)\n"
            "    rows = NamedSharding(Mesh(np.array(jax.devices()), ('rows',)), PartitionSpec('rows'))\n"
            "    return jax.make_array_from_callback(whole.shape, rows, lambda index: whole[index])"
        ),
    }
)
COVERAGE["04.2"].update(
    {
        "times zero": "n/a: the answer returns the given leaves unchanged in another memory; no value is computed that a cancelled operation could be added to",
        "switches when traced": "NumPy on concrete leaves, the move to pinned_host only when traced",
    }
)
COVERAGE["04.3"].update(
    {
        "times zero": "a NumPy sum placed on device, plus 0 * the sum on device",
        "switches when traced": "NumPy on concrete inputs, the moves only when traced",
    }
)
COVERAGE["04.4"].update(
    {
        "times zero": "the whole stack resharded, plus 0 * rows assembled per device",
        "switches when traced": "NumPy rows on a concrete v, per-device copies only when traced",
        "unwatched": "the whole stack built on v's device, handed out by make_array_from_callback",
    }
)

# The guard's error swallowed (issue 38's "environment", by another road): the NumPy detour is
# tried first, and only where the check's transfer guard refuses it does the answer fall back to
# the taught route. `jnp.asarray` and `device_put` imported under another name escaped a check that
# watched calls of `jax.device_put`; the check now watches every refused transfer, caught or not.
WRONG_ANSWERS["04.2"]["the guard's refusal caught: NumPy through jnp.asarray, else the move"] = (
    "def park_state(state):\n"
    "    def park(a):\n"
    "        target = a.sharding.with_memory_kind('pinned_host')\n"
    "        try:\n"
    "            return jax.device_put(jnp.asarray(np.asarray(a)), target)\n"
    "        except Exception:\n"
    "            return jax.device_put(a, target)\n"
    "    return jax.tree.map(park, state)"
)
WRONG_ANSWERS["04.2"]["the guard's refusal caught: device_put under another name"] = (
    "from jax import device_put as put\n"
    "\n"
    "\n"
    "def park_state(state):\n"
    "    def park(a):\n"
    "        target = a.sharding.with_memory_kind('pinned_host')\n"
    "        try:\n"
    "            return put(np.asarray(a), target)\n"
    "        except Exception:\n"
    "            return put(a, target)\n"
    "    return jax.tree.map(park, state)"
)
WRONG_ANSWERS["04.3"]["the guard's refusal caught: a NumPy sum through jnp.asarray(device=)"] = (
    "def add_on(a, b, device):\n"
    "    try:\n"
    "        return jnp.asarray(np.asarray(a) + np.asarray(b), device=device)\n"
    "    except Exception:\n"
    "        return jax.device_put(a, device) + jax.device_put(b, device)"
)
WRONG_ANSWERS["04.3"]["the guard's refusal caught: device_put under another name"] = (
    "from jax import device_put as put\n"
    "\n"
    "\n"
    "def add_on(a, b, device):\n"
    "    try:\n"
    "        return put(np.asarray(a) + np.asarray(b), device)\n"
    "    except Exception:\n"
    "        return put(a, device) + put(b, device)"
)
WRONG_ANSWERS["04.4"]["the guard's refusal caught: NumPy rows through jnp.asarray(device=)"] = (
    "def replicate_rows(v):\n"
    "    rows = NamedSharding(Mesh(np.array(jax.devices()), ('rows',)), PartitionSpec('rows'))\n"
    "    try:\n"
    "        return jnp.asarray(np.broadcast_to(np.asarray(v), (n, *np.shape(v))), device=rows)\n"
    "    except Exception:\n"
    "        own = [jax.device_put(v, d)[None] for d in jax.devices()]\n"
    "        return jax.make_array_from_single_device_arrays((n, *v.shape), rows, own)"
)
WRONG_ANSWERS["04.4"]["the guard's refusal caught: device_put under another name"] = (
    "from jax import device_put as put\n"
    "\n"
    "\n"
    "def replicate_rows(v):\n"
    "    rows = NamedSharding(Mesh(np.array(jax.devices()), ('rows',)), PartitionSpec('rows'))\n"
    "    try:\n"
    "        return put(np.broadcast_to(np.asarray(v), (n, *np.shape(v))), rows)\n"
    "    except Exception:\n"
    "        own = [put(v, d)[None] for d in jax.devices()]\n"
    "        return jax.make_array_from_single_device_arrays((n, *v.shape), rows, own)"
)

# Honest answers in ordinary styles (issue 38, "Must hold"): each must score "solved".
RIGHT_ANSWERS: dict[str, dict[str, str | tuple[str, ...]]] = {
    "04.1": {
        "helpers, math, two cells": (
            "import math\n\n\ndef box(index, shape):\n    return [range(*sl.indices(size)) for sl, size in zip(index, shape)]",
            "def common(a, b):\n    return math.prod(max(0, min(x.stop, y.stop) - max(x.start, y.start)) for x, y in zip(a, b))\n\n\ndef bytes_arriving(src, dst):\n    total = 0\n    for shard in dst.addressable_shards:\n        want = box(shard.index, dst.shape)\n        have = 0\n        if src.sharding.memory_kind == dst.sharding.memory_kind:\n            have = sum(common(want, box(s.index, src.shape)) for s in src.addressable_shards if s.device == shard.device)\n        total += (math.prod(len(r) for r in want) - have) * dst.dtype.itemsize\n    return total",
        ),
    },
    "04.2": {
        "tree.map of device_put, print": "def park_state(state):\n    parked = jax.tree.map(lambda a: jax.device_put(a, a.sharding.with_memory_kind('pinned_host')), state)\n    print(jax.tree.map(lambda a: a.sharding.memory_kind, parked))\n    return parked",
        "helper": "def to_pinned_host(array):\n    return jax.device_put(array, array.sharding.with_memory_kind(kind='pinned_host'))\n\n\ndef park_state(state):\n    return jax.tree_util.tree_map(to_pinned_host, state)",
    },
    "04.3": {
        "tuple put, jnp.add": "def add_on(a, b, device):\n    left, right = jax.device_put((a, b), device)\n    return jnp.add(left, right)",
        "the sum under jit, a helper": "def moved_to(x, device):\n    return jax.device_put(x, device)\n\n\ndef add_on(a, b, device):\n    return jax.jit(lambda p, q: p + q)(moved_to(a, device), moved_to(b, device))",
        "a helper for the move, a print": "def put_on(x, device):\n    return jax.device_put(x, device)\n\n\ndef add_on(a, b, device):\n    total = put_on(a, device) + put_on(b, device)\n    print(total.sharding)\n    return total",
    },
    "04.4": {
        "per-device puts, helper, expand_dims": "def one_row(v, device):\n    return jnp.expand_dims(jax.device_put(v, device), 0)\n\n\ndef replicate_rows(v):\n    everyone = jax.devices()\n    layout = NamedSharding(Mesh(np.array(everyone), ('rows',)), jax.P('rows'))\n    return jax.make_array_from_single_device_arrays((len(everyone),) + v.shape, layout, [one_row(v, d) for d in everyone])",
        "jax.make_mesh and P alias, print": "from jax.sharding import PartitionSpec as P\n\n\ndef replicate_rows(v):\n    mesh = jax.make_mesh((len(jax.devices()),), ('rows',))\n    pieces = [jax.device_put(v[None], d) for d in mesh.devices.flat]\n    out = jax.make_array_from_single_device_arrays((len(pieces), *v.shape), NamedSharding(mesh, P('rows')), pieces)\n    print(out.sharding)\n    return out",
        "jax.shard_map, the P alias": "from jax.sharding import PartitionSpec as P\n\n\ndef replicate_rows(v):\n    mesh = Mesh(np.array(jax.devices()), ('rows',))\n    everywhere = jax.device_put(v, NamedSharding(mesh, P()))\n    return jax.shard_map(lambda t: t[None], mesh=mesh, in_specs=P(), out_specs=P('rows'))(everywhere)",
    },
}

# The review of 1818ab0 (/work/tmp/review-04_placement.md): a detour through DLPack adopts host
# memory with no copy for the guard to refuse; a decoy move made first hid the real one from a
# guard that stops at the first copy, and an alias of jax.device_put escaped a patched attribute.
# The checks now watch every call of jax.device_put's code and of the DLPack imports.
WRONG_ANSWERS["04.2"][
    "a NumPy detour through DLPack (no host-to-device copy for the guard to refuse)"
] = 'def park_state(state):\n    def park(a):\n        on_host = jax.dlpack.from_dlpack(np.asarray(a).copy())\n        return jax.device_put(on_host, a.sharding.with_memory_kind("pinned_host"))\n    return jax.tree.map(park, state)\n'
WRONG_ANSWERS["04.3"][
    "a decoy move to `device`, then the sum on a's device through an alias of device_put"
] = "put = jax.device_put\ndef add_on(a, b, device):\n    put(a, device)  # decoy\n    d0 = next(iter(a.devices()))\n    return put(put(a, d0) + put(b, d0), device)\n"
WRONG_ANSWERS["04.3"]["a NumPy sum through DLPack, placed with jax.device_put"] = (
    "def add_on(a, b, device):\n    return jax.device_put(jax.dlpack.from_dlpack(np.asarray(a) + np.asarray(b)), device)\n"
)
WRONG_ANSWERS["04.4"][
    "a decoy row move, then the whole stack on v's device resharded through an alias"
] = 'put = jax.device_put\ndef replicate_rows(v):\n    everyone = jax.devices()\n    home = next(iter(v.devices()))\n    put(v, everyone[0] if home != everyone[0] else everyone[-1])  # decoy: one row moved first\n    rows = NamedSharding(Mesh(np.array(everyone), ("rows",)), PartitionSpec("rows"))\n    return put(jnp.stack([v] * len(everyone)), rows)\n'
WRONG_ANSWERS["04.4"]["a NumPy stack through DLPack, a decoy move, an alias of device_put"] = (
    'put = jax.device_put\ndef replicate_rows(v):\n    everyone = jax.devices()\n    put(v, everyone[0] if next(iter(v.devices())) != everyone[0] else everyone[-1])  # decoy\n    whole = jax.dlpack.from_dlpack(np.ascontiguousarray(np.broadcast_to(np.asarray(v), (len(everyone), *np.shape(v)))))\n    rows = NamedSharding(Mesh(np.array(everyone), ("rows",)), PartitionSpec("rows"))\n    return put(whole, rows)\n'
)
RIGHT_ANSWERS["04.1"]["NumPy masks over devices_indices_map"] = (
    "def bytes_arriving(src, dst):\n    src_map = src.sharding.devices_indices_map(src.shape)\n    same_memory = src.sharding.memory_kind == dst.sharding.memory_kind\n    total = 0\n    for device, index in dst.sharding.devices_indices_map(dst.shape).items():\n        wanted = np.zeros(dst.shape, bool)\n        wanted[index] = True\n        held = np.zeros(dst.shape, bool)\n        if same_memory and device in src_map:\n            held[src_map[device]] = True\n        total += int((wanted & ~held).sum()) * dst.dtype.itemsize\n    return total\n"
)
