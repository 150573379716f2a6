"""Notebook 03_devices: the wrong answers its checks must reject, and which of them stands
for each kind of lazy answer (see :mod:`tests.notebooks`)."""

from __future__ import annotations

WRONG_ANSWERS: dict[str, dict[str, str]] = {
    "03.1": {
        "the check's configuration changed by the answer (64-bit mode switched globally)": (
            'jax.config.update(\'jax_enable_x64\', True)\ndef inventory(devices):\n    """One (id, platform, device_kind, process_index, memory_kinds) tuple per device given."""\n    return [\n        (d.id, d.platform, d.device_kind, d.process_index,\n         tuple(m.kind for m in d.addressable_memories()))\n        for d in devices\n    ]\n'
        ),
        "hard-coded rows of this machine": (
            "def inventory(devices):\n"
            "    return [(i, 'cpu', 'cpu', 0, ('device', 'pinned_host', 'unpinned_host'))\n"
            "            for i in range(8)]"
        ),
        "every device of jax.devices(), not the ones given": (
            "def inventory(devices):\n"
            "    return [(d.id, d.platform, d.device_kind, d.process_index,\n"
            "             tuple(m.kind for m in d.addressable_memories())) for d in jax.devices()]"
        ),
        "copied from the helpers' probe": (
            "def inventory(devices):\n"
            "    return [(p.id, p.platform, p.device_kind, p.process_index, p.memory_kinds)\n"
            "            for p in ah.probe().devices]"
        ),
        "the default memory only": (
            "def inventory(devices):\n"
            "    return [(d.id, d.platform, d.device_kind, d.process_index,\n"
            "             (d.default_memory().kind,)) for d in devices]"
        ),
        "rows rebuilt from ah.probe() for the ids given": (
            "def inventory(devices):\n"
            "    rows = {p.id: (p.id, p.platform, p.device_kind, p.process_index, p.memory_kinds)\n"
            "            for p in ah.probe().devices}\n"
            "    return [rows[d.id] for d in devices]"
        ),
        "platform and memories tailored to this machine": (
            "def inventory(devices):\n"
            "    return [(d.id, 'cpu', d.device_kind, d.process_index,\n"
            "             ('device', 'pinned_host', 'unpinned_host')) for d in devices]"
        ),
        "addressable_memories() called, its result unused": (
            "def inventory(devices):\n"
            "    rows = []\n"
            "    for d in devices:\n"
            "        d.addressable_memories()\n"
            "        rows.append((d.id, d.platform, d.device_kind, d.process_index,\n"
            "                     ('device', 'pinned_host', 'unpinned_host')))\n"
            "    return rows"
        ),
        "memory kinds sorted, not in the device's order": (
            "def inventory(devices):\n"
            "    return [(d.id, d.platform, d.device_kind, d.process_index,\n"
            "             tuple(sorted(m.kind for m in d.addressable_memories()))) for d in devices]"
        ),
    },
    "03.2": {
        "hard-coded ids": "def owned_ids(devices, process):\n    return list(range(8))",
        "this process's local devices, not the ones given": (
            "def owned_ids(devices, process):\n    return sorted(d.id for d in jax.local_devices())"
        ),
        "every device given, whoever owns it": (
            "def owned_ids(devices, process):\n    return sorted(d.id for d in devices)"
        ),
        "tailored to the visible pretend cluster": (
            "def owned_ids(devices, process):\n"
            "    if devices and not hasattr(devices[0], 'platform'):\n"
            "        return [0, 1, 2, 3] if process == 0 else [4, 5, 6, 7]\n"
            "    return sorted(d.id for d in jax.local_devices())"
        ),
        "jax.local_devices(process_index=...), not the list given": (
            "def owned_ids(devices, process):\n"
            "    return sorted(d.id for d in jax.local_devices(process_index=process))"
        ),
        "the check's pretend_cluster called for its table": (
            "def owned_ids(devices, process):\n"
            "    if devices and isinstance(devices[0], PretendDevice):\n"
            "        return pretend_cluster()[1][process]\n"
            "    return sorted(d.id for d in jax.local_devices())"
        ),
        "process_index read, then ignored": (
            "def owned_ids(devices, process):\n"
            "    owners = [d.process_index for d in devices]  # read, then ignored\n"
            "    return sorted(d.id for d in devices)"
        ),
        "in the list's order, not sorted": (
            "def owned_ids(devices, process):\n"
            "    return [d.id for d in devices if d.process_index == process]"
        ),
    },
    "03.3": {
        "the check's configuration changed by the answer (64-bit mode switched globally)": (
            'jax.config.update(\'jax_enable_x64\', True)\ndef cpu_devices_in_fresh_process(n):\n    """Start Python with n simulated CPU devices and return how many it sees."""\n    script = "import json, jax; print(json.dumps(len(jax.devices(\'cpu\'))))"\n    return fresh_json(script, JAX_PLATFORMS="cpu", JAX_NUM_CPU_DEVICES=str(n))\n'
        ),
        "hard-coded count": "def cpu_devices_in_fresh_process(n):\n    return 3",
        "returns n without asking a new process": (
            "def cpu_devices_in_fresh_process(n):\n    return n"
        ),
        "this kernel's devices": (
            "def cpu_devices_in_fresh_process(n):\n    return len(jax.devices('cpu'))"
        ),
        "a new process is started but the count is not read from it": (
            "def cpu_devices_in_fresh_process(n):\n"
            "    run_fresh('print(1)', JAX_PLATFORMS='cpu', JAX_NUM_CPU_DEVICES=str(n))\n"
            "    return n"
        ),
        "the count set with jax.config, not the environment": (
            "def cpu_devices_in_fresh_process(n):\n"
            "    code = ('import json, jax; jax.config.update(\"jax_num_cpu_devices\", %d); '\n"
            "            'print(json.dumps(len(jax.devices(\"cpu\"))))' % n)\n"
            "    return fresh_json(code, JAX_PLATFORMS='cpu')"
        ),
        "a child that echoes its environment variable and never asks JAX": (
            "def cpu_devices_in_fresh_process(n):\n"
            "    code = 'import json, os; print(json.dumps(int(os.environ[\"JAX_NUM_CPU_DEVICES\"])))'\n"
            "    return fresh_json(code, JAX_PLATFORMS='cpu', JAX_NUM_CPU_DEVICES=str(n))"
        ),
        "JAX imported in the child, the count echoed from the environment": (
            "def cpu_devices_in_fresh_process(n):\n"
            "    code = ('import json, os, jax; jax.devices(); '\n"
            "            'print(json.dumps(int(os.environ.get(\"JAX_NUM_CPU_DEVICES\", %d))))' % n)\n"
            "    return fresh_json(code, JAX_PLATFORMS='cpu', JAX_NUM_CPU_DEVICES=str(n))"
        ),
        "the child's answer thrown away": (
            "def cpu_devices_in_fresh_process(n):\n"
            "    script = 'import json, jax; print(json.dumps(len(jax.devices(\"cpu\"))))'\n"
            "    fresh_json(script, JAX_PLATFORMS='cpu', JAX_NUM_CPU_DEVICES=str(n))\n"
            "    return n"
        ),
        "tailored: the child reads the count the check slips into XLA_FLAGS": (
            "def cpu_devices_in_fresh_process(n):\n"
            '    code = (\'import json, os; flags = os.environ.get("XLA_FLAGS", ""); \'\n'
            '            \'print(json.dumps(int(flags.rsplit("=", 1)[-1]) if "count" in flags else %d))\' % n)\n'
            "    return fresh_json(code, JAX_PLATFORMS='cpu', JAX_NUM_CPU_DEVICES=str(n))"
        ),
        "the lesson's own measurement returned": (
            "def cpu_devices_in_fresh_process(n):\n    return started['count']"
        ),
        "counted by the child's default backend without JAX_PLATFORMS": (
            "def cpu_devices_in_fresh_process(n):\n"
            "    script = 'import json, jax; print(json.dumps(len(jax.devices(\"cpu\"))))'\n"
            "    return fresh_json(script, JAX_NUM_CPU_DEVICES=str(n))"
        ),
    },
}

COVERAGE: dict[str, dict[str, str]] = {
    "03.1": {
        "hard-coded": "hard-coded rows of this machine",
        "twin route": "copied from the helpers' probe",
        "tailored": "platform and memories tailored to this machine",
        "default": "the default memory only",
        "elsewhere": "n/a: the answer reads attributes of device objects in Python; no array is "
        "computed, so there is no work that could run on another device or the host and be moved",
        "reference": "rows rebuilt from ah.probe() for the ids given",
        "idle": "addressable_memories() called, its result unused",
        "times zero": "n/a: the answer reads device or shard metadata in Python and computes no array, so no operation's values could be cancelled",
        "switches when traced": "n/a: the answer reads device or shard metadata in Python and computes no array, so nothing is traced",
        "host inside": "n/a: no taught construct runs code the host could take over",
        "split across calls": "n/a: the check sets no per-call bound: one call of the answer is judged whole",
        "unwatched": "n/a: the check sets no budget on where arrays are made or how much memory the answer uses; it judges the returned values and the traced route",
        "environment": "the check's configuration changed by the answer (64-bit mode switched globally)",
    },
    "03.2": {
        "hard-coded": "hard-coded ids",
        "twin route": "jax.local_devices(process_index=...), not the list given",
        "tailored": "tailored to the visible pretend cluster",
        "default": "this process's local devices, not the ones given",
        "elsewhere": "n/a: the answer reads attributes of device objects in Python; no array is "
        "computed, so there is no work that could run on another device or the host and be moved",
        "reference": "the check's pretend_cluster called for its table",
        "idle": "process_index read, then ignored",
        "times zero": "n/a: the answer reads device or shard metadata in Python and computes no array, so no operation's values could be cancelled",
        "switches when traced": "n/a: the answer reads device or shard metadata in Python and computes no array, so nothing is traced",
        "host inside": "n/a: no taught construct runs code the host could take over",
        "environment": "n/a: the answer reads the devices it is given; no guard, configuration or mesh decides it",
        "split across calls": "n/a: the check sets no per-call bound: one call of the answer is judged whole",
        "unwatched": "n/a: the check sets no budget on where arrays are made or how much memory the answer uses; it judges the returned values and the traced route",
    },
    "03.3": {
        "hard-coded": "hard-coded count",
        "twin route": "the count set with jax.config, not the environment",
        "tailored": "tailored: the child reads the count the check slips into XLA_FLAGS",
        "default": "counted by the child's default backend without JAX_PLATFORMS",
        "elsewhere": "this kernel's devices",
        "reference": "the lesson's own measurement returned",
        "idle": "the child's answer thrown away",
        "split across calls": "n/a: the check sets no per-call bound: one call of the answer is judged whole",
        "unwatched": "n/a: the check sets no budget on where arrays are made or how much memory the answer uses; it judges the returned values and the traced route",
        "environment": "the check's configuration changed by the answer (64-bit mode switched globally)",
        "times zero": "n/a: the answer returns a count read from a new Python process; it computes no array whose values could be cancelled",
        "switches when traced": "n/a: the answer starts a process and returns its count; nothing of it is traced by JAX",
        "host inside": "n/a: the work is in another process by design (the lesson); there is no JAX construct for a callback to sit in",
    },
}


# Honest answers in ordinary styles (issue 38, "Must hold"): each must score "solved".
RIGHT_ANSWERS: dict[str, dict[str, str | tuple[str, ...]]] = {
    "03.1": {
        "helper, print": "def memory_kinds(device):\n    return tuple(memory.kind for memory in device.addressable_memories())\n\n\ndef inventory(devices):\n    rows = []\n    for d in devices:\n        rows.append((d.id, d.platform, d.device_kind, d.process_index, memory_kinds(d)))\n    return rows\n\n\nprint(inventory(jax.devices()[:2]))",
        "list of a map": "def inventory(devices):\n    return list(map(lambda d: (d.id, d.platform, d.device_kind, d.process_index, tuple([m.kind for m in d.addressable_memories()])), devices))",
    },
    "03.2": {
        "filter and a sorted list": "def owned_ids(devices, process):\n    mine = filter(lambda d: d.process_index == process, devices)\n    return sorted([d.id for d in mine])",
        "loop, helper, print": "def belongs(device, process):\n    return device.process_index == process\n\n\ndef owned_ids(devices, process):\n    ids = []\n    for device in devices:\n        if belongs(device, process):\n            ids.append(device.id)\n    ids.sort()\n    return ids\n\n\nprint(owned_ids(jax.devices(), 0))",
    },
    "03.3": {
        "run_fresh and json": "import json\n\n\ndef cpu_devices_in_fresh_process(n):\n    result = run_fresh('import jax; print(jax.device_count())', JAX_PLATFORMS='cpu', JAX_NUM_CPU_DEVICES=str(n))\n    return int(result.stdout.strip().splitlines()[-1])",
        "fresh_json, f-string script, print": "import textwrap\n\n\ndef cpu_devices_in_fresh_process(n):\n    script = textwrap.dedent('''\n        import json\n        import jax\n        print(json.dumps(jax.local_device_count()))\n    ''')\n    count = fresh_json(script, JAX_PLATFORMS='cpu', JAX_NUM_CPU_DEVICES=f'{n}')\n    print('the new process has', count, 'devices')\n    return count",
    },
}


# The review of 1818ab0 (/work/tmp/review-03_devices.md): its lazy answers (each now rejected) and
# its honest ones (each solved).
WRONG_ANSWERS["03.1"][
    "reference reached another way: the notebook's `report` (ah.probe()) for real devices"
] = "def inventory(devices):\n    known = {p.id: (p.id, p.platform, p.device_kind, p.process_index, p.memory_kinds) for p in report.devices}\n    return [known[d.id] if d.id in known and d.id < 100 else\n            (d.id, d.platform, d.device_kind, d.process_index, tuple(m.kind for m in d.addressable_memories()))\n            for d in devices]"
RIGHT_ANSWERS.setdefault("03.1", {})["helper named `describe_device`, two cells, trial print"] = (
    "def describe_device(d):\n    kinds = tuple(m.kind for m in d.addressable_memories())\n    return (d.id, d.platform, d.device_kind, d.process_index, kinds)",
    "def inventory(devices):\n    return list(map(describe_device, devices))\n\nprint(inventory(jax.devices()[:1]))",
)
RIGHT_ANSWERS.setdefault("03.1", {})[
    "loop variable named `device` (as the check cell's comprehension)"
] = "def inventory(devices):\n    out = []\n    for device in devices:\n        out.append((device.id, device.platform, device.device_kind, device.process_index,\n                    tuple(m.kind for m in device.addressable_memories())))\n    return out"
RIGHT_ANSWERS.setdefault("03.2", {})["filter + sorted key, helper"] = (
    "def owner_is(process):\n    return lambda d: d.process_index == process\n\ndef owned_ids(devices, process):\n    return sorted(d.id for d in filter(owner_is(process), devices))"
)
RIGHT_ANSWERS.setdefault("03.2", {})["(arguable) NumPy sort"] = (
    "def owned_ids(devices, process):\n    return np.sort([d.id for d in devices if d.process_index == process]).astype(int).tolist()"
)
RIGHT_ANSWERS.setdefault("03.2", {})[
    "helper named `pairs`-free but module-level name `owned` (as the check's)"
] = "def owned_ids(devices, process):\n    owned = [d.id for d in devices if d.process_index == process]\n    return sorted(owned)"
RIGHT_ANSWERS.setdefault("03.3", {})["subprocess.run in isolated mode (-I)"] = (
    "def cpu_devices_in_fresh_process(n):\n    env = dict(os.environ)\n    env['JAX_PLATFORMS'] = 'cpu'\n    env['JAX_NUM_CPU_DEVICES'] = str(n)\n    out = subprocess.run([sys.executable, '-I', '-c', 'import jax; print(jax.device_count())'],\n                         env=env, capture_output=True, text=True, check=True)\n    return int(out.stdout.split()[-1])"
)
RIGHT_ANSWERS.setdefault("03.3", {})["subprocess.run, plain"] = (
    "def cpu_devices_in_fresh_process(n):\n    env = {**os.environ, 'JAX_PLATFORMS': 'cpu', 'JAX_NUM_CPU_DEVICES': str(n)}\n    out = subprocess.run([sys.executable, '-c', 'import jax; print(jax.device_count())'],\n                         env=env, capture_output=True, text=True, check=True)\n    return int(out.stdout.split()[-1])"
)
WRONG_ANSWERS["03.3"][
    "child never asks JAX: reads the C environment with ctypes (the swap's XLA_FLAGS)"
] = "CHILD = '''\nimport ctypes, json, os\nraw = ctypes.CDLL(None).getenv\nraw.restype = ctypes.c_char_p\nflags = (raw(b'XLA_FLAGS') or b'').decode()\nmine = os.environ.get('JAX_NUM_CPU_DEVICES')\nprint(json.dumps(int(flags.rsplit('=', 1)[-1]) if 'device_count' in flags else int(mine)))\n'''\n\ndef cpu_devices_in_fresh_process(n):\n    return fresh_json(CHILD, JAX_PLATFORMS='cpu', JAX_NUM_CPU_DEVICES=str(n))"
WRONG_ANSWERS["03.3"][
    "child never asks JAX: parses the count out of the sitecustomize it finds on PYTHONPATH"
] = "CHILD2 = '''\nimport json, os, re, sys\nfound = None\nfor folder in os.environ.get('PYTHONPATH', '').split(os.pathsep):\n    p = os.path.join(folder, 'sitecustomize.py')\n    if os.path.exists(p):\n        m = re.search(r'device_count=(\\\\d+)', open(p).read())\n        if m: found = int(m.group(1)); break\nprint(json.dumps(found if found is not None else int(os.environ.get('JAX_NUM_CPU_DEVICES', '0'))))\n'''\n\ndef cpu_devices_in_fresh_process(n):\n    return fresh_json(CHILD2, JAX_PLATFORMS='cpu', JAX_NUM_CPU_DEVICES=str(n))"
RIGHT_ANSWERS.setdefault("03.3", {})["python -E (ignore PYTHON* variables)"] = (
    "def cpu_devices_in_fresh_process(n):\n    env = {**os.environ, 'JAX_PLATFORMS': 'cpu', 'JAX_NUM_CPU_DEVICES': str(n)}\n    out = subprocess.run([sys.executable, '-E', '-c', 'import jax; print(jax.device_count())'],\n                         env=env, capture_output=True, text=True, check=True)\n    return int(out.stdout.split()[-1])"
)
RIGHT_ANSWERS.setdefault("03.3", {})["check_output, local_device_count"] = (
    "def cpu_devices_in_fresh_process(n):\n    env = dict(os.environ, JAX_PLATFORMS='cpu', JAX_NUM_CPU_DEVICES=str(n))\n    text = subprocess.check_output([sys.executable, '-c', 'import jax; print(jax.local_device_count())'], env=env, text=True)\n    return int(text.strip().splitlines()[-1])"
)
WRONG_ANSWERS["03.3"][
    "child reads the count from the check's sitecustomize via the `site` module's loaded module"
] = "CHILD3 = '''\nimport json, os, sys\nmod = sys.modules.get('sitecustomize')\nsrc = open(mod.__file__).read() if mod is not None and getattr(mod, '__file__', None) else ''\nimport re\nm = re.search(r'device_count=(\\\\d+)', src)\nprint(json.dumps(int(m.group(1)) if m else int(os.environ.get('JAX_NUM_CPU_DEVICES', '0'))))\n'''\n\ndef cpu_devices_in_fresh_process(n):\n    return fresh_json(CHILD3, JAX_PLATFORMS='cpu', JAX_NUM_CPU_DEVICES=str(n))"
