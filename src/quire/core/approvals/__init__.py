"""Agent approvals' pure rules: the hook input, the machine policy, the decision JSON, the input
hash that binds a decision to one tool call, and how a command is shown on a card."""
