"""`rulesdsl serve`: a local web playground, the rule file in an editor beside the game it describes."""
