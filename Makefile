# The two commands of the README: `make run` and `make test`. Both start from nothing.
.PHONY: run test bench install stack

run:
	scripts/run.sh

test:
	scripts/test.sh

# Every benchmark, then one table of ratios: make bench [BENCH_ARGS="--quick --only read,queue"]
bench:
	.venv/bin/python -m bench.all $(BENCH_ARGS)

install:
	scripts/install.sh

stack: install
	.venv/bin/kenning stack up
