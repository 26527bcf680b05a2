# The two commands of the quick start: `make run` and `make test`.
SWIFT ?= swift
VAULT_RELEASE := .build/release/vault

.PHONY: deps build run test benchmarks clean

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

## The whole test suite (what .ci/run calls).
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## Benchmarks (ordo-one/benchmark); a separate package CI does not build.
benchmarks: deps
	cd Benchmarks && $(SWIFT) package --allow-writing-to-package-directory benchmark

clean:
	rm -rf .build Benchmarks/.build
