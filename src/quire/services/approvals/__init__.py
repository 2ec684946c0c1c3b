"""Agent approvals: the queue of permission requests and questions agents' hooks send, the
person's decisions, and the notices of agents stuck or stopped."""
