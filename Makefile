# capkit: `make test` and `make reproduce` bootstrap .venv on a fresh machine, from the lock.
#
# requirements.lock pins every package `pip install -e ".[dev,spark]"` brings in (CPython 3.11,
# Linux x86_64) to the version the suite and the stored oracles were checked with, with the
# SHA-256 of every file of that version: `pip install --require-hashes` then installs exactly
# those, on any machine, so a newcomer's first `make test` sees the numbers the suite was
# written against. pyproject.toml keeps the ranges a library user needs; `make test-latest`
# checks the ranges' newest versions in a venv of their own (.venv-latest).
#
# Why uv (`uv pip compile --generate-hashes`) makes the lock: it writes pip-tools' format (a
# plain requirements file with hashes, installed by pip alone: nobody needs uv to use it), it
# takes the checked venv's versions as constraints in one call, and it hashes every wheel of a
# version, not only this machine's. uv runs only in `make lock`, from .venv-locktools.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.capkit-installed
LOCK := requirements.lock
LATEST := .venv-latest
# The ranges' newest versions depend on the Python: on 3.11 they are the lock's today (numpy 2.5
# and scipy 1.18 need 3.12), so the scheduled check runs e.g. `make test-latest LATEST_PYTHON=python3.12`.
LATEST_PYTHON ?= $(PYTHON)
LOCKTOOLS := .venv-locktools
UV_VERSION := 0.13.9
SHARED_DATA := $(abspath ../shared/data)
export CAPKIT_DATA ?= $(if $(wildcard $(SHARED_DATA)),$(SHARED_DATA),)
export PYDEVD_DISABLE_FILE_VALIDATION := 1
PYTEST_TESTS := -q -n 2 --dist loadgroup tests
PYTEST_NOTEBOOKS := -q -n 2 --dist loadfile --nbval --nbval-current-env -p no:randomly notebooks

.PHONY: test test-slow test-latest reproduce quick notebooks lint docs bench lock clean

$(STAMP): pyproject.toml $(LOCK)
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info[:3] < (3, 11, 5) or sys.version_info[:2] > (3, 11))' \
	  || { echo "$(LOCK) is for CPython 3.11 (>= 3.11.5), the version the suite is checked with;"; \
	       echo "run e.g. 'make test PYTHON=python3.11', or 'make test-latest' for your Python."; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK)
	PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet --no-deps -e .
	@$(BIN)/python -m pip check >/dev/null || { $(BIN)/python -m pip check; \
	  echo "$(LOCK) does not satisfy pyproject.toml (a dependency added or a range moved):"; \
	  echo "install it into $(VENV), run the suite, then 'make lock'."; exit 1; }
	touch $(STAMP)

## test: unit, property and conformance tests (not those marked slow), then nbval over the stored notebooks
test: $(STAMP)
	$(BIN)/ruff check capkit tests benchmarks
	$(BIN)/lint-imports --no-cache
	$(BIN)/mkdocs build --strict --quiet
	$(BIN)/python -m pytest $(PYTEST_TESTS) -m "not slow"
	$(BIN)/python -m pytest $(PYTEST_NOTEBOOKS)

## test-slow: the tests that re-check a property of the fast suite on larger data (make reproduce's users)
test-slow: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_TESTS) -m slow

## test-latest: the ranges' newest versions in .venv-latest (rebuilt each time), then every test and nbval
test-latest:
	rm -rf $(LATEST)
	$(LATEST_PYTHON) -m venv $(LATEST)
	$(LATEST)/bin/python -m pip install --quiet --upgrade pip
	PYTHONWARNINGS=ignore $(LATEST)/bin/python -m pip install --quiet --upgrade --upgrade-strategy eager -e ".[dev,spark]"
	mkdir -p build
	$(LATEST)/bin/python -m pip freeze --exclude-editable > build/latest-versions.txt
	@echo "versions that differ from $(LOCK) (lock -> latest):"
	@$(LATEST)/bin/python .ci/lock_diff.py $(LOCK) build/latest-versions.txt
	$(LATEST)/bin/python -m pytest $(PYTEST_TESTS) -p no:cacheprovider
	$(LATEST)/bin/python -m pytest $(PYTEST_NOTEBOOKS) -p no:cacheprovider

## lock: rewrite requirements.lock from the versions installed in .venv (after the suite passed there)
lock:
	test -x $(BIN)/python
	test -x $(LOCKTOOLS)/bin/uv || { $(PYTHON) -m venv $(LOCKTOOLS) && \
	  $(LOCKTOOLS)/bin/python -m pip install --quiet uv==$(UV_VERSION); }
	mkdir -p build
	$(BIN)/python -m pip freeze --exclude-editable | grep -v '^#' > build/lock-constraints.txt
	$(LOCKTOOLS)/bin/uv pip compile pyproject.toml --extra dev --extra spark --generate-hashes \
	  --python-platform x86_64-manylinux_2_28 --python-version 3.11.7 \
	  -c build/lock-constraints.txt --custom-compile-command "make lock" --quiet -o $(LOCK)

## reproduce: execute every experiment notebook, write figures/ and figures/claims.md
reproduce: $(STAMP)
	$(BIN)/capkit reproduce --jobs 2

## quick: the same with each experiment's quick parameters, into build/quick/ (figures/ untouched)
quick: $(STAMP)
	$(BIN)/capkit reproduce --quick

## notebooks: refresh the stored notebooks' outputs with the quick parameters (what nbval checks)
notebooks: $(STAMP)
	$(BIN)/capkit reproduce --store --quick

lint: $(STAMP)
	$(BIN)/ruff check capkit tests benchmarks
	$(BIN)/lint-imports --no-cache

## docs: the API reference and guides as a static site in build/site (mkdocs + mkdocstrings)
docs: $(STAMP)
	$(BIN)/mkdocs build --strict

bench: $(STAMP)
	for f in benchmarks/bench_*.py; do $(BIN)/python $$f || exit 1; done

clean:
	rm -rf build .pytest_cache .hypothesis
