"""luza.calibration."""
