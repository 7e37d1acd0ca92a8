"""luza.vision."""
