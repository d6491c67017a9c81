"""The typed rules IR: one model of a game's rules that the backends, the checker and the editor read."""
