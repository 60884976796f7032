# The two commands of the README: `make run` and `make test`. Both start from nothing.
.PHONY: run test bench-ingest install stack

run:
	scripts/run.sh

test:
	scripts/test.sh

install:
	scripts/install.sh

stack: install
	.venv/bin/kenning stack up
