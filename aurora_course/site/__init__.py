"""The course website: the executed notebooks as a Sphinx + myst-nb site with the book theme.

``aurora run`` calls :func:`build_site` after executing the notebooks; nothing is executed twice.
"""

from __future__ import annotations

from .build import SiteBuild, SiteBuildError, build_site, sphinx_available, write_sources
from .pages import PROBE_PAGE
from .tags import TAG_BEHAVIOUR, site_copy, site_tags

__all__ = [
    "PROBE_PAGE",
    "TAG_BEHAVIOUR",
    "SiteBuild",
    "SiteBuildError",
    "build_site",
    "site_copy",
    "site_tags",
    "sphinx_available",
    "write_sources",
]
