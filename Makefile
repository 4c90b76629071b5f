# nicgen: the two commands a newcomer runs are `make demo` and `make test`.
# Each bootstraps what is missing (Debian packages, npm packages) through scripts/setup.

NICGEN := ./bin/nicgen

.PHONY: all setup demo test typecheck rtl-check lint unit bench regress gen clean

all: test

# Cheap when everything is installed (a dpkg query and a timestamp check).
setup:
	scripts/setup

# The main job: generate all RTL, run the default scenario (two NICs, several QPs, random
# RDMA WRITEs and READs both ways) with summary tables and a capture in out/demo.pcap, show the module table.
demo: setup
	$(NICGEN) gen
	mkdir -p out
	$(NICGEN) sim nic_pair --test demo --pcap out/demo.pcap
	$(NICGEN) modules

# Everything CI runs. The last line is the test runner's pass/fail count.
# Randomized tests use seed 1 here so a CI run is reproducible; `make regress` explores many
# seeds. NICGEN_SEED=<n> make test picks another seed, NICGEN_SEED= make test a random one.
test: setup
	node --import tsx scripts/typecheck.ts
	$(NICGEN) gen --check
	$(NICGEN) lint
	NICGEN_SEED=$${NICGEN_SEED-1} node --import tsx scripts/run-tests.ts

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

# Many seeds of every bench in parallel, with a pass/fail table and out/regress/*/junit.xml
# (not part of `make test`). Example: make regress REGRESS_ARGS='--seeds 100 --jobs 2'
regress: setup
	node --import tsx scripts/regress.ts $(REGRESS_ARGS)

clean:
	rm -rf .cache
