"""The course's Jupyter kernel: IPython's, saying which language it runs but not which patch release.

JupyterLab writes the kernel's ``language_info`` into a notebook's metadata as soon as the kernel
starts, and a notebook whose stored value differs is then modified ("save changes?", and a
change in ``git status`` of ``student/``) although nobody touched it. IPython's kernel reports the
interpreter's full version (``3.12.1``), which differs between machines, so no stored value could
match everywhere. The kernel ``aurora kernel install`` registers runs :class:`CourseKernel`,
whose ``language_info`` is IPython's without ``version`` (an optional field of the notebook
format); every notebook stores exactly that (:data:`aurora_course.jupyterhub.COURSE_LANGUAGE_INFO`,
checked by ``tests/test_notebooks.py``), so opening one on the course's kernel changes nothing.
"""

from __future__ import annotations

from typing import Any

from ipykernel.ipkernel import IPythonKernel


class CourseKernel(IPythonKernel):
    """IPython's kernel with a ``language_info`` that is the same on every machine."""

    language_info: dict[str, Any] = {  # noqa: RUF012 (IPython's is a class attribute too)
        key: value for key, value in IPythonKernel.language_info.items() if key != "version"
    }
