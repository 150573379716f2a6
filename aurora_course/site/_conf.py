"""The Sphinx configuration of the course website, as a dictionary ``build.py`` writes out."""

from __future__ import annotations

from typing import Any

from ..course import REF, REPOSITORY_SLUG, STUDENT_FOLDER


def sphinx_config(title: str = "Project Aurora") -> dict[str, Any]:
    """Settings for ``conf.py``: myst-nb reads executed notebooks, the book theme shows them."""
    return {
        "project": title,
        "author": "Project Aurora contributors",
        "copyright": "Project Aurora contributors",
        "extensions": ["myst_nb"],
        # Pages are the notebooks as the runner executed them: never execute again.
        "nb_execution_mode": "off",
        "myst_enable_extensions": ["colon_fence"],
        # student/ holds the learners' copies that each page's download serves: files, not pages.
        "exclude_patterns": ["**.ipynb_checkpoints", f"{STUDENT_FOLDER}/**"],
        "html_theme": "sphinx_book_theme",
        "html_title": title,
        "html_static_path": ["_static"],
        "html_css_files": ["aurora.css"],
        # Copy buttons on code (our own few lines: no extension, nothing fetched).
        "html_js_files": ["aurora.js"],
        "html_last_updated_fmt": None,
        # No page sources in the site: the executed notebook holds the solutions and instructor
        # notes. Each page's banner offers the learner's copy instead (pages.banner).
        "html_copy_source": False,
        "html_favicon": "_static/aurora.svg",
        # The theme's light/dark switch needs a starting mode, else it logs a console error.
        "html_context": {"default_mode": "light"},
        # The site must work offline: no analytics, no web fonts, no CDN.
        "html_theme_options": {
            "repository_url": f"https://github.com/{REPOSITORY_SLUG}",
            "repository_branch": REF,
            # The theme's Colab button opens the learner's copy, as the banner's link does.
            "path_to_docs": STUDENT_FOLDER,
            "use_repository_button": True,
            "use_download_button": False,
            "launch_buttons": {"colab_url": "https://colab.research.google.com"},
            "home_page_in_toc": True,
            "show_toc_level": 2,
            # The sidebar has the search field; newer pydata themes add a second one on top.
            "navbar_persistent": [],
        },
        # Docutils keeps node, directive and role registrations for the whole process, so a second
        # build in one process (the tests; a notebook that runs the course twice) re-registers
        # them and Sphinx warns. Those warnings say nothing about the pages.
        # Pygments cannot always lex an IPython traceback (an error cell's output); Sphinx then
        # shows it unhighlighted, which is all a reader needs.
        "suppress_warnings": [
            "app.add_node",
            "app.add_directive",
            "app.add_role",
            "misc.highlighting_failure",
        ],
    }
