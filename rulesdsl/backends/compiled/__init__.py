"""The compiled backend: a game's whole step printed from its IR as Python for numba, over the state as arrays."""
