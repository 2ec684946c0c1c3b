"""The safe file layer: path rules and the only way Quire reads or writes a user's file."""
