# The two commands a newcomer needs: `make run` and `make test`.
.PHONY: run test check bench fuzz venv clean

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

# The fuzz suites' long profile (minutes); `make test` runs them short.
fuzz:
	@QUIRE_FUZZ_SCALE=$${QUIRE_FUZZ_SCALE:-25} scripts/test -s -q tests/web/test_fuzz_routes.py \
		tests/web/test_fuzz_sync.py tests/mcp/test_fuzz_stdio.py

clean:
	rm -rf .venv .pytest_cache .mypy_cache .ruff_cache .hypothesis
