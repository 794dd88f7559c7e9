# zettelclaw — the README contract: `make demo` runs the main job, `make test` passes the tests.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test unit e2e node-test bench lint stress clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test,dev,bench]' --config-settings editable_mode=compat
	touch $(STAMP)

demo: $(STAMP)
	$(PY) examples/demo.py

test: $(STAMP)
	$(PY) -m pytest -q
	$(MAKE) --no-print-directory node-test

unit: $(STAMP)
	$(PY) -m pytest -q -m "not e2e"

# file list, not the directory: Node 20 runs a directory's tests, Node 22+ takes it as a file
node-test:
	node --test hooks/openclaw-plugin/test/*.test.js

e2e: $(STAMP)
	$(PY) -m pytest -q -m e2e

bench: $(STAMP)
	$(PY) bench/run.py

lint: $(STAMP)
	$(VENV)/bin/ruff check zettelclaw tests bench examples

stress: $(STAMP)
	ZC_STRESS=1 $(PY) -m pytest -q tests/test_reliability.py tests/stress

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
