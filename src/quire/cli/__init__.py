"""Click commands: the composition roots that wire settings, streams and services together."""
