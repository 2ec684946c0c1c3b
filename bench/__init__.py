"""Benchmarks run by ``make bench``: each prints ratios against a baseline from the same run."""
