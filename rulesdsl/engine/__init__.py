"""Running games: states, flow, chance and simultaneous nodes, notation and serialisation."""
