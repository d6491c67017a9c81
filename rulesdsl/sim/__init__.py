"""Running games: one game with agents, logs and replays, and many games with statistics."""
