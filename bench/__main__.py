"""Run every benchmark suite and print its table."""

from __future__ import annotations


def main() -> None:
    print("No benchmarks yet.")


if __name__ == "__main__":
    main()
