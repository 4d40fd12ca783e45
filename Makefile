# Tonearm — `make test` and `make run` install what they need on Debian/Ubuntu.
SHELL := /bin/bash
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
SWIFT ?= swift

# Build libraries, plus the tools the tests and benchmarks drive (fixtures, the real ALSA path).
APT_PACKAGES := pkg-config libasound2-dev libmpg123-dev libsndfile1-dev libsoxr-dev \
	libsoundtouch-dev libjansson-dev libmicrohttpd-dev libssl-dev \
	sox libsox-fmt-mp3 lame mpg123 ffmpeg pulseaudio pulseaudio-utils libasound2-plugins alsa-utils \
	curl python3-pip

.PHONY: deps build test test-debug test-api test-browser test-release run bench clean

deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing: $$missing"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	$(SWIFT) build

## Every test: the Swift suites (engine, decoders, outputs, HTTP, end-to-end API), the
## OpenAPI document under schemathesis, the control page in headless Chromium, and the
## real-time allocation check in a release build.
test: deps test-debug test-api test-browser test-release

test-debug:
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

test-api:
	$(SWIFT) build --product tonearm
	Tests/API/run-schemathesis.sh

test-browser:
	$(SWIFT) build --product tonearm
	TONEARM_BIN=$(CURDIR)/.build/debug/tonearm Tests/Browser/run.sh

test-release:
	$(SWIFT) test -c release --filter RealtimeAllocationTests

## The server on http://127.0.0.1:8080/ with --output auto and ./media (generated if missing).
run: deps
	@[ -d media ] || scripts/make-sample-media.sh media
	$(SWIFT) build -c release --product tonearm
	.build/release/tonearm serve --output auto --media-root ./media $(ARGS)

## The benchmarks (tonearm-bench) with their peers and drivers: wrk against the release
## server and a bare libmicrohttpd server (compiled with cc), soundstretch for the time-stretch.
BENCH_PACKAGES := wrk soundstretch gcc

.PHONY: bench-deps

bench-deps: deps
	@missing=$$(for p in $(BENCH_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing: $$missing"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

## The bench starts the release `tonearm` found next to itself, so both are built.
bench: bench-deps
	$(SWIFT) build -c release --product tonearm
	$(SWIFT) build -c release --product tonearm-bench
	.build/release/tonearm-bench $(ARGS)

clean:
	rm -rf .build build
