"""Domain values and rules shared by every layer. No I/O, standard library only."""
