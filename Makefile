# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
DEMO_STORE := $(VENV)/demo-store.jsonl

.PHONY: demo test lint docs bench fuzz clean install dev

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Stamp files so that re-running is instant but a changed pyproject.toml reinstalls.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed
dev: $(VENV)/.installed-dev

# Checked before the venv exists, so an old Python never leaves a half-made .venv behind.
demo: PYTHON_OK := $(shell $(PYTHON) -c 'import sys; print(int(sys.version_info >= (3, 11)))' 2>/dev/null)
demo:
	@if [ "$(PYTHON_OK)" != 1 ]; then echo "convo needs Python 3.11 or newer, and $(PYTHON) is older or missing (try: make demo PYTHON=python3.11)" >&2; exit 1; fi
	@$(MAKE) --no-print-directory $(VENV)/.installed
	@rm -f $(DEMO_STORE)
	$(BIN)/convo --store $(DEMO_STORE) ingest --save sample_data/
	$(BIN)/convo --store $(DEMO_STORE) stats
	$(BIN)/convo --store $(DEMO_STORE) people
	# The list opens on people talking (mail, Slack, Discord), not on agent test payloads.
	$(BIN)/convo --store $(DEMO_STORE) query 'date:2024-03-06 (format:mbox OR format:slack OR format:discord) -tag:system' --limit 12
	$(BIN)/convo --store $(DEMO_STORE) show --thread '<auth-1@example.org>'
	$(BIN)/convo --store $(DEMO_STORE) query 'from:alice tag:security' --format text

test: $(VENV)/.installed-dev
	$(BIN)/python -m pytest

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests benchmarks tools
	$(BIN)/ruff format --check src tests benchmarks tools
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy
	$(BIN)/python tools/check_structure.py src
	$(BIN)/vulture --min-confidence 80 src

# The site from docs/ into site/, offline and strict (a broken link or a page missing from
# the navigation fails). The generated pages are written first: the query fields' table,
# and the command and format references once tools/docs_reference.py is in the checkout.
docs: $(VENV)/.installed-dev
	$(BIN)/python tools/docs_fields.py
	@if [ -f tools/docs_reference.py ]; then $(BIN)/python tools/docs_reference.py; \
	else echo "docs: tools/docs_reference.py is not in this checkout; the reference pages are stand-ins" >&2; fi
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

fuzz: $(VENV)/.installed-dev
	CONVO_FUZZ=1 $(BIN)/python -m pytest tests -p no:cacheprovider

bench: $(VENV)/.installed-dev
	$(BIN)/python benchmarks/run.py --write BENCHMARKS.md

clean:
	rm -rf $(VENV) build dist site .pytest_cache .ruff_cache .hypothesis src/*.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
