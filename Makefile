# Quick start: `make run` (set-up if needed, build, then `runanywhere serve`: the web app and the API
# at http://127.0.0.1:8080/) and `make test` (set-up if needed, then every test). Engines and models
# live under $RUNANYWHERE_HOME; scripts/setup says what each part installs.
SHELL := /bin/bash
SWIFT ?= swift
export SWIFT
export RUNANYWHERE_HOME ?= $(HOME)/.cache/runanywhere

# The tests, the servers and browsers they start write their temporary files into one folder of
# the run, removed when it ends (passed, failed or interrupted); open to every user as /tmp is (the
# tests' PostgreSQL runs as the postgres user).
IN_SCRATCH = scratch=$$(mktemp -d /tmp/rat.XXXXXX) && trap 'rm -rf "$$scratch"' EXIT && chmod 1777 $$scratch && TMPDIR=$$scratch

.PHONY: run test test-unit setup setup-tests build bench clean api format

# What running needs: the engines and the default models (also what an app that depends on the
# package runs `scripts/setup` for; building the package needs neither).
setup:
	@scripts/setup

# What the tests add: their Python packages, browser, database server, fixtures, the Vulkan build.
setup-tests: export RUNANYWHERE_TEST_VULKAN := 1
setup-tests:
	@scripts/setup --tests

# The release CLI, built once; Whisper tiny.en is converted with it.
build:
	@scripts/setup --build release

run: build
	.build/release/runanywhere serve $(ARGS)

# Every test: the tests' set-up (with llama.cpp's Vulkan variant on Mesa's CPU driver, so the
# Vulkan path runs on a machine without a GPU), one debug build (the example app in examples/QuickStart
# among it, with only the public API), then the tests, in parallel where
# they can be (the suites that run models, processes, a browser or timings are serialized).
# First the Swift sources must be formatted (scripts/format, in seconds); before the tests, the
# public API must be the one api/ records and its documentation (DocC) must build without a
# warning (scripts/api-surface).
test: export RUNANYWHERE_TEST_VULKAN := 1
test:
	scripts/format --check
	@scripts/setup --tests --build tests
	scripts/api-surface --check
	$(IN_SCRATCH) $(SWIFT) test --skip-build $(TEST_ARGS)

# The unit tests alone, in parallel, in seconds once built: the tests that run models, the binary
# or a browser (those holding a lane: Tests/RunAnywhereTestSupport/TestLanes.swift) are skipped,
# so only the running set-up is needed (its engines and models, and the engines' headers the
# declaration check reads).
test-unit: export RUNANYWHERE_TEST_UNIT := 1
test-unit: setup
	$(IN_SCRATCH) $(SWIFT) test $(TEST_ARGS)

# Records a change to the public API in api/ (commit it with the change; `make test` checks it).
api:
	scripts/api-surface

# Formats the Swift sources as .swift-format says (`make test` checks it).
format:
	scripts/format

bench: build
	benchmarks/llm-overhead

clean:
	rm -rf .build
