"""Rules of multi mode (accounts, passwords, grants, lockout): pure values and functions."""
