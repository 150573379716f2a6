"""ah.draw_machine: the boxes it draws must be the devices and memories JAX reports."""

from __future__ import annotations

from dataclasses import dataclass, field

import jax
import matplotlib
import pytest
from matplotlib.figure import Figure

import aurora_helpers as ah

matplotlib.use("Agg")


def _gids(fig: Figure) -> set[str]:
    return {p.get_gid() for p in fig.axes[0].patches if p.get_gid()}


def _texts(fig: Figure) -> str:
    return "\n".join(t.get_text() for t in fig.axes[0].texts) + "\n" + fig.axes[0].get_title()


def _expected_gids(devices) -> set[str]:
    gids = {f"process:{d.process_index}" for d in devices}
    for d in devices:
        gids.add(f"device:{d.id}")
        gids |= {f"memory:{d.id}:{m.kind}" for m in d.addressable_memories()}
    return gids


def test_boxes_match_jax_devices_and_their_memories():
    fig = ah.draw_machine()
    assert isinstance(fig, Figure)
    assert _gids(fig) == _expected_gids(jax.devices())
    devices = [g for g in _gids(fig) if g.startswith("device:")]
    assert len(devices) == jax.device_count() == 8
    text = _texts(fig)
    assert text.count("device (default)") == 8  # CPU: arrays land in "device" memory
    assert "8 cpu device(s) in 1 process(es)" in text
    assert "process 0 (this process)" in text


def test_default_memory_is_outlined_more_heavily():
    fig = ah.draw_machine(jax.devices()[:1])
    widths = {p.get_gid(): p.get_linewidth() for p in fig.axes[0].patches}
    default = f"memory:0:{jax.devices()[0].default_memory().kind}"
    others = [w for g, w in widths.items() if g.startswith("memory:") and g != default]
    assert others and all(widths[default] > w for w in others)


def test_a_subset_and_columns():
    subset = jax.devices()[2:5]
    fig = ah.draw_machine(subset, columns=1, title="three")
    assert _gids(fig) == _expected_gids(subset)
    assert fig.axes[0].get_title() == "three"
    # One column: the device boxes are stacked, all at the same x.
    xs = {round(p.get_x(), 6) for p in fig.axes[0].patches if p.get_gid().startswith("device:")}
    assert len(xs) == 1


def test_max_devices_draws_a_readable_part_and_counts_the_rest():
    fig = ah.draw_machine(max_devices=3)
    assert {g for g in _gids(fig) if g.startswith("device:")} == {
        "device:0",
        "device:1",
        "device:2",
    }
    assert "and 5 more device(s) not drawn" in _texts(fig)


def test_figure_is_not_left_open_in_pyplot():
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    ah.draw_machine()
    assert plt.get_fignums() == before


# A stand-in for a two-host GPU machine, which the tests cannot have.
@dataclass
class FakeMemory:
    kind: str
    devices: list = field(default_factory=list)

    def addressable_by_devices(self):
        return self.devices


@dataclass
class FakeDevice:
    id: int
    process_index: int
    platform: str = "gpu"
    device_kind: str = "Fake H100"
    limit: int | None = 80 * 2**30
    kinds: tuple[str, ...] = ("device", "pinned_host")
    memories: list = field(default_factory=list)

    def __post_init__(self):
        self.memories = [FakeMemory(k, [self]) for k in self.kinds]

    def addressable_memories(self):
        return self.memories

    def default_memory(self):
        return self.memories[0]

    def memory_stats(self):
        return None if self.limit is None else {"bytes_limit": self.limit, "bytes_in_use": 0}


def test_several_processes_and_accelerator_memory_sizes():
    fakes = [FakeDevice(i, process_index=i // 2) for i in range(4)]
    fig = ah.draw_machine(fakes)
    gids = _gids(fig)
    assert {"process:0", "process:1"} <= gids
    assert {f"device:{i}" for i in range(4)} <= gids
    # This process is 0: only its devices' memories can be listed.
    assert {g for g in gids if g.startswith("memory:")} == {
        "memory:0:device",
        "memory:0:pinned_host",
        "memory:1:device",
        "memory:1:pinned_host",
    }
    text = _texts(fig)
    assert text.count("device (default) 80.0 GiB") == 2
    assert text.count("not addressable here") == 2
    assert "process 1 (another process)" in text
    assert "gpu device 3\nFake H100" in text
    frames = {p.get_gid(): p for p in fig.axes[0].patches}
    assert frames["device:2"].get_linestyle() == "--"


def test_shared_memory_and_runtimes_that_cannot_answer():
    shared = FakeDevice(0, 0, limit=None)
    other = FakeDevice(1, 0, limit=None)
    shared.memories[1].devices.append(other)  # a host memory both devices reach

    class OldRuntime(FakeDevice):
        def addressable_memories(self):
            raise RuntimeError("no memory spaces in this runtime")

        def memory_stats(self):
            raise RuntimeError("not supported")

    fig = ah.draw_machine([shared, OldRuntime(2, 0)])
    text = _texts(fig)
    assert "pinned_host shared by 2" in text
    assert "GiB" not in text  # no sizes where the runtime reports none
    assert "device:2" in _gids(fig)
    assert not any(g.startswith("memory:2:") for g in _gids(fig))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"devices": []}, ValueError, "no devices to draw"),
        ({"devices": [object()]}, TypeError, "expects JAX devices.*lacks id"),
        ({"devices": ["cpu:0"]}, TypeError, "expects JAX devices"),
        ({"columns": 0}, ValueError, "columns must be a positive integer"),
        ({"columns": 2.5}, ValueError, "columns must be a positive integer"),
        ({"max_devices": 0}, ValueError, "max_devices must be a positive integer"),
        ({"max_devices": True}, ValueError, "max_devices must be a positive integer"),
    ],
)
def test_bad_inputs_say_what_to_pass(kwargs, error, match):
    with pytest.raises(error, match=match):
        ah.draw_machine(**kwargs)
