# The two commands of the quick start: `make run` and `make test`.
SWIFT ?= swift
VAULT_RELEASE := .build/release/vault

.PHONY: deps build run test lint budget dist benchmarks crash-test runner-benchmark runner-benchmark-pg failover-test fuzz load contract clients clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build

## Start the server on the embedded defaults: key created on first use, database migrated,
## a development merchant created on first start (its API key printed once), 127.0.0.1:8080.
run: deps
	$(SWIFT) build -c release --product vault
	$(VAULT_RELEASE) keys init
	$(VAULT_RELEASE) serve --dev-merchant development

## The whole test suite (what .ci/run calls), PostgreSQL tests on a throwaway cluster
## (scripts/test.sh; VAULT_TEST_POSTGRES=off runs the rest without PostgreSQL).
test: deps
	SWIFT="$(SWIFT)" scripts/test.sh

## The installable tarball dist/vault-VERSION-linux-ARCH.tar.gz (scripts/dist.sh): `vault` with the
## Swift runtime linked in, stripped, with config/vault.yaml, the systemd units in packaging/, a
## sample environment file and INSTALL.md. A release build (10+ minutes on 2 cores);
## CONFIGURATION=debug packs the debug build, as `make test` does before scripts/install-test.sh.
CONFIGURATION ?= release
dist: deps
	SWIFT="$(SWIFT)" CONFIGURATION="$(CONFIGURATION)" scripts/dist.sh

## swift format's rules enabled in .swift-format (also the first step of `make test`).
lint:
	SWIFT="$(SWIFT)" scripts/lint.sh

## The instruction-budget guard alone (also run by `make test`): instructions per registration,
## retrieval, charged step and HTTP registration in the debug build, counted by callgrind, against
## Benchmarks/instruction-budgets.json (more than 10 % over fails). About 3 minutes on 2 cores.
budget: deps
	$(SWIFT) build --product instruction-budget
	SWIFT="$(SWIFT)" scripts/instruction-budget.sh

## Benchmarks (ordo-one/benchmark): the entry points in Benchmarks/, a separate package; their
## workloads (BenchmarkScenarios) are built and run once by `make test`.
benchmarks: deps
	cd Benchmarks && $(SWIFT) package --allow-writing-to-package-directory benchmark

## Kill `vault charge run` with SIGKILL at random moments on >= 10,000 due steps against a fake
## gateway on loopback, re-run until done, check every step was charged exactly once; then two
## runners at once on one database.
crash-test: deps
	scripts/crash-test.sh

## Charge-run numbers: 100,000 due steps against the sandbox; a 50 ms loopback gateway at
## concurrency 64 and 256; peak memory for 10,000 vs 1,000,000 due steps.
runner-benchmark: deps
	scripts/runner-benchmark.sh

## Charge-run numbers on PostgreSQL: the runner on 100,000 due steps with one and with two runner
## processes beside the SQLite figure.
runner-benchmark-pg: deps
	scripts/runner-benchmark-pg.sh

## PostgreSQL failover: a primary and a synchronous standby on loopback, two `vault serve` under
## registration and charge load, the primary SIGKILLed and the standby promoted; checks no
## acknowledged write is lost and no step is charged twice.
failover-test: deps
	scripts/failover-test.sh

## libFuzzer with ASan on the track, EMV and JSON-request parsers: 60 s per target (FUZZ_SECONDS);
## about 3.5 min after a first sanitizer build of about 15 min.
fuzz: deps
	scripts/fuzz.sh

## wrk load test against `vault serve` (registrations, retrievals, schedules, mixed; /healthz ceiling).
load: deps
	scripts/load-test.sh

## schemathesis (--checks all) against a live server and the served OpenAPI document.
contract: deps
	scripts/contract-test.sh

## A client generated from the served /openapi.json (openapi-python-client) runs the quick-start
## flow against a live server; a client from a wrong document must fail it.
clients: deps
	scripts/clients-test.sh

clean:
	rm -rf .build Benchmarks/.build
