# The two commands a newcomer needs: `make run` and `make test`.
.PHONY: run test check bench venv clean

venv:
	@scripts/bootstrap

run: venv
	@.venv/bin/quire serve examples/

test:
	@scripts/test

check:
	@scripts/check

bench:
	@scripts/bench

clean:
	rm -rf .venv .pytest_cache .mypy_cache .ruff_cache .hypothesis
