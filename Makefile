# incast: build, demo, test and benchmark from a fresh checkout. GNU make + bash.
#
#   make demo    set up .venv, build the engine (release), run the D3 flow-burst demo into demo-out/
#   make test    set up the same way, then the static checks (make lint), cargo tests and pytest
#                (the Rust checks in the background, beside the build and pytest)
#   make check-rust  clippy and the cargo tests in one build (what `make test` runs for Rust)
#   make lint    clippy with warnings as errors, ruff and mypy --strict (configured in pyproject.toml),
#                and the layering check: no import circles between modules (tools/check_layers.py)
#   make bench   the speed and memory benchmarks of benches/
#   make bench-trace  memory of streamed traces of 10^5 and 10^6 flows, CSV and Parquet (benches/make_trace.py)
#   make bench-large  the Parsimon study (6,144 hosts): 20 ms windows on both fabrics, the 200 ms one,
#                on 1 and 2 threads, extrapolated to the study's 5 s (benches/make_parsimon.py; ~15 min
#                on 2 idle cores)
#   make pins    rerun the quick reproductions and pin their numbers (tests/reproduce_pins.json)
#   make crosscheck  install ns-3 (pip, ~200 MB) into .venv and compare incast with it (docs/crosscheck/)
#   make crosscheck-ndp  incast's NDP against htsim's committed outputs (docs/crosscheck/ndp/);
#                HTSIM=path/to/htsim_ndp runs htsim first (htsim is not part of this repository)
#   make crosscheck-homa  incast's Homa against its authors' simulation results (docs/crosscheck/homa/;
#                about 12 minutes on one core)
#   make docs    regenerate the results docs' tables and quoted numbers from the committed reports (docs/reproduce.md)
#   make clean   remove .venv, build outputs and demo output
#
# Setup is guarded by stamp files in .venv, so a second `make test` rebuilds only what changed.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:

PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
# maturin finds the virtualenv through VIRTUAL_ENV; PATH makes `incast` the venv's console script.
VENV_ENV := VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH

RUST_SOURCES := Cargo.toml Cargo.lock $(shell find crates -name '*.rs' -o -name Cargo.toml 2>/dev/null)

.PHONY: help setup demo test lint lint-rust lint-python check-rust test-rust test-python bench bench-trace bench-large pins crosscheck crosscheck-ndp crosscheck-homa docs clean

help:
	@echo "make demo   build (release) and run the D3 flow-burst demo into demo-out/"
	@echo "make test   static checks + cargo test + pytest"
	@echo "make lint   cargo clippy -D warnings, ruff check, mypy --strict, no import circles"
	@echo "make check-rust  clippy and the cargo tests in one build (make test's Rust half)"
	@echo "make bench  speed and memory benchmarks"
	@echo "make bench-trace  memory of streamed traces, CSV and Parquet (10^5 and 10^6 flows)"
	@echo "make bench-large  the Parsimon study's 20 ms and 200 ms windows on 1 and 2 threads, extrapolated to its 5 s"
	@echo "make pins  rerun the quick reproductions and pin their numbers (after an intended change)"
	@echo "make crosscheck  incast against ns-3 on the same flows (installs ns-3 into .venv)"
	@echo "make crosscheck-ndp  incast's NDP against htsim's (HTSIM=path runs htsim, else its committed outputs)"
	@echo "make crosscheck-homa  incast's Homa against the authors' OMNeT++ results (committed reference)"
	@echo "make docs   regenerate the results docs' tables from docs/reproductions/ (no simulation)"
	@echo "make clean  remove .venv, build outputs and demo output"

# The venv and the build tool.
$(VENV)/.tools:
	test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip 'maturin>=1.7,<2'
	touch $@

# The project's Python dependencies and its dev extra (pytest, ruff, mypy and stubs), as
# pyproject.toml lists them. pip byte-compiles every module it installs (10 of the install's 21
# CPU-seconds); `--no-compile` was tried and taken back: where PYTHONDONTWRITEBYTECODE is set (as
# on this project's CI machine), every process then compiles its imports again, about a second
# each (measured 2026-11-29).
$(VENV)/.deps: $(VENV)/.tools pyproject.toml
	$(VPY) tools/requirements.py --extra dev > $(VENV)/requirements.txt
	$(VPY) -m pip install --quiet -r $(VENV)/requirements.txt
	touch $@

# The engine built in release mode and installed into the venv with its dependencies; the Python
# sources stay editable, so only Rust changes trigger a rebuild. The dependencies download and
# install while the extension compiles (on a fresh machine each takes about a minute or two, and
# maturin alone would do them one after the other); the last `maturin develop` finds both done
# and only installs the package.
$(VENV)/.built: $(VENV)/.tools $(RUST_SOURCES) pyproject.toml
	$(MAKE) --no-print-directory $(VENV)/.deps & deps=$$!; \
	$(VENV_ENV) $(VENV)/bin/maturin develop --release --quiet --skip-install || { wait $$deps; exit 1; }; \
	wait $$deps
	$(VENV_ENV) $(VENV)/bin/maturin develop --release --quiet --extras dev
	$(VPY) -c 'import incast._core'
	touch $@

setup: $(VENV)/.built

demo: setup
	$(VENV_ENV) incast demo --out demo-out
	@echo "incast is installed in .venv: 'source .venv/bin/activate' puts it on your PATH (or run .venv/bin/incast)"

# `make test` runs two streams at once, as a 2-core machine has idle time in each alone (the
# extension's release link is one process; most Rust test binaries run one test at a time):
# in the background, the Rust checks (`check-rust`: clippy and the cargo tests, one build) in a
# target directory of their own (target/rust-checks, so they never wait for the release build's
# lock), their output kept in target/test-rust.log; in the foreground, the extension's build,
# the Python checks and pytest. The Rust stream's results are printed when both are done (its
# whole log if it failed), and `make test` fails if either did.
RUST_CHECKS_LOG := target/test-rust.log

test:
	@mkdir -p target
	@start=$$SECONDS; \
	( s=$$SECONDS; st=0; CARGO_TARGET_DIR=$(abspath target/rust-checks) $(MAKE) --no-print-directory check-rust || st=$$?; \
	  echo "rust checks: $$((SECONDS - s)) s"; exit $$st ) > $(RUST_CHECKS_LOG) 2>&1 & rust=$$!; \
	echo "make test: the Rust checks run in the background (clippy, cargo test; output in $(RUST_CHECKS_LOG))"; \
	python=0; $(MAKE) --no-print-directory lint-python test-python || python=$$?; \
	echo "make test: waiting for the Rust checks"; \
	if wait $$rust; then \
		awk '/^test result/ { passed += $$4 } /^rust checks:/ { t = $$3 } \
			END { printf "make test: the Rust checks passed: clippy, %d cargo tests, %d s\n", passed, t }' $(RUST_CHECKS_LOG); \
		rust_status=0; \
	else \
		cat $(RUST_CHECKS_LOG); echo "make test: the Rust checks FAILED (above; also in $(RUST_CHECKS_LOG))"; rust_status=1; \
	fi; \
	echo "make test: $$((SECONDS - start)) s in all"; \
	[ $$python -eq 0 ] && [ $$rust_status -eq 0 ]

# The Rust release whose clippy lints `make lint` enforces as errors. Each release adds lints, so on
# another toolchain clippy's findings are printed but do not fail the build: a newer compiler on a
# fresh machine cannot break `make test` when nothing of ours changed. To bump: set the version,
# run `make lint`, fix what clippy finds, and commit both.
CLIPPY_TOOLCHAIN := 1.95

# For the recipes that run clippy: a shell test of whether rustc is that release, and what they
# say when it is not.
CLIPPY_ENFORCED := rustc --version | grep -q "^rustc $(CLIPPY_TOOLCHAIN)\."
CLIPPY_NOT_ENFORCED := echo "rustc is not $(CLIPPY_TOOLCHAIN).x: clippy's findings are shown, not enforced (Makefile, CLIPPY_TOOLCHAIN)"

# Static checks. clippy covers every crate, incast-py included (it only type-checks, so PyO3's
# extension module needs no linking); ruff and mypy come with the dev extra and read their
# settings from pyproject.toml (mypy: the stubs of pyarrow and tqdm). Last, tools/check_layers.py
# fails on import circles between the modules of a crate or of the Python package (its docstring
# has the rules; `--list` prints every edge).
lint: lint-rust lint-python

lint-rust:
	@if $(CLIPPY_ENFORCED); then \
		echo "cargo clippy --workspace --all-targets -- -D warnings"; \
		cargo clippy --workspace --all-targets -- -D warnings; \
	else \
		$(CLIPPY_NOT_ENFORCED); \
		cargo clippy --workspace --all-targets; \
	fi

# `make test`'s Rust checks in one build: clippy-driver as the workspace's compiler wrapper (as
# `cargo clippy` runs it, there for a check-only build, with its arguments in CLIPPY_ARGS joined by
# `__CLIPPY_HACKERY__`) lints every target of every workspace crate while `cargo test` compiles it,
# incast-py's (a test harness with no tests) and the benches' included, so the crates are parsed
# and type-checked once, not once for clippy and again for the tests: 55 + 118 + 59 -> 140 + 52
# CPU-seconds for clippy, the test build and the run from scratch (docs/notes/test-time.md). The
# run sets the same wrapper, so it finds the build fresh. Built in target/rust-checks (unless
# CARGO_TARGET_DIR says otherwise), so that a plain `cargo test`, whose builds have no wrapper,
# keeps its own.
check-rust:
	@driver=$$(command -v clippy-driver || true); \
	if [ -z "$$driver" ]; then echo "clippy-driver is not on PATH: 'rustup component add clippy' installs it"; exit 1; fi; \
	if $(CLIPPY_ENFORCED); then \
		echo "clippy (warnings as errors) as the compiler wrapper of cargo test --workspace --all-targets"; \
		export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"; \
	else \
		$(CLIPPY_NOT_ENFORCED); \
		export CLIPPY_ARGS=""; \
	fi; \
	export RUSTC_WORKSPACE_WRAPPER="$$driver"; \
	export CARGO_TARGET_DIR="$${CARGO_TARGET_DIR:-$(abspath target/rust-checks)}"; \
	time cargo test --workspace --all-targets --no-run; \
	time cargo test --workspace

lint-python: setup
	$(VENV)/bin/ruff check python tests tools
	$(VENV)/bin/mypy --strict python/incast tools/check_layers.py
	$(VPY) tools/check_layers.py

# Each phase says how long it took (bash's `time`). pytest runs on every core (pytest-xdist,
# PYTEST_WORKERS=0 to run them in one process), a test file per worker so that a file's module fixtures (the
# quick run of every reproduction) are computed once; --durations names the slowest tests.
PYTEST_WORKERS ?= auto

test-rust:
	time cargo test --workspace --exclude incast-py

test-python: setup
	time $(VENV_ENV) $(VPY) -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile --durations=5 tests

bench: setup
	$(VENV_ENV) incast bench

# Memory against trace length (issue 41): CSV traces of 100 000 and 1 000 000 flows generated into
# benches/generated/ (ignored by git, ~25 MB), replayed; the peak RSS should barely grow.
bench-trace: setup
	for n in 100000 1000000; do $(VPY) benches/make_trace.py --flows $$n --parquet; done
	$(VENV_ENV) incast bench --dir benches/generated --only star_trace_100000 --only star_trace_1000000 \
		--only star_trace_1000000_parquet

# The field's large study as a benchmark (issue 41): Parsimon's 6,144-host Facebook fabric (and its
# 2:1 variant) with the study's workload, generated into benches/generated/ (~35 MB, ignored by
# git), one run each on each of LARGE_THREADS threads ([run] threads; the speed-up column compares
# with 1) (LARGE_WINDOWS="20ms" skips the 200 ms window, ~10 of the ~15 minutes), extrapolated to
# the study's 5 simulated seconds. docs/notes/parallel-runs.md has the figures.
LARGE_WINDOWS ?= 20ms,200ms
LARGE_THREADS ?= 1,2
bench-large: setup
	$(VPY) benches/make_parsimon.py --windows $(LARGE_WINDOWS)
	$(VENV_ENV) incast bench --dir benches/generated --repeat 1 --extrapolate-to 5s --threads $(LARGE_THREADS) \
		$$(for w in $$(echo $(LARGE_WINDOWS) | tr , ' '); do printf -- '--only parsimon_%s ' $$w; \
		   [ $$w = 20ms ] && printf -- '--only parsimon_2to1_20ms '; done) \
		--json benches/generated/bench-large.json

# The numbers tests/test_reproduce.py holds the quick reproductions to, each with the 95% interval
# of its seeds as tolerance (python/incast/reproduce/pins.py). Rerun after a change that moves
# results on purpose, and say in the commit why they moved.
pins: setup
	rm -rf .pins-run
	$(VENV_ENV) incast reproduce all --quick --out .pins-run --quiet --jobs 2
	$(VPY) -m incast.reproduce.pins write .pins-run tests/reproduce_pins.json
	rm -rf .pins-run

# ns-3's Python bindings are an optional extra: the test suite never needs them.
$(VENV)/.crosscheck: $(VENV)/.built
	$(VPY) -m pip install --quiet 'ns3>=3.44,<3.45'
	touch $@

crosscheck: $(VENV)/.crosscheck
	$(VENV_ENV) incast crosscheck --out docs/crosscheck

crosscheck-ndp: setup
	$(VENV_ENV) $(VPY) -m incast.crosscheck.htsim_ndp --out docs/crosscheck/ndp $(if $(HTSIM),--htsim $(HTSIM))

# The reference is committed (docs/crosscheck/homa/original-raw-data-from-paper.homa.txt);
# tests/test_crosscheck_homa.py checks the committed report against it without running.
crosscheck-homa: setup
	$(VENV_ENV) $(VPY) -m incast.crosscheck.homa --out docs/crosscheck/homa

# The generated blocks of the README, docs/results-*.md and docs/reproductions/README.md, from the
# committed reports (pyarrow and json only: no simulation); `--check` is in the tests.
docs: setup
	$(VENV_ENV) $(VPY) -m incast.reproduce.docs

clean:
	rm -rf $(VENV) demo-out target python/incast/_core*.so .pytest_cache .mypy_cache .ruff_cache
	find python tests benches -name __pycache__ -type d -prune -exec rm -rf {} +
