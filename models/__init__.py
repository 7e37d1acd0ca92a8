"""luza.models."""
