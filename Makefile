# Quick start: `make run` (set-up if needed, build, then `runanywhere serve`: the web app and the API
# at http://127.0.0.1:8080/) and `make test`
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
	.build/release/runanywhere serve $(ARGS)

# The tests' set-up also builds llama.cpp's Vulkan variant and installs Mesa's lavapipe, to run
# the Vulkan path on a machine without a GPU (scripts/setup: install_lavapipe_for_tests).
test: export RUNANYWHERE_TEST_VULKAN := 1
test: setup
	$(SWIFT) test --no-parallel

bench: build
	benchmarks/llm-overhead

clean:
	rm -rf .build
