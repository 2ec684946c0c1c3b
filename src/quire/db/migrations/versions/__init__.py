"""One module per schema revision, oldest first; never edit one that has shipped."""
