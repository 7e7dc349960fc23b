# Quick start: `make run` (set-up if needed, build, interactive chat) and `make test`
# (set-up if needed, then every test). Engines and models live under $RUNANYWHERE_HOME.
SHELL := /bin/bash
SWIFT ?= swift
export RUNANYWHERE_HOME ?= $(HOME)/.cache/runanywhere

.PHONY: run test setup build bench clean

setup:
	@scripts/setup

build: setup
	$(SWIFT) build -c release --product runanywhere

run: build
	.build/release/runanywhere chat $(ARGS)

test: setup
	$(SWIFT) test --no-parallel

bench: build
	benchmarks/llm-overhead

clean:
	rm -rf .build
