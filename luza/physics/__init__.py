"""2-D event-based billiards physics (the generator uses it; the tracker's motion model too)."""
