"""Notebook 00_welcome: the wrong answers its checks must reject, and which of them stands
for each kind of lazy answer (see :mod:`tests.notebooks`)."""

from __future__ import annotations

WRONG_ANSWERS: dict[str, dict[str, str]] = {
    "00.1": {
        "reads the expected value from the checker's own frame": (
            "import sys\n"
            "def devices_by_kind(devices):\n"
            "    frame = sys._getframe(1)\n"
            "    while frame is not None and 'want' not in frame.f_locals:\n"
            "        frame = frame.f_back\n"
            "    return dict(frame.f_locals['want']) if frame is not None else {}"
        ),
        "hard-coded dictionary": "def devices_by_kind(devices):\n    return {'cpu': 8}",
        "counts this machine's devices, not the list given": (
            "def devices_by_kind(devices):\n"
            "    kinds = [d.device_kind for d in jax.devices()]\n"
            "    return {k: kinds.count(k) for k in set(kinds)}"
        ),
        "assumes one kind": (
            "def devices_by_kind(devices):\n"
            "    return {devices[0].device_kind: len(devices)} if devices else {}"
        ),
        "tailored to the visible made-up machine": (
            "def devices_by_kind(devices):\n"
            "    if any(d.device_kind != 'cpu' for d in devices):\n"
            "        return {'H100': 3, 'A100': 2}\n"
            "    return {'cpu': len(devices)} if devices else {}"
        ),
        "platform counted, not device_kind": (
            "def devices_by_kind(devices):\n"
            "    platforms = [d.platform for d in devices]\n"
            "    return {p: platforms.count(p) for p in set(platforms)}"
        ),
        "device_kind read, then ignored": (
            "def devices_by_kind(devices):\n"
            "    seen = [d.device_kind for d in devices]  # read, then ignored\n"
            "    return {'cpu': len(devices)} if devices else {}"
        ),
        "counts distinct kinds, not devices": (
            "def devices_by_kind(devices):\n    return {d.device_kind: 1 for d in devices}"
        ),
    },
    "00.2": {
        "NumPy squares plus 0 * jnp.arange": (
            "def squares(n):\n    return jnp.asarray(np.arange(n, dtype=np.int32) ** 2) + 0 * jnp.arange(n, dtype=jnp.int32)\n"
        ),
        "hard-coded squares for n = 16": (
            "def squares(n):\n    return jnp.array([i * i for i in range(16)], dtype=jnp.int32)"
        ),
        "NumPy array, not a JAX array": (
            "def squares(n):\n    return np.arange(n, dtype=np.int32) ** 2"
        ),
        "a Python list": "def squares(n):\n    return [i * i for i in range(n)]",
        "float squares": "def squares(n):\n    return jnp.arange(n, dtype=jnp.float32) ** 2",
        "computed in NumPy, moved into JAX": (
            "def squares(n):\n    return jnp.asarray(np.arange(n, dtype=np.int32) ** 2)"
        ),
        "a Python list moved into JAX": (
            "def squares(n):\n    return jnp.array([i * i for i in range(n)], dtype=jnp.int32)"
        ),
        "tailored: jnp.arange for the size shown, NumPy for the hidden sizes": (
            "def squares(n):\n"
            "    if n == example_size:\n"
            "        return jnp.arange(n, dtype=jnp.int32) ** 2\n"
            "    return jnp.asarray(np.arange(n, dtype=np.int32) ** 2)"
        ),
        "the default dtype doing the work (int64 with 64-bit mode on)": (
            "def squares(n):\n    return jnp.arange(n) ** 2"
        ),
        "jnp.arange called, its result unused": (
            "def squares(n):\n"
            "    jnp.arange(n, dtype=jnp.int32)\n"
            "    return jnp.asarray(np.square(np.arange(n, dtype=np.int32)))"
        ),
    },
    "00.3": {
        "hard-coded first device": "def device_ids(x):\n    return [0]",
        "every device of the machine": "def device_ids(x):\n    return [d.id for d in jax.devices()]",
        "assumes one device per array": "def device_ids(x):\n    return [x.device.id]",
        "tailored: a 2-D array means every device": (
            "def device_ids(x):\n"
            "    return sorted(d.id for d in jax.devices()) if x.ndim == 2 else [x.device.id]"
        ),
        "the first shard's device only": (
            "def device_ids(x):\n    return [x.addressable_shards[0].device.id]"
        ),
        "the default device's id": "def device_ids(x):\n    return [jax.devices()[0].id]",
        "the array moved to the default device, then asked": (
            "def device_ids(x):\n"
            "    return sorted(d.id for d in jax.device_put(x, jax.devices()[0]).devices())"
        ),
        "the check cell's own cases looked up": (
            "def device_ids(x):\n"
            "    for value in list(globals().values()):\n"
            "        if isinstance(value, list):\n"
            "            for case in value:\n"
            "                if isinstance(case, ah.Case) and case.args and case.args[0] is x:\n"
            "                    return case.expected\n"
            "    if x is globals().get('split_everywhere'):\n"
            "        return sorted(d.id for d in all_devices)\n"
            "    return [all_devices[0].id]"
        ),
        "x.devices() asked, its answer unused": (
            "def device_ids(x):\n"
            "    x.devices()  # asked, answer unused\n"
            "    return [jax.devices()[0].id]"
        ),
    },
}

COVERAGE: dict[str, dict[str, str]] = {
    "00.1": {
        "hard-coded": "hard-coded dictionary",
        "twin route": "platform counted, not device_kind",
        "tailored": "tailored to the visible made-up machine",
        "default": "counts this machine's devices, not the list given",
        "elsewhere": "n/a: the answer counts attributes of device objects in Python; no array is "
        "computed, so there is no work that could run on another device or the host and be moved",
        "reference": "n/a: the check cell computes each expected count inline inside its call and "
        "keeps none in a name; the made-up machine it keeps can only be counted, which is the skill",
        "idle": "device_kind read, then ignored",
        "times zero": "n/a: the answer reads device or shard metadata in Python and computes no array, so no operation's values could be cancelled",
        "switches when traced": "n/a: the answer reads device or shard metadata in Python and computes no array, so nothing is traced",
        "split across calls": "n/a: the check sets no per-call bound",
        "unwatched": "n/a: the check sets no budget on where arrays are made",
        "host inside": "n/a: no taught construct runs code the host could take over",
        "environment": "n/a: the check reads a list it is given; no guard, configuration or mesh decides it",
    },
    "00.2": {
        "hard-coded": "hard-coded squares for n = 16",
        "twin route": "a Python list moved into JAX",
        "tailored": "tailored: jnp.arange for the size shown, NumPy for the hidden sizes",
        "default": "the default dtype doing the work (int64 with 64-bit mode on)",
        "elsewhere": "computed in NumPy, moved into JAX",
        "reference": "n/a: the check cell keeps no reference to call; its expected arrays are NumPy "
        "expressions written inline, and computing them in NumPy is 'computed in NumPy, moved into JAX'",
        "idle": "jnp.arange called, its result unused",
        "times zero": "NumPy squares plus 0 * jnp.arange",
        "split across calls": "n/a: the check sets no per-call bound",
        "unwatched": "n/a: the check sets no budget on where arrays are made",
        "host inside": "n/a: no taught construct (loop, kernel, shard_map) to put a callback in",
        "environment": "n/a: the answer screen refuses configuration changes; the check sets 64-bit mode itself for one size",
        "switches when traced": "n/a: the argument is a Python int, never a tracer, so nothing switches when traced; NumPy squares moved into JAX is 'computed in NumPy, moved into JAX'",
    },
    "00.3": {
        "hard-coded": "hard-coded first device",
        "twin route": "assumes one device per array",
        "tailored": "tailored: a 2-D array means every device",
        "default": "the default device's id",
        "elsewhere": "the array moved to the default device, then asked",
        "reference": "the check cell's own cases looked up",
        "idle": "x.devices() asked, its answer unused",
        "times zero": "n/a: the answer reads device or shard metadata in Python and computes no array, so no operation's values could be cancelled",
        "switches when traced": "n/a: the answer reads device or shard metadata in Python and computes no array, so nothing is traced",
        "split across calls": "n/a: the check sets no per-call bound",
        "unwatched": "n/a: the check sets no budget on where arrays are made",
        "host inside": "n/a: no taught construct runs code the host could take over",
        "environment": "n/a: the answer is read from the array's own sharding; no guard, configuration or mesh decides it",
    },
}


# Honest answers in ordinary styles (issue 38, "Must hold"): each must score "solved".
RIGHT_ANSWERS: dict[str, dict[str, str | tuple[str, ...]]] = {
    "00.1": {
        "collections.Counter (stdlib import)": "import collections\n\n\ndef devices_by_kind(devices):\n    return dict(collections.Counter(d.device_kind for d in devices))",
        "helper + trial print": "def kind_of(device):\n    return device.device_kind\n\n\ndef devices_by_kind(devices):\n    counts = {}\n    for device in devices:\n        counts[kind_of(device)] = counts.get(kind_of(device), 0) + 1\n    return counts\n\n\nprint(devices_by_kind(jax.devices()))",
        "two cells": (
            "from collections import Counter",
            "def devices_by_kind(devices):\n    return dict(Counter(device.device_kind for device in devices))",
        ),
    },
    "00.2": {
        "lax.iota and lax.square": "from jax import lax\n\n\ndef squares(n):\n    return lax.square(lax.iota(jnp.int32, n))",
        "astype then multiply, helper, print": "def square(values):\n    return values * values\n\n\ndef squares(n):\n    return square(jnp.arange(n).astype(jnp.int32))\n\n\nprint(squares(5))",
        "jnp.square and math": "import math\n\n\ndef squares(n):\n    return jnp.square(jnp.arange(math.floor(n), dtype='int32'))",
        "two cells": (
            "import jax.numpy as jnp",
            "def squares(n):\n    numbers = jnp.arange(n, dtype=jnp.int32)\n    return numbers ** 2",
        ),
    },
    "00.3": {
        "sharding.device_set": "def device_ids(x):\n    return sorted({d.id for d in x.sharding.device_set})",
        "addressable shards, helper, print": "def ids_of(shards):\n    return {shard.device.id for shard in shards}\n\n\ndef device_ids(x):\n    return sorted(ids_of(x.addressable_shards))\n\n\nprint(device_ids(jnp.ones(3)))",
        "sorted by id with a key function": "def device_ids(x):\n    return [d.id for d in sorted(x.devices(), key=lambda d: d.id)]",
    },
}


# The review of 1818ab0 (/work/tmp/review-00_welcome.md): its lazy answers (each now rejected) and
# its honest ones (each solved).
RIGHT_ANSWERS.setdefault("00.1", {})["collections.Counter returned as it is"] = (
    "import collections\n\ndef devices_by_kind(devices):\n    return collections.Counter(d.device_kind for d in devices)\n"
)
RIGHT_ANSWERS.setdefault("00.1", {})["itertools.groupby"] = (
    "import itertools\n\ndef devices_by_kind(devices):\n    keyed = sorted(d.device_kind for d in devices)\n    return {k: len(list(g)) for k, g in itertools.groupby(keyed)}\n"
)
RIGHT_ANSWERS.setdefault("00.1", {})["collections.defaultdict(int)"] = (
    "import collections\n\ndef devices_by_kind(devices):\n    counts = collections.defaultdict(int)\n    for d in devices:\n        counts[d.device_kind] += 1\n    return counts\n"
)
RIGHT_ANSWERS.setdefault("00.1", {})["dict(Counter)"] = (
    "from collections import Counter\n\ndef devices_by_kind(devices):\n    return dict(Counter(d.device_kind for d in devices))\n"
)
WRONG_ANSWERS["00.2"]["NumPy squares read out through jnp.arange indices (pass-through iota)"] = (
    "def squares(n):\n    table = np.arange(n, dtype=np.int32) ** 2\n    return jnp.asarray(table)[jnp.arange(n)]\n"
)
WRONG_ANSWERS["00.2"]["Python-list squares, kept where an arange is non-negative"] = (
    "def squares(n):\n    host = jnp.array([i * i for i in range(n)], dtype=jnp.int32)\n    return jnp.where(jnp.arange(n) >= 0, host, 0).astype(jnp.int32)\n"
)
WRONG_ANSWERS["00.2"]["NumPy squares + (a - a) with a = arange squared"] = (
    "def squares(n):\n    a = jnp.arange(n, dtype=jnp.int32)\n    return jnp.asarray(np.arange(n, dtype=np.int32) ** 2) + jnp.minimum(a, 0)\n"
)
RIGHT_ANSWERS.setdefault("00.2", {})["lax.iota"] = (
    "from jax import lax\n\ndef squares(n):\n    return lax.square(lax.iota(jnp.int32, n))\n"
)
RIGHT_ANSWERS.setdefault("00.2", {})["arange then astype at the end"] = (
    "def squares(n):\n    return jnp.square(jnp.arange(n)).astype(jnp.int32)\n"
)
RIGHT_ANSWERS.setdefault("00.2", {})["dtype='int32' string + math import + print"] = (
    "import math\n\ndef squares(n):\n    x = jnp.arange(n, dtype='int32')\n    return x * x\n\nprint(squares(4))\n"
)
RIGHT_ANSWERS.setdefault("00.2", {})["jnp.arange(0, n, 1, np.int32)"] = (
    "def squares(n):\n    return jnp.arange(0, n, 1, np.int32) ** 2\n"
)
RIGHT_ANSWERS.setdefault("00.2", {})["jit with static_argnums"] = (
    "import functools\n\n@functools.partial(jax.jit, static_argnums=0)\ndef squares(n):\n    return jnp.arange(n, dtype=jnp.int32) ** 2\n"
)
WRONG_ANSWERS["00.2"]["NumPy squares gathered by an arange (jnp.take)"] = (
    "def squares(n):\n    return jnp.take(jnp.asarray(np.arange(n, dtype=np.int32) ** 2), jnp.arange(n))\n"
)
RIGHT_ANSWERS.setdefault("00.3", {})["sharding.device_set"] = (
    "def device_ids(x):\n    return sorted(d.id for d in x.sharding.device_set)\n"
)
RIGHT_ANSWERS.setdefault("00.3", {})["addressable shards, set"] = (
    "def device_ids(x):\n    return sorted({shard.device.id for shard in x.addressable_shards})\n"
)
RIGHT_ANSWERS.setdefault("00.3", {})["np.unique(...).tolist()"] = (
    "def device_ids(x):\n    return np.unique([d.id for d in x.devices()]).tolist()\n"
)
RIGHT_ANSWERS.setdefault("00.3", {})["sorted NumPy ints"] = (
    "def device_ids(x):\n    return sorted(np.array([d.id for d in x.devices()]))\n"
)
