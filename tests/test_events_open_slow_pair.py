"""Two moving balls meeting slowly (vision/events.py ``_pair_reversals``): their gap
falls and rises by 1-2 mm a frame, inside the tracker's noise over three samples, so
the gap's lines over three samples a side show no vertex; over six they do, as for a
slow ball's cushion touch.  Dev fp-rally/1936 at 60 fps: 14 into 15 closing at
~120 mm/s, parting at ~40 (the striker's follow keeps it close); fb-rally/1706: R1
into the kaisa.  Neither path bends enough for a break, and the contact was missed."""

from __future__ import annotations

import numpy as np
import pytest
from events_helpers import bent_at_contact

from luza.calibration.profiles import load_profile
from luza.vision.events import EventExtractor, extract_events

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm


def _slow_meeting(fps: float, seed: int, closing_mm_s: float, parting_mm_s: float):
    """5 rolls off at t = 0.3 s, 9 at t = 0.4 s, both along +x at ~250 mm/s, 5 gaining
    on 9 along their line of centres (at 40 degrees to +x) at ``closing_mm_s``; they
    touch at t = 1.5 s at (1500, 900) and part along it at ``parting_mm_s`` (equal
    masses: each ball's velocity along the line changes by half the turn)."""
    t_c = 1.5 + 0.37 / fps
    n = np.array([np.cos(np.radians(40.0)), np.sin(np.radians(40.0))])
    mid = np.array([1500.0, 900.0])
    v9 = np.array([250.0, 0.0])
    v5 = v9 + closing_mm_s * n
    half = 0.5 * (closing_mm_s + parting_mm_s) * n
    paths = {"5": (0.3, mid - R * n, v5, v5 - half), "9": (0.4, mid + R * n, v9, v9 + half)}
    frames = bent_at_contact(paths, t_c, fps, seed, 1.2)
    return frames, t_c


def _found_in_time(frames, t_c: float, fps: float) -> bool:
    ev = extract_events(frames, PROFILE, "free-pyramid")
    cols = [e for e in ev if e.type == "collision"]
    pairs = [frozenset((e["a"], e["b"])) for e in cols]
    return pairs == [frozenset(("5", "9"))] and abs(cols[0].t - t_c) <= 2.0 / fps


@pytest.mark.parametrize("closing,parting", [(70.0, 30.0), (60.0, 40.0)])
def test_slow_meetings_of_two_moving_balls_are_found_in_time(closing, parting):
    # over three samples a side the gap's lines found 14 and 12 of these 20 draws
    found = sum(_found_in_time(*_slow_meeting(60.0, s, closing, parting), 60.0) for s in range(20))
    assert found >= 16


@pytest.mark.parametrize("seed", range(4))
def test_a_meeting_like_the_dev_scene_is_timed_within_two_frames(seed):
    assert _found_in_time(*_slow_meeting(60.0, seed, 120.0, 40.0), 60.0)


def _slow_pass(fps: float, seed: int, clear_mm: float, across_mm_s: float):
    """9 rolls along +x at 250 mm/s, 5 alongside it (both from t = 0.3 s, as in a
    lag) gaining on it at ``across_mm_s`` square to their line of centres at t = 1.5 s,
    when they are two radii + ``clear_mm`` apart: it passes by, both ways unbent."""
    t_c = 1.5
    n = np.array([np.cos(np.radians(40.0)), np.sin(np.radians(40.0))])
    c9 = np.array([1500.0, 900.0])
    v9 = np.array([250.0, 0.0])
    v5 = v9 + across_mm_s * np.array([-n[1], n[0]])
    paths = {"5": (0.3, c9 - (2 * R + clear_mm) * n, v5, v5), "9": (0.3, c9, v9, v9)}
    return bent_at_contact(paths, t_c, fps, seed, 1.2)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("across_mm_s", [100.0, 200.0, 300.0])
def test_two_balls_rolling_by_each_other_12_mm_apart_did_not_meet(across_mm_s, seed):
    ev = extract_events(_slow_pass(60.0, seed, 12.0, across_mm_s), PROFILE, "free-pyramid")
    assert [e for e in ev if e.type == "collision"] == []


@pytest.mark.xfail(
    strict=True,
    reason="known limit: over three samples a side the relative velocity along the "
    "centres is noisy by some +-70 mm/s at 60 fps (1.2 mm per ball), and two balls "
    "rolling by each other 3 mm apart read as a touch in about half the draws "
    "(vision/EVENTS.md, twenty-ninth round)",
)
def test_two_balls_rolling_by_each_other_3_mm_apart_did_not_meet():
    frames = [_slow_pass(60.0, seed, 3.0, 100.0) for seed in range(20)]
    read = [extract_events(f, PROFILE, "free-pyramid") for f in frames]
    assert sum(any(e.type == "collision" for e in ev) for ev in read) <= 1


def _turn(v_in: float, v_out: float, n_side: int):
    """A pair's relative position along +x (their line of centres) closing at ``v_in``
    and parting at ``v_out`` (mm/s) around a vertex at t = 0, noise-free, with
    ``n_side`` samples a side at 60 fps: (ts, rel, hit, nrm) for ``_pair_turned``."""
    ts = (np.arange(2 * n_side) - n_side + 0.5) / 60.0
    x = 2 * R + np.where(ts < 0, v_in * ts, v_out * ts)
    rel = np.stack([x, np.zeros_like(x)], 1)
    hit = (0.0, 0.0, list(range(n_side)), list(range(n_side, 2 * n_side)))
    return ts, rel, hit, np.array([1.0, 0.0])


def test_a_hit_whose_balls_went_on_nearly_together_turned():
    # dev fp-rally/1953 at 60 fps: closing at 390 mm/s, parting at 18
    assert EventExtractor._pair_turned(*_turn(-390.0, 18.0, 3), side=3)
    assert EventExtractor._pair_turned(*_turn(-390.0, 30.0, 3), side=3)
    # parting slower than a slow push, or after a small turn: not read as parting
    assert not EventExtractor._pair_turned(*_turn(-390.0, 5.0, 3), side=3)
    assert not EventExtractor._pair_turned(*_turn(-100.0, 18.0, 3), side=3)
    # not closing in first
    assert not EventExtractor._pair_turned(*_turn(-10.0, 300.0, 3), side=3)


def test_the_wider_fit_needs_a_turn_noise_does_not_give():
    assert EventExtractor._pair_turned(*_turn(-40.0, 30.0, 6), side=6)
    assert not EventExtractor._pair_turned(*_turn(-30.0, 26.0, 6), side=6)
    assert EventExtractor._pair_turned(*_turn(-30.0, 26.0, 3), side=3)
