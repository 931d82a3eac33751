# capkit: `make test` and `make reproduce` bootstrap .venv on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.capkit-installed
SHARED_DATA := $(abspath ../shared/data)
export CAPKIT_DATA ?= $(if $(wildcard $(SHARED_DATA)),$(SHARED_DATA),)
export PYDEVD_DISABLE_FILE_VALIDATION := 1

.PHONY: test reproduce quick notebooks lint docs bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet -e ".[dev,spark]"
	touch $(STAMP)

## test: unit, property and conformance tests, then nbval over the stored notebooks
test: $(STAMP)
	$(BIN)/ruff check capkit tests benchmarks
	$(BIN)/lint-imports --no-cache
	$(BIN)/mkdocs build --strict --quiet
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup tests
	$(BIN)/python -m pytest -q -n 2 --dist loadfile --nbval --nbval-current-env -p no:randomly notebooks

## reproduce: execute every experiment notebook, write figures/ and figures/claims.md
reproduce: $(STAMP)
	$(BIN)/capkit reproduce

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
