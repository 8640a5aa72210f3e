# The two commands (see README):
#   make run    set everything up on a fresh machine and run Marginalia (embedded default)
#   make test   set everything up and run the whole test suite (what CI runs)

SHELL := /bin/bash
export PATH := $(HOME)/.local/bin:$(PATH)
UV ?= uv
NPM ?= npm
WEB := frontend
# The web app is rebuilt when any of its sources is newer than the build.
WEB_SOURCES := $(shell find $(WEB)/src $(WEB)/public -type f 2>/dev/null) \
	$(WEB)/index.html $(WEB)/package.json $(WEB)/package-lock.json $(WEB)/vite.config.ts $(WEB)/tsconfig.json

.PHONY: run test fuzz setup lint services check train-reranker web web-setup web-check web-api web-api-check web-unit web-e2e web-bench

setup:
	@command -v $(UV) >/dev/null 2>&1 || python3 -m pip install --quiet --user uv || python3 -m pip install --quiet uv
	$(UV) sync --frozen

run: setup web
	$(UV) run --frozen marginalia serve

services:
	@scripts/ensure-redis.sh

lint: setup
	$(UV) run --frozen ruff check backend tests workers eval migrations scripts
	$(UV) run --frozen mypy

test: setup services lint web-check
	$(UV) run --frozen pytest -q
	$(MAKE) fuzz
	$(MAKE) web-e2e

# schemathesis, every check on, against a live `marginalia serve` with seeded data, in
# both auth modes (scripts/fuzz_api.py; about 2 minutes each). Fails on any 5xx or
# check failure.
fuzz: setup
	$(UV) run --frozen python scripts/fuzz_api.py --mode local
	$(UV) run --frozen python scripts/fuzz_api.py --mode accounts

# The cross-encoder trained here, rebuilt from scratch on the CPU into eval/reranker/model
# (eval/reranker/train.sh: data, training in its own venv, ONNX int8 export, model card;
# about an hour on a busy machine). Not shipped: it measured no better (docs/EVAL.md).
train-reranker: setup
	eval/reranker/train.sh

# ------------------------------------------------------------------ web app (frontend/)

# Node packages exactly as locked; re-run when the lock changes.
$(WEB)/node_modules/.package-lock.json: $(WEB)/package-lock.json
	@command -v $(NPM) >/dev/null 2>&1 || { echo "the web app needs Node 20.19+ and npm (apt-get install nodejs npm)"; exit 1; }
	cd $(WEB) && $(NPM) ci --no-audit --no-fund
	@touch $@

web-setup: $(WEB)/node_modules/.package-lock.json

$(WEB)/dist/index.html: $(WEB)/node_modules/.package-lock.json $(WEB_SOURCES)
	cd $(WEB) && $(NPM) run build
	@touch $@

# frontend/dist, built when missing or older than any source.
web: $(WEB)/dist/index.html

# The typed client regenerated from the backend's OpenAPI schema.
web-api: setup web-setup
	cd $(WEB) && UV=$(UV) node scripts/gen-api.mjs

# Fails when the committed client differs from what the schema generates.
web-api-check: setup web-setup
	cd $(WEB) && UV=$(UV) node scripts/gen-api.mjs --check

web-unit: web-setup
	cd $(WEB) && $(NPM) run typecheck && $(NPM) test

web-check: web-api-check web-unit web

# Playwright against a real `marginalia serve` (throwaway home, Debian chromium).
web-e2e: setup web
	cd $(WEB) && scripts/e2e.sh

# Screenshots (docs/screenshots) and the timings in docs/BENCHMARKS.md.
web-bench: setup web
	cd $(WEB) && E2E_EXTRAS=1 scripts/e2e.sh e2e/extras.spec.ts
