"""Rule files as environments of reinforcement-learning libraries: OpenSpiel, PettingZoo, Gymnasium."""
