import json

import jax
import pytest

import aurora_helpers as ah


def test_probe_agrees_with_jax():
    report = ah.probe()
    assert report.backend == jax.default_backend() == "cpu"
    assert report.device_count == jax.device_count() == len(report.devices) == 8
    assert report.simulated and report.device_kinds == ("cpu",)
    assert report.process_count == 1 and report.process_index == 0
    assert report.jax_supported and report.jax_fix is None
    assert all(d.memory_bytes is None for d in report.devices)  # CPU reports no allocator limit
    assert "device" in report.devices[0].memory_kinds


def test_probe_renders_three_ways():
    report = ah.probe()
    data = json.loads(report.to_json())
    assert data["device_count"] == 8 and len(data["devices"]) == 8
    text = str(report)
    assert "8 global, 8 local (simulated on the CPU)" in text and "memory kinds" in text
    page = report._repr_html_()
    assert page.count("<table>") == 2 and "<td" in page


def test_unsupported_version_shows_fix():
    report = ah.probe()
    broken = type(report)(
        **{
            **report.__dict__,
            "jax_supported": False,
            "jax_message": "old",
            "jax_fix": "pip install x",
        }
    )
    assert "Run: pip install x" in str(broken)


@pytest.mark.slow
def test_cli_probe(fresh_python):
    result = fresh_python(
        "from aurora_course.cli import main; raise SystemExit(main(['probe', '--json', '--devices', '2']))"
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["device_count"] == 2
