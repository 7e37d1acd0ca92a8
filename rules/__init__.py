"""luza.rules."""
