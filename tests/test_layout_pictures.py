import matplotlib
import pytest
from matplotlib.figure import Figure

import aurora_helpers as ah

matplotlib.use("Agg")


def test_one_labelled_point_per_layout():
    table = {"DP": (4096, 3000), "FSDP": (512, 3000.5), "TP": (700, 1200)}
    fig = ah.draw_layout_costs(table, title="three layouts", budget=1024)
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    assert [t.get_text() for t in ax.texts] == ["DP", "FSDP", "TP"]
    points = [tuple(c.get_offsets()[0]) for c in ax.collections]
    assert points == [(4.0, 3000 / 1024), (0.5, 3000.5 / 1024), (700 / 1024, 1200 / 1024)]
    assert ax.get_title() == "three layouts"
    assert [line.get_xdata()[0] for line in ax.get_lines()] == [1.0]  # the budget, in KiB
    assert "KiB" in ax.get_xlabel() and "sent" in ax.get_ylabel()


def test_bad_tables_are_refused():
    with pytest.raises(ValueError, match="no layouts"):
        ah.draw_layout_costs({})
    with pytest.raises(TypeError, match="pair"):
        ah.draw_layout_costs({"DP": 3})
    with pytest.raises(ValueError, match=">= 0"):
        ah.draw_layout_costs({"DP": (-1, 2)})
