# The two commands a newcomer needs: `make run` and `make test`.
.PHONY: run test check bench venv clean

venv:
	@scripts/bootstrap

run: venv
	@.venv/bin/quire --help
	@echo
	@echo "Try: .venv/bin/quire meta examples/welcome.md"

test:
	@scripts/test

check:
	@scripts/check

bench:
	@scripts/bench

clean:
	rm -rf .venv .pytest_cache .mypy_cache .ruff_cache .hypothesis
