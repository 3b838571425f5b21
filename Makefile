# klens: `make demo` runs klens on a seeded local Kafka; `make test` runs every check.
# Build output lives outside the clone (CARGO_TARGET_DIR) so fresh clones reuse it.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
KLENS_CACHE ?= $(HOME)/.cache/klens
export KLENS_CACHE
export CARGO_TARGET_DIR ?= $(KLENS_CACHE)/target
export PATH := $(HOME)/.cargo/bin:$(KLENS_CACHE)/tools/node_modules/.bin:$(PATH)

.PHONY: tools site build demo-binary test-binary demo-ready demo demo-auth test lint unit fuzz integration integration-faults integration-3brokers e2e two-replicas chart mcp-conformance stack stack-down seed

tools:
	dev/install-tools

## The web assets: the front end compiled to WASM, then bound, shrunk, named after their hash
## and compressed by the workspace's bundle program. They live beside the build output, so
## fresh clones reuse them (and their minutes of wasm-opt); target/site links to them.
SITE := $(abspath $(CARGO_TARGET_DIR))/site
## The most the WASM may weigh with brotli, in bytes: a change past it fails the build, which
## is the time to see what grew (dev/wasm-sizes; docs/performance.md#web-assets). Raised from
## 600000 when the two Kafka Connect pages, their create/edit sheet and ten calls added 24 KB,
## and from 630000 when the connector's offsets and their reset sheet added 7.6 KB (3.3 KB of it
## won back by carrying the offsets in the connector's own answer); about 634 KB now, with the
## connector links on topic and group pages. The next pages (replication, processors, topology)
## want lazy routes rather than more budget. Raised from 664000 for the SQL processors pages
## (their list, a processor's page and the editor sheet: 25 KB), since lazy routes, measured
## at days of work, were not to hold up the pages; see docs/performance.md#web-assets. Raised
## from 691000 for the records' expression field (its fault under it) and the Copy / redrive
## sheet (dry run, targets, the job followed): 20 KB, most of it Leptos's code for the sheet.
WASM_BUDGET := 712000
site: tools
	cargo build -p frontend --lib --target wasm32-unknown-unknown --profile wasm-release \
	  --no-default-features --features hydrate
	cargo run -q -p bundle --profile tools -- \
	  --wasm "$(CARGO_TARGET_DIR)/wasm32-unknown-unknown/wasm-release/frontend.wasm" \
	  --css style/klens.css --out "$(SITE)" --max-wasm-brotli $(WASM_BUDGET)
	if [ "$(SITE)" != "$(CURDIR)/target/site" ]; then \
	  mkdir -p target; [ -L target/site ] || rm -rf target/site; ln -sfn "$(SITE)" target/site; \
	fi

## One self-contained release binary at target/release/klens, with the web assets inside.
build: site
	KLENS_EMBED_SITE="$(SITE)" cargo build --release -p klens --bin klens
	mkdir -p target/release
	cp "$(CARGO_TARGET_DIR)/release/klens" target/release/
	@echo "built target/release/klens"

## The binary `make demo` runs: the release build at opt-level 1 (Cargo.toml's `demo` profile),
## cheaper to compile and fast enough for a demo; target/demo/klens.
demo-binary: site
	KLENS_EMBED_SITE="$(SITE)" cargo build --profile demo -p klens --bin klens
	mkdir -p target/demo
	cp "$(CARGO_TARGET_DIR)/demo/klens" target/demo/

stack:
	dev/stack up

stack-down:
	dev/stack down

seed: stack
	dev/seed

## The demo's binary and a seeded local stack, side by side: the stack mostly waits on downloads
## and on Java starting, the build on the processor. Prints how long each phase took
## (dev/demo-ready).
demo-ready:
	dev/demo-ready

## The demo: a seeded local Kafka, klens on http://127.0.0.1:8080 without sign-in.
demo: demo-ready
	dev/demo-config > target/demo-config.yaml
	@echo
	@echo "klens: http://127.0.0.1:8080   (config: target/demo-config.yaml, Ctrl-C to stop)"
	dev/demo-processor > target/demo-processor.log 2>&1 &
	target/demo/klens --config target/demo-config.yaml

## The same with sign-in through the local OIDC provider (users in README.md).
demo-auth: demo-ready
	dev/demo-config --auth > target/demo-auth-config.yaml
	@echo
	@echo "klens: http://127.0.0.1:8080   sign in as alice, bob, dave or carol (password <name>-pw)"
	target/demo/klens --config target/demo-auth-config.yaml

## Every check: format, lints (server and wasm), unit, integration against dev/stack, browser;
## at the end, a table of how long each phase took.
test:
	dev/test-phases tools lint unit integration integration-faults e2e two-replicas chart mcp-conformance integration-3brokers
	@echo "make test: all checks passed"

lint:
	cargo fmt --all --check
	cargo clippy -p app -p server -p klens --features app/ssr --all-targets -- -D warnings
	cargo clippy -p frontend --features hydrate --target wasm32-unknown-unknown -- -D warnings
	cargo clippy -p bundle --profile tools --all-targets -- -D warnings

unit:
	cargo test -p app --features ssr --lib
	cargo test -p server --lib
	cargo test -p klens --bins
	cargo test -p bundle --profile tools

## The fuzz tests (the decoders: group assignments, Avro, record values, the config reader; the
## decision over random scoped bindings and globs) with many more cases than `make unit` runs;
## KLENS_FUZZ_CASES sets how many.
fuzz:
	KLENS_FUZZ_CASES=$${KLENS_FUZZ_CASES:-2000000} cargo test -p server --release --lib fuzz_ -- --nocapture
	KLENS_FUZZ_CASES=$${KLENS_FUZZ_CASES:-2000000} cargo test -p app --features ssr --release --lib fuzz_ -- --nocapture

## Two tests at a time. They mostly wait on Kafka, Connect and Flink, and more threads are
## faster (measured on two cores: 221 s with two, 165 with four, 125 with six), but at six one
## CI run in four failed a test that reads the catalog right after creating a topic, and at
## eight a watermark read timed out: the broker under that load answers late.
integration: seed
	cargo test -p klens --test integration -- --test-threads=2

## klens while its services fail (broker down at start, restarted under a tail and an export,
## frozen; registry gone): these stop and start the dev stack's processes, so they run alone.
integration-faults: seed
	cargo test -p klens --test faults -- --test-threads=1

## The seed runs again here, not only as a prerequisite (which make runs once per call): the
## fault tests before this restart the broker, and the stack's own SCRAM users are written anew.
## The browser suite runs klens as built in the profile the unit tests already compiled (its
## dependencies are theirs; the web assets are built in as in the release binary), which spares
## make test a release build of the server (docs/performance.md#build-and-first-run).
e2e: test-binary stack
	dev/seed
	KLENS_BIN="$(CARGO_TARGET_DIR)/debug/klens" end2end/run

## Two replicas of klens behind HAProxy with cookie affinity, as the chart runs them: sign-in, a
## sample of the authorization matrix, a processor created from both at once, and a copy job
## whose replica is killed mid-way (dev/two_replicas.py).
two-replicas: test-binary stack
	dev/two-replicas "$(CARGO_TARGET_DIR)/debug/klens"

## The Helm chart: helm lint --strict, the default values' config.yaml through klens --check-config,
## and the session affinity of three replicas (helm is built from the Go module proxy once).
chart: test-binary
	dev/chart-check "$(CARGO_TARGET_DIR)/debug/klens"

## The official MCP conformance suite against klens's MCP listener, each scenario held to what
## klens means to do (dev/mcp-conformance/run says which apply); needs no Kafka.
mcp-conformance: test-binary
	dev/mcp-conformance/run "$(CARGO_TARGET_DIR)/debug/klens"

test-binary: site
	KLENS_EMBED_SITE="$(SITE)" cargo build -p klens --bin klens

## The catalog on three brokers (replicas, ISR, under-replicated partitions, controller): switches
## dev/stack to its three-broker layout for the test, then back to the one-node layout
## (KLENS_STACK_RESTORE=0 leaves it stopped: CI stops every service at the end anyway).
integration-3brokers:
	cargo test -p klens --test three_brokers --no-run
	dev/stack down
	dev/stack up --brokers 3
	status=0; cargo test -p klens --test three_brokers || status=$$?; \
	  dev/stack down; [ "$${KLENS_STACK_RESTORE:-1}" = 0 ] || dev/stack up; exit $$status
