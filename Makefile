# zettelclaw — the README contract: `make demo` runs the main job, `make test` passes the tests.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test unit e2e e2e-toolchain node-test bench lint stress clean

# The editable install is setuptools' "compat" mode: a plain path in a .pth file, so a Python
# start-up (the per-prompt `zettelclaw handoff`) loads no import hook and no pathlib; setuptools
# prints a deprecation box for that mode on every install, which says nothing to do here.
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	PYTHONWARNINGS="ignore:Compat editable installs" \
	  $(PY) -m pip install -q -e '.[test,dev,bench]' --config-settings editable_mode=compat
	touch $(STAMP)

demo: $(STAMP)
	$(PY) examples/demo.py

test: $(STAMP) e2e-toolchain
	$(PY) -m pytest -q
	$(MAKE) --no-print-directory node-test

unit: $(STAMP)
	$(PY) -m pytest -q -m "not e2e"

# file list, not the directory: Node 20 runs a directory's tests, Node 22+ takes it as a file.
# The reporter prints a dot a test, then each failure whole and one summary line (node's own
# TAP is ~520 lines); NODE_TEST_REPORTER=tap (or spec) gives node's own.
NODE_TEST_REPORTER ?= ./scripts/node-test-summary.mjs
node-test:
	node --test --test-reporter=$(NODE_TEST_REPORTER) hooks/openclaw-plugin/test/*.test.js

e2e: $(STAMP) e2e-toolchain
	$(PY) -m pytest -q -m e2e

# The end-to-end tests' toolchain: Node 24 and OpenClaw 2026.9.6 and 2026.2.22 from the npm
# registry, about 2.2 GB in the cache below, fetched once (several minutes) and reused. Fetched
# here, before pytest, so what is fetched, where and how far it got shows on the terminal (inside
# pytest it would be captured); silent when the cache is complete. Without npm the e2e tests skip.
E2E_VERSIONS := 2026.9.6 2026.2.22
E2E_CACHE    ?= $(or $(ZETTELCLAW_E2E_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/zettelclaw-e2e)
e2e-toolchain:
	@command -v npm >/dev/null || exit 0; \
	missing=; for v in $(E2E_VERSIONS); do \
	  [ -f "$(E2E_CACHE)/openclaw-$$v/.complete" ] || missing="$$missing $$v"; done; \
	[ -z "$$missing" ] || echo "e2e toolchain: fetching OpenClaw$$missing (and Node 24 if missing)" \
	  "from the npm registry into $(E2E_CACHE): about 2.2 GB in all, once, several minutes." \
	  "To run the tests without it: make unit"; \
	for v in $(E2E_VERSIONS); do \
	  ZETTELCLAW_E2E_CACHE="$(E2E_CACHE)" bash scripts/openclaw-env.sh $$v >/dev/null || exit 1; \
	done

bench: $(STAMP)
	$(PY) bench/run.py

lint: $(STAMP)
	$(VENV)/bin/ruff check zettelclaw tests bench examples

stress: $(STAMP)
	ZC_STRESS=1 $(PY) -m pytest -q tests/test_reliability.py tests/stress

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
