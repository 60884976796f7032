# The two commands of the README: `make run` and `make test`. Both start from nothing.
.PHONY: run test docs bench install stack

run:
	scripts/run.sh

test:
	scripts/test.sh

# The documentation site (mkdocs.yml, docs/), built offline and strictly into site/: a broken
# link or anchor, a page missing from the navigation or a stale generated page fails it.
# `kenning serve` serves the result at /docs. Run as `python -m mkdocs` from here, so the build
# hooks import docs.hooks; NO_MKDOCS_2_WARNING silences a notice printed on every build.
docs: install
	NO_MKDOCS_2_WARNING=1 .venv/bin/python -m mkdocs build --strict --quiet

# Every benchmark, then one table of ratios: make bench [BENCH_ARGS="--quick --only read,queue"]
bench:
	.venv/bin/python -m bench.all $(BENCH_ARGS)

install:
	scripts/install.sh

stack: install
	.venv/bin/kenning stack up
