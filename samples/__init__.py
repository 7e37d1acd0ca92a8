"""luza.samples."""
