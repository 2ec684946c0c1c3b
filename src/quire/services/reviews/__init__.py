"""The human review loop: requests, verdicts, deadlines and the waits on them."""
