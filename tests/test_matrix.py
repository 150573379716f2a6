"""scripts/test-matrix reads the notebook runs' results per release (its table, from junit XML)."""

from __future__ import annotations

from .conftest import load_script

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest">
<testcase classname="tests.test_notebook_runs" name="test_student_run[07_shard_map-8]" time="12.5"/>
<testcase classname="tests.test_notebook_runs" name="test_student_run[A1_custom_kernels-8]" time="3">
<failure message="AssertionError: assert ['the run: cell 12 raised TypeError: x'] == []">...</failure>
</testcase>
<testcase classname="tests.test_execute" name="test_parameters_are_declared" time="1"/>
</testsuite></testsuites>
"""


def test_the_table_names_each_notebook_and_the_cell_that_failed(tmp_path):
    junit = tmp_path / "jax.xml"
    junit.write_text(JUNIT)
    script = load_script("test-matrix")
    results = script.notebook_results(junit)
    assert results == {"07_shard_map": "ok 12 s", "A1_custom_kernels": "FAIL cell 12"}
    table = script.summary_table({"0.9.2": results}, {"0.9.2": 15.5})
    assert "| A1_custom_kernels | FAIL cell 12 |" in table and "| wall time | 16 s |" in table
