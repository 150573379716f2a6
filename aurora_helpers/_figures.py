"""Figure creation for the package's pictures: every ``draw_*`` returns a closed ``Figure``.

It is created through pyplot, so that a notebook's inline backend is loaded (that backend is what
displays a returned ``Figure``), then closed at once. A closed figure is not shown a second time by the notebook backend when the cell ends, and it
does not accumulate in pyplot's list of open figures; a notebook displays it by ending a cell
with it (or with ``display(fig)``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def new_figure(width: float, height: float, **kwargs: Any) -> Figure:
    """A new ``width`` x ``height`` inch figure, already closed in pyplot (imports matplotlib)."""
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(width, height), **kwargs)
    plt.close(fig)
    return fig
