"""The compiled game model: board geometry, pieces, move rules and steps."""
