# nicgen: the two commands a newcomer runs are `make demo` and `make test`.
# Each bootstraps what is missing (Debian packages, npm packages) through scripts/setup.

NICGEN := ./bin/nicgen

.PHONY: all setup demo test typecheck rtl-check lint unit bench gen clean

all: test

# Cheap when everything is installed (a dpkg query and a timestamp check).
setup:
	scripts/setup

# The main job (until the NIC exists): generate all RTL, lint it, show the module table.
demo: setup
	$(NICGEN) gen
	$(NICGEN) lint
	$(NICGEN) modules

# Everything CI runs. The last line is the test runner's pass/fail count.
test: setup
	npx tsc -p tsconfig.json
	$(NICGEN) gen --check
	$(NICGEN) lint
	node --import tsx scripts/run-tests.ts

typecheck: setup
	npx tsc -p tsconfig.json

gen: setup
	$(NICGEN) gen

lint: setup
	$(NICGEN) lint

unit: setup
	node --import tsx scripts/run-tests.ts

bench: setup
	node --import tsx scripts/bench.ts

clean:
	rm -rf .cache
