# The two commands (see README):
#   make run    set everything up on a fresh machine and run Marginalia (embedded default)
#   make test   set everything up and run the whole test suite (what CI runs)

SHELL := /bin/bash
export PATH := $(HOME)/.local/bin:$(PATH)
UV ?= uv

.PHONY: run test setup lint services check

setup:
	@command -v $(UV) >/dev/null 2>&1 || python3 -m pip install --quiet --user uv || python3 -m pip install --quiet uv
	$(UV) sync --frozen

run: setup
	$(UV) run --frozen marginalia serve

services:
	@scripts/ensure-redis.sh

lint: setup
	$(UV) run --frozen ruff check backend tests workers eval migrations scripts
	$(UV) run --frozen mypy

test: setup services lint
	$(UV) run --frozen pytest -q
