# toollearn: `make demo` runs the main job on the embedded model; `make test` runs every test.
# torch==2.13.0 is installed before anything that needs torch (on the project's machines it is
# a local CPU wheel; any other torch requirement would pull several GB of CUDA packages).
# Elsewhere: `make test TORCH_INDEX=https://download.pytorch.org/whl/cpu` takes the CPU build.
VENV ?= .venv
TORCH_INDEX ?=
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-all

.PHONY: install install-demo demo test lint wheel-check

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(VENV)/.installed-demo: pyproject.toml | $(PY)
	$(PY) -m pip install -q torch==2.13.0 $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(PY) -m pip install -q -e '.[demo]'
	touch $@

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q torch==2.13.0 $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(PY) -m pip install -q -e '.[all,dev]'
	touch $@

install-demo: $(VENV)/.installed-demo
install: $(STAMP)

demo: install-demo
	$(VENV)/bin/toollearn demo

test: install
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/pytest -q --strict-skips

lint: install
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/ruff format --check src tests benchmarks

# the wheel (models inside) in a fresh venv with pip alone: `toollearn call` and three requests
# to `toollearn serve`, from outside the checkout
wheel-check:
	TORCH_INDEX=$(TORCH_INDEX) bash .ci/wheel-check
