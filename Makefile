# Project Aurora. `make run` executes the course; `make test` checks it. Both set up first.
# Variables: DEVICES (simulated CPU devices, default 8), ONLY (notebook numbers, e.g. ONLY="03 05"),
# PARAMS (notebook parameters, e.g. PARAMS="-p n=4096"), JOBS (parallel test workers),
# OFFLINE=1 (make run installs from WHEELHOUSE alone: see make wheelhouse).

SHELL := /bin/sh
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.aurora-installed
# make run needs only the course extra (no test tools); make setup installs dev, which includes it.
RUN_STAMP := $(VENV)/.aurora-course
OFFLINE ?=
WHEELHOUSE ?= wheelhouse
OLD_VENV ?= .venv-oldest
OLD_PY := $(OLD_VENV)/bin/python
OLD_STAMP := $(OLD_VENV)/.aurora-installed
# The oldest supported JAX runs on the oldest Python the project declares (pyproject.toml's
# requires-python; tests/test_python_versions.py keeps the two in step).
OLDEST_PYTHON_MINOR := 11
# The tested release set (make pin writes it; make test-latest tries newer releases).
PINS := ci/tested.txt
LATEST_VENV ?= .venv-latest
DEVICES ?= 8
JOBS ?= 2
ONLY ?=
PARAMS ?=
# make test-site: the notebooks it executes into SITE_BUILD to build the site it checks.
SITE_ONLY ?= 00 07
SITE_BUILD ?= build/site-test
LAB_ARGS ?=
# The tests run in tiers (CONTRIBUTING): `make test-fast` (no notebook executed) first.
PYTEST = AURORA_STRICT=1 $(1) -m pytest -q -n $(JOBS)
# The simulated device counts of a target's notebook runs: ci/runs.txt's, the one table of runs
# (scripts/runs devices TARGET: every count a step running that target uses). DEVICE_COUNTS="N ..."
# on the command line picks others.
DEVICE_COUNTS = $(shell scripts/runs devices $@)
.PHONY: test-hub test-wheelhouse lock wheelhouse test-offline memory-report test-devices test-latest pin pin-envs
.PHONY: help setup run test test-fast test-slow test-unit test-notebooks test-oldest test-gpu test-torch student present learn lab install-offline lint format sync test-matrix test-colab test-launchers test-site quickref schedule clean
.PHONY: test-full test-oldest-variants test-upstream env-oldest env-matrix

help:
	@echo "make run         set up, then execute every notebook into build/ (open build/index.html)"
	@echo "make test        set up, then lint, the fast unit tests, every notebook and its student"
	@echo "                 copy at 8 devices (under 5 minutes on 2 cores from a fresh clone)"
	@echo "make test-fast   the unit tests that execute no notebook (about 30 s): run these first"
	@echo "make test-slow   the unit tests that start fresh Pythons, kernels, clusters or compilers"
	@echo "make test-notebooks  every notebook twice in one kernel at 8 devices, with its wrong"
	@echo "                 answers and its student copy (CI runs it after make test)"
	@echo "make test-unit   the unit tests alone"
	@echo "make test-devices every notebook at the other device counts the course promises (ci/runs.txt)"
	@echo "make test-oldest the notebooks' student runs on the oldest supported JAX (ci/oldest.txt), Python 3.11"
	@echo "make test-oldest-variants  the unit tests and the runs with wrong answers there (full tier)"
	@echo "make test-full   what .ci/run (the landing gate) leaves out: the other device counts, every"
	@echo "                 release, Colab, PyTorch, ... (ci/runs.txt; scripts/runs list shows the steps)"
	@echo "make test-latest make test on the newest releases in the declared ranges (not the pins),"
	@echo "                 listing how they differ from ci/tested.txt; then make pin moves the pins"
	@echo "make pin-envs    write ci/tested-oldest.txt and ci/tested-jax-VERSION.txt from the older"
	@echo "                 releases' environments (make test-oldest's, make test-matrix's)"
	@echo "make test-gpu    tests and notebooks on an NVIDIA GPU"
	@echo "make test-torch  the PyTorch comparison of aurora bench, with a CPU PyTorch in .venv-torch"
	@echo "make test-matrix the notebooks on each JAX release in ci/matrix.txt (MATRIX=\"0.10.2\": one)"
	@echo "make test-colab  the Colab install cell in simulated Colab CPU and GPU runtimes"
	@echo "make test-launchers  notebook 08's programs under mpirun and a local SLURM (root; apt)"
	@echo "make test-site   the course website (and make lab) in headless Chromium"
	@echo "make test-grade  aurora grade on every notebook's solutions (GRADE_ONLY=\"07 09\": on those)"
	@echo "make test-upstream  make test-unit and test-notebooks on the newest JAX on PyPI (.venv-upstream)"
	@echo "make lab         JupyterLab on notebooks/ (with solutions and instructor notes)"
	@echo "make learn       JupyterLab on student/ (learners: the copies to work in)"
	@echo "make present     JupyterLab on presenter copies (instructor notes removed) for teaching"
	@echo "make lock        regenerate ci/workshop.lock (exact versions and hashes, for workshops)"
	@echo "make wheelhouse  download every wheel ci/workshop.lock names into wheelhouse/"
	@echo "make install-offline  install the course and JupyterLab from wheelhouse/ alone (no network)"
	@echo "make run OFFLINE=1  set up from wheelhouse/ alone (no network), then run"
	@echo "make test-offline   wheelhouse, then install and run in a network namespace (root)"
	@echo "make memory-report  measure every notebook's peak memory into docs/jupyterhub.md"
	@echo "make schedule    SCHEDULE.md from the notebooks' time lines; make quickref: build/quickref.{html,pdf}"
	@echo "make lint | format | sync (also student/) | student (student/ from notebooks/) | clean"

setup: $(STAMP)

$(STAMP): pyproject.toml $(PINS)
	@scripts/make-venv $(VENV) dev $(PINS)
	@touch $@ $(RUN_STAMP)

$(RUN_STAMP): pyproject.toml $(PINS)
	@AURORA_WHEELHOUSE=$(if $(OFFLINE),$(WHEELHOUSE)) scripts/make-venv $(VENV) course $(PINS)
	@touch $@

run: $(RUN_STAMP)
	$(PY) -m aurora_course run --devices $(DEVICES) $(if $(ONLY),--only $(ONLY)) $(PARAMS)

# One pytest for the fast unit tests and the notebook runs, so that its two workers share them
# (the longest notebook first): every notebook once at DEVICE_COUNTS (8) in a fresh kernel, each exercise
# solved, then stubbed as in the student copy. The unit tests that start fresh Pythons, kernels,
# clusters or compilers (`slow`) are make test-slow's; running each notebook twice in one kernel
# with its wrong answers (`variants`, about three times as long) is make test-notebooks'; CI runs
# both after this. The runs at other device counts are make test-devices'.
test: setup lint
	AURORA_DEVICE_COUNTS="$(DEVICE_COUNTS)" $(call PYTEST,$(PY)) -m "not variants and not slow" tests

test-slow: setup
	$(call PYTEST,$(PY)) -m "slow and not notebooks" tests

test-fast: setup
	$(call PYTEST,$(PY)) -m "not slow and not notebooks" tests

test-unit: setup
	$(call PYTEST,$(PY)) -m "not notebooks" tests

test-notebooks: setup  # at one device count
	AURORA_DEVICES=$(DEVICE_COUNTS) $(call PYTEST,$(PY)) -m variants tests

# Every notebook once at each device count the course promises besides 8 (make test): 1, and
# counts where meshes and splits do not come out even; each exercise solved, then stubbed (the
# student copy). The gate runs 1, the full tier the others (ci/runs.txt).
test-devices: setup
	AURORA_DEVICE_COUNTS="$(DEVICE_COUNTS)" $(call PYTEST,$(PY)) -m devices tests

# ci/oldest.txt pins JAX; ci/tested-oldest.txt the rest, at the versions the last green run used.
$(OLD_STAMP): pyproject.toml ci/oldest.txt $(wildcard ci/tested-oldest.txt)
	@PYTHON_MINOR=$(OLDEST_PYTHON_MINOR) scripts/make-venv $(OLD_VENV) dev ci/oldest.txt $(wildcard ci/tested-oldest.txt)
	@touch $@
env-oldest: $(OLD_STAMP)
OLD_CHECK = $(OLD_PY) -c "import jax, platform, sys; print('oldest supported JAX:', jax.__version__, 'on Python', platform.python_version()); assert sys.version_info[:2] == (3, $(OLDEST_PYTHON_MINOR))"

# Every notebook once (solved, then stubbed) at DEVICE_COUNTS: the gate's run of the oldest JAX.
test-oldest: $(OLD_STAMP)
	$(OLD_CHECK)
	AURORA_DEVICE_COUNTS="$(DEVICE_COUNTS)" $(call PYTEST,$(OLD_PY)) -m devices tests
# Every unit test, and every notebook twice in one kernel with its wrong answers and its student
# copy (make test-notebooks' runs, at one count): the full tier's.
test-oldest-variants: $(OLD_STAMP)
	$(OLD_CHECK)
	AURORA_DEVICES=$(DEVICE_COUNTS) $(call PYTEST,$(OLD_PY)) -m "not devices" tests

test-gpu:
	scripts/test-gpu

# make test on the newest releases pyproject.toml's ranges admit (not the pins of ci/tested.txt), in
# $(LATEST_VENV), after listing the packages that differ from the pins. Green: `make pin` makes
# them the pins (commit ci/tested.txt and aurora_helpers/_tested.py together). The weekly workflow
# runs it, so that a new upstream release shows up there and not in a learner's fresh clone.
# It builds $(LATEST_VENV) anew each time (nothing left over from an older resolution), on Python
# 3.12, and leaves a stamp only when make test passed there: make pin refuses without it.
test-latest:
	@rm -rf $(LATEST_VENV)
	@PYTHON_MINOR=12 AURORA_UPGRADE=1 scripts/make-venv $(LATEST_VENV) dev,lab
	@touch $(LATEST_VENV)/.aurora-installed $(LATEST_VENV)/.aurora-course
	@$(LATEST_VENV)/bin/python scripts/pin diff
	$(MAKE) test VENV=$(LATEST_VENV)
	@touch $(LATEST_VENV)/.aurora-green
# make test-unit and make test-notebooks with the pins, but the newest JAX on PyPI, even past the
# declared upper bound (in $(UPSTREAM_VENV), built anew): a break is seen here first (weekly).
UPSTREAM_VENV ?= .venv-upstream
test-upstream:
	@rm -rf $(UPSTREAM_VENV)
	@scripts/make-venv $(UPSTREAM_VENV) dev $(PINS)
	@touch $(UPSTREAM_VENV)/.aurora-installed $(UPSTREAM_VENV)/.aurora-course
	$(UPSTREAM_VENV)/bin/python -m pip install --quiet --upgrade --no-deps jax jaxlib
	@$(UPSTREAM_VENV)/bin/python -c "import jax; print('newest JAX on PyPI:', jax.__version__)"
	$(MAKE) test-unit test-notebooks VENV=$(UPSTREAM_VENV)
pin:
	@[ -f $(LATEST_VENV)/.aurora-green ] || { echo "make pin needs a green make test-latest first (it builds $(LATEST_VENV))" >&2; exit 1; }
	$(LATEST_VENV)/bin/python scripts/pin write
# The same lists for the older JAX releases' environments that exist here (make test-oldest's,
# make test-matrix's): ci/tested-oldest.txt, ci/tested-jax-VERSION.txt.
pin-envs:
	@[ ! -x $(OLD_PY) ] || $(OLD_PY) scripts/pin freeze ci/tested-oldest.txt
	@for v in $$(sed 's/#.*//' ci/matrix.txt); do \
	  [ ! -x .venv-jax-$$v/bin/python ] || .venv-jax-$$v/bin/python scripts/pin freeze ci/tested-jax-$$v.txt; done

# aurora grade on every course notebook (GRADE_ONLY="07 09": on those; notebook 00 and its student
# copy always): its solutions must score every exercise.
.PHONY: test-grade
GRADE_ONLY ?=
test-grade: setup
	AURORA_GRADE_NOTEBOOKS="$(or $(strip $(GRADE_ONLY)),all)" $(PY) -m pytest -q -p no:randomly -n $(JOBS) -m grade tests/test_grading.py

# The PyTorch side of `aurora bench --compare torch`, in its own environment: PyTorch's CPU build
# on Python 3.11 (TORCH_PYTHON), with the versions pinned in ci/torch.txt.
TORCH_VENV ?= .venv-torch
TORCH_PYTHON ?= python3.11
test-torch:
	@[ -x $(TORCH_VENV)/bin/python ] || $(TORCH_PYTHON) -m venv $(TORCH_VENV) || \
	  { echo "make test-torch needs $(TORCH_PYTHON) (set TORCH_PYTHON=...)"; exit 1; }
	@scripts/make-venv $(TORCH_VENV) dev,torch ci/torch.txt
	AURORA_STRICT=1 $(TORCH_VENV)/bin/python -m pytest -q -p no:randomly -m torch tests
# One cached venv per release (.venv-jax-VERSION); table in build/matrix/summary.md.
test-matrix:
	JOBS=$(JOBS) DEVICE_COUNTS="$(DEVICE_COUNTS)" scripts/test-matrix $(MATRIX)
env-matrix:
	scripts/test-matrix --prepare $(MATRIX)

test-colab:
	scripts/test-colab

# The full tier: what .ci/run, the landing gate, leaves out (ci/runs.txt's full steps, in order).
test-full:
	scripts/runs full
# Real launchers (Open MPI, SLURM + munge) on 127.0.0.1; installs them with apt where missing.
test-launchers: setup
	$(PY) scripts/test-launchers $(abspath $(PY))
# SITE_REUSE=DIR: the site an earlier step built there, where it did (the gate's offline run keeps
# its build: ci/runs.txt), instead of executing SITE_ONLY again.
SITE_REUSE ?=
test-site: setup
	-@scripts/ensure-chromium
	@if [ -n "$(SITE_REUSE)" ] && [ -f "$(SITE_REUSE)/site/index.html" ]; then \
	  echo "test-site: the site built in $(SITE_REUSE)"; build="$(SITE_REUSE)"; \
	else \
	  $(PY) -m aurora_course run --no-progress --only $(SITE_ONLY) --build $(SITE_BUILD) || exit 1; build="$(SITE_BUILD)"; \
	fi; \
	AURORA_SITE_BUILD=$$build $(PY) -m pytest -q -p no:cacheprovider tests/test_site_browser.py tests/test_quickref.py

# The classroom on a real JupyterHub (tests/test_hub.py): a hub on 127.0.0.1 in .venv-hub (ci/hub.txt,
# configurable-http-proxy from npm: network the first time), HUB_LEARNERS learners at once pulling
# the student copies with nbgitpuller and running HUB_NOTEBOOKS on the course's kernel, graded with
# aurora grade; memory and times in build/hub/summary.json. Leaves no process, port or home behind.
HUB_LEARNERS ?= 4
HUB_NOTEBOOKS ?= 06_sharding 10_training_stack
test-hub: setup
	@scripts/make-hub-env .venv-hub
	AURORA_HUB_LEARNERS=$(HUB_LEARNERS) AURORA_HUB_NOTEBOOKS="$(HUB_NOTEBOOKS)" $(PY) -m pytest -q -s -p no:randomly -p no:cacheprovider -m hub tests/test_hub.py

# The quick reference, one sheet printed on both sides (HTML, and PDF through headless Chromium,
# installed as for test-site), from the notebooks.
quickref: setup
	-@scripts/ensure-chromium
	$(PY) -m aurora_course quickref --out build

# SCHEDULE.md from the notebooks' time lines (a test fails when it is out of date).
schedule: setup
	$(PY) -m aurora_course schedule --write

# The student copies learners open (committed; tests/test_handout.py checks they are current),
# and presenter copies (instructor notes removed) opened in JupyterLab for teaching.
student: setup
	$(PY) -m aurora_course student --out student
present: $(RUN_STAMP)
	$(PY) -m aurora_course student --presenter --out build/present
	$(MAKE) lab LAB_DIR=build/present
# JupyterLab on the student copies: what a learner on their own laptop opens.
learn:
	$(MAKE) lab LAB_DIR=student

# JupyterLab for learners: the .ipynb files only (the MyST twins are hidden), each starting on the
# course's kernel (the one the notebooks name, aurora, "Project Aurora (JAX)", registered in
# build/lab, which JUPYTER_PATH puts first: opening a notebook leaves it unchanged), no news pop-up
# (scripts/lab/).
LAB := $(abspath build/lab)
LAB_DIR ?= notebooks
lab: $(RUN_STAMP)
	@$(PY) -c "import jupyterlab" 2>/dev/null || { [ -z "$(OFFLINE)" ] || { echo "JupyterLab is not in .venv and OFFLINE is set: run make install-offline (the wheelhouse has it)" >&2; exit 1; }; scripts/make-venv $(VENV) lab $(PINS); }
	@$(PY) -m aurora_course kernel install --prefix $(LAB) >/dev/null
	JUPYTER_PATH=$(LAB)/share/jupyter $(PY) -m jupyter lab $(LAB_DIR) --config=scripts/lab/jupyter_lab_config.py $(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)

lint: setup
	$(PY) -m ruff check aurora_helpers aurora_course tests notebooks
	$(PY) -m ruff format --check aurora_helpers aurora_course tests
	$(PY) -m mypy

format: setup
	$(PY) -m ruff check --fix aurora_helpers aurora_course tests notebooks
	$(PY) -m ruff format aurora_helpers aurora_course tests

sync: setup
	$(PY) -m jupytext --sync notebooks/[0-9A-Z][0-9]_*.md
	$(PY) -m aurora_course student --out student >/dev/null

# The workshop kit: a lock file with hashes, the wheels it names, and a test without network.
lock:
	scripts/lock
# WHEELHOUSE_TARGET=macos-arm64 (windows-amd64, linux-aarch64, linux-x86_64): the wheels a machine
# of that kind installs, markers evaluated for it (scripts/make-wheelhouse); default: this machine.
WHEELHOUSE_TARGET ?= host
wheelhouse:
	scripts/make-wheelhouse --target $(WHEELHOUSE_TARGET) $(WHEELHOUSE)
# Every target's set resolved against the index (wheels exist for its platform), nothing downloaded.
test-wheelhouse:
	@for t in linux-x86_64 linux-aarch64 macos-arm64 windows-amd64; do scripts/make-wheelhouse --check --target $$t || exit 1; done
# Install the course and JupyterLab from the wheelhouse alone (no network) and stop: then
# `make learn OFFLINE=1`, `make lab OFFLINE=1` or `make run OFFLINE=1`.
install-offline:
	AURORA_WHEELHOUSE=$(WHEELHOUSE) scripts/make-venv $(VENV) course
	@touch $(RUN_STAMP)
	@$(PY) -c "import jax, jupyterlab; print('installed offline: jax', jax.__version__, '| jupyterlab', jupyterlab.__version__)"
# KEEP=DIR: keep the run's build folder there (make test-site SITE_REUSE=DIR reads it).
KEEP ?=
test-offline:
	KEEP=$(KEEP) scripts/test-offline $(ONLY)
# The table of docs/jupyterhub.md: peak memory of every notebook at 8 devices, measured.
memory-report: $(RUN_STAMP)
	$(PY) -m aurora_course run --devices 8 --no-html --no-progress --build build/memory --memory-report docs/jupyterhub.md

clean:
	rm -rf build .pytest_cache .ruff_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
