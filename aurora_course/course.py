"""Facts about the course itself: where it lives, which notebooks it has, how Colab opens them."""

from __future__ import annotations

from pathlib import Path

from .course_notebook import NOTEBOOK_NAME

#: The course's GitHub repository, ``owner/name``, and the git ref (the ``main`` branch, a tag
#: such as a workshop's ``workshop-2026-11`` or a release's ``v<version>``, or a commit) that Colab
#: opens the notebooks at and installs the helpers from: notebook and helpers at one ref. The one
#: place both are set: ``aurora retarget [--slug owner/name] [--ref REF]`` rewrites these two
#: lines and then every file that names them (the notebooks' Colab install cells, the README's
#: Colab links, ``pyproject.toml``); ``tests/test_retarget.py`` checks that they all agree and
#: that the ref exists in the checkout.
REPOSITORY_SLUG = "project-aurora/aurora-course"
REF = "main"
#: ``""`` while the course follows ``REF`` as it moves; ``"tested"`` on a frozen workshop ref
#: (``aurora retarget --ref workshop-YYYY-MM --freeze``): the Colab cell and online installs then
#: take the helpers with their ``tested`` extra, which ``--freeze`` writes into ``pyproject.toml``
#: from ``aurora_helpers/_tested.py``: JAX and the training stack at the releases tested.
INSTALL_EXTRA = ""
#: The folder of student copies (solutions stubbed, instructor notes removed) that learners open:
#: generated from ``notebooks/`` by ``aurora student --out student`` (``make student``) and kept
#: in sync by ``tests/test_handout.py``.
STUDENT_FOLDER = "student"


def colab_url(
    notebook: str, slug: str = REPOSITORY_SLUG, ref: str = REF, folder: str = "notebooks"
) -> str:
    """The 'Open in Colab' address of ``<folder>/<notebook>`` on GitHub (``folder``: the course's
    ``notebooks``, or :data:`STUDENT_FOLDER` for a learner's copy)."""
    return f"https://colab.research.google.com/github/{slug}/blob/{ref}/{folder}/{notebook}"


def pip_install_target(
    slug: str = REPOSITORY_SLUG, ref: str = REF, extra: str = INSTALL_EXTRA
) -> str:
    """What Colab pip-installs: the helpers at the same ref as the notebook (with ``extra``: the
    releases a frozen workshop pins)."""
    name = f"aurora-helpers[{extra}]" if extra else "aurora-helpers"
    return f"{name} @ git+https://github.com/{slug}.git@{ref}"


def find_notebooks(directory: Path) -> list[Path]:
    """The course's notebooks in ``directory`` (``NN_name.ipynb``), in course order."""
    return sorted(p for p in directory.glob("*.ipynb") if NOTEBOOK_NAME.match(p.name))


def locate_notebooks(explicit: Path | None = None) -> Path:
    """The folder of course notebooks a command should read.

    ``explicit`` (a ``--notebooks`` option) must hold course notebooks. Without it: ``notebooks/``
    in the current folder, else the ``notebooks/`` of the checkout the helpers were installed from
    (an editable install, as ``make setup`` makes).

    Raises:
        ValueError: no course notebooks there; the message says where it looked and what to do.
    """
    if explicit is not None:
        if not find_notebooks(explicit):
            raise ValueError(
                f"no course notebooks (NN_name.ipynb) in {explicit}: pass the course's notebooks "
                "folder to --notebooks"
            )
        return explicit
    installed = Path(__file__).resolve().parents[1] / "notebooks"
    for folder in (Path("notebooks"), installed):
        if find_notebooks(folder):
            return folder
    raise ValueError(
        f"no course notebooks found: neither ./notebooks nor {installed} (next to the installed "
        "helpers) holds NN_name.ipynb files. Run this in the course's repository (a checkout "
        "of it), or pass --notebooks FOLDER"
    )


def notebook_number(path: Path) -> str:
    """``"03"`` for ``03_devices.ipynb``."""
    match = NOTEBOOK_NAME.match(path.name)
    if match is None:
        raise ValueError(f"{path.name} is not named like a course notebook (NN_name.ipynb)")
    return match.group("number")


def select_notebooks(notebooks: list[Path], only: list[str] | None) -> list[Path]:
    """The notebooks whose number is in ``only`` (``["03", "5"]``); all of them if ``only`` is empty.

    Raises:
        ValueError: a requested number matches no notebook; the message lists those that exist.
    """
    if not only:
        return notebooks
    wanted = {w.zfill(2) if w.isdigit() else w.upper() for w in only}
    numbers = {notebook_number(p): p for p in notebooks}
    missing = sorted(wanted - numbers.keys())
    if missing:
        raise ValueError(
            f"no notebook numbered {', '.join(missing)}; the course has {', '.join(sorted(numbers))}"
        )
    return [p for p in notebooks if notebook_number(p) in wanted]
