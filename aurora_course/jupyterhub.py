"""Serving the course from a JupyterHub: register its kernel, and link learners to the notebooks.

``aurora kernel install`` registers the Python that has the course installed as a Jupyter kernel
(a thin wrapper over ``ipykernel``'s own installer, which ``python -m ipykernel install`` also
runs), so learners pick it by name in JupyterLab. ``aurora nbgitpuller-link`` prints the link that
clones (or updates) the course into each learner's home folder on the hub and opens a notebook.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote, urlencode

from aurora_helpers.contract import DEVICES_ENV_VAR

from .course import REPOSITORY_SLUG, STUDENT_FOLDER

DEFAULT_KERNEL_NAME = "aurora"
DEFAULT_DISPLAY_NAME = "Project Aurora (JAX)"
#: What every notebook and student copy stores as its kernelspec: the kernel :func:`install_kernel`
#: registers by default, as JupyterLab writes it once that kernel started, so a notebook opened on
#: it is not modified. A hub or laptop without it falls back to its only Python kernel; Colab,
#: which knows no "aurora", says so ("Unrecognized runtime") and opens it on its own Python.
COURSE_KERNELSPEC = {
    "display_name": DEFAULT_DISPLAY_NAME,
    "language": "python",
    "name": DEFAULT_KERNEL_NAME,
}
#: What every notebook stores as its ``language_info``: what the registered kernel
#: (:class:`aurora_course.kernel.CourseKernel`) reports, the same on every machine, so JupyterLab
#: writing it once the kernel started changes nothing.
COURSE_LANGUAGE_INFO = {
    "codemirror_mode": {"name": "ipython", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "name": "python",
    "nbconvert_exporter": "python",
    "pygments_lexer": "ipython3",
}
#: The kernel class the registered kernel runs (``--IPKernelApp.kernel_class``).
KERNEL_CLASS = "aurora_course.kernel.CourseKernel"


def install_kernel(
    *,
    name: str = DEFAULT_KERNEL_NAME,
    display_name: str = DEFAULT_DISPLAY_NAME,
    user: bool = False,
    prefix: Path | None = None,
    devices: int | None = None,
) -> Path:
    """Register this interpreter as a Jupyter kernel running :data:`KERNEL_CLASS` (IPython's
    kernel with a machine-independent ``language_info``); return the kernel's folder.

    Args:
        name: the kernel's name (letters, digits, ``-``, ``.``, ``_``); an existing kernel of
            that name is replaced.
        display_name: what JupyterLab's launcher shows.
        user: install for the current user (``~/.local/share/jupyter/kernels``) instead of for
            everyone using this Python (``sys.prefix``); ignored when ``prefix`` is given.
        prefix: install under ``PREFIX/share/jupyter/kernels`` (e.g. a hub's shared environment).
        devices: set ``$AURORA_DEVICES`` in the kernel, so notebooks start with this many
            simulated CPU devices (default: the notebooks' own default, 8).
    """
    if not re.fullmatch(r"[A-Za-z0-9._-]+", name):
        raise ValueError(f"kernel name {name!r}: use only letters, digits, '-', '.' and '_'")
    if devices is not None and devices < 1:
        raise ValueError(f"devices must be at least 1, got {devices}")
    try:
        from ipykernel.kernelspec import install
    except ModuleNotFoundError as err:  # pragma: no cover - ipykernel is in the course extra
        raise RuntimeError(
            "ipykernel is not installed in this Python; run `make run` (or "
            "`pip install -e '.[course]'`) first"
        ) from err
    env = {DEVICES_ENV_VAR: str(devices)} if devices is not None else None
    where = Path(
        install(
            user=user and prefix is None,
            kernel_name=name,
            display_name=display_name,
            prefix=None if prefix is None else str(prefix),
            env=env,
        )
    )
    import json

    spec = json.loads((where / "kernel.json").read_text())
    spec["argv"] = [*spec["argv"], f"--IPKernelApp.kernel_class={KERNEL_CLASS}"]
    (where / "kernel.json").write_text(json.dumps(spec, indent=1) + "\n")
    return where


def nbgitpuller_link(
    hub: str,
    *,
    notebook: str = "00_welcome.ipynb",
    branch: str = "main",
    repository: str = f"https://github.com/{REPOSITORY_SLUG}",
    interface: str = "lab",
    folder: str = STUDENT_FOLDER,
) -> str:
    """The nbgitpuller link that puts the course in a learner's home folder and opens ``notebook``
    in ``folder`` of the clone: the student copies (``student``, the default), the course's own
    ``notebooks`` (solutions and instructor notes: for instructors), or ``.`` for a branch that
    holds only the student copies (docs/jupyterhub.md).

    The hub needs ``nbgitpuller`` installed in the single-user image. The clone lands in a
    folder named after the repository (``aurora-course/``); nbgitpuller later merges upstream
    changes without overwriting a learner's edits.
    """
    if not re.match(r"https?://", hub):
        raise ValueError(f"hub {hub!r}: give the hub's address, e.g. https://hub.example.org")
    if interface not in ("lab", "tree"):
        raise ValueError(f"interface must be 'lab' or 'tree', got {interface!r}")
    if not re.fullmatch(r"\.|[A-Za-z0-9_][A-Za-z0-9._/-]*", folder) or ".." in folder:
        raise ValueError(f"folder {folder!r}: give a folder of the repository, e.g. student")
    clone = repository.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git")
    inside = folder.strip("/")
    path = f"{clone}/{notebook}" if inside == "." else f"{clone}/{inside}/{notebook}"
    urlpath = f"lab/tree/{path}" if interface == "lab" else f"tree/{path}"
    query = urlencode(
        {"repo": repository, "urlpath": urlpath, "branch": branch}, quote_via=quote, safe=""
    )
    return f"{hub.rstrip('/')}/hub/user-redirect/git-pull?{query}"


def kernel_python(kernel_dir: Path) -> str:
    """The interpreter a registered kernel starts (its ``kernel.json``'s first argument)."""
    import json

    return str(json.loads((kernel_dir / "kernel.json").read_text())["argv"][0])
