"""Backends that run a game's rules other than by the Python interpreter (engine/): each reads the rules' IR."""
