"""Evidence review: statements, verdicts and the figures computed from them."""
