"""JupyterLab as `make lab` starts it for learners: one file per notebook, the course's kernel, no
pop-ups. (The Makefile points JUPYTER_PATH at the course's kernel, registered by `aurora kernel
install` under the name the notebooks ask for, aurora, so they start on it.)"""

from pathlib import Path

c = get_config()  # noqa: F821 (defined by Jupyter when it reads this file)

# The MyST twins (NN_name.md) are for reviewers and `make sync`; learners open the .ipynb.
c.ContentsManager.hide_globs = [
    "__pycache__",
    "*.pyc",
    "*.pyo",
    ".DS_Store",
    "*~",
    "*.so",
    "*.dylib",
    "*.md",
]
# No "Would you like to receive official Jupyter news?" and no update check: settings below.
c.LabApp.app_settings_dir = str(Path(__file__).with_name("settings"))
c.LabApp.check_for_updates_class = "jupyterlab.NeverCheckForUpdate"
