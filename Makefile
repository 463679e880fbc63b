# Two commands set up and run everything on a fresh machine:
#   make demo   -- creates .venv if missing, installs smiclust, runs the demo
#   make test   -- creates .venv if missing, installs smiclust[test], runs the test suite
#                  on every core (pytest-xdist)
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.smiclust-installed

.PHONY: demo test bench reproduce lint clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test,dev]"
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m smiclust demo

test: $(STAMP)
	$(PY) -m pytest -q -n auto

bench: $(STAMP)
	$(PY) benchmarks/run_benchmarks.py

reproduce: $(STAMP)
	$(PY) -m smiclust reproduce --out docs/reproduction --n-jobs -1

lint: $(STAMP)
	$(PY) -m ruff check src tests benchmarks examples

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
