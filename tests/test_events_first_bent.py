"""A cue ball struck at 3.5 m/s, seen once on its way, hits a ball in the next frame
interval and is unseen in the frame after the hit (vision/events.py,
``_bent_off_anchor``): its later samples, slowed and turned 30 degrees by the hit,
fit one line with the sample before it, so its first piece ran straight past the
struck ball and nothing reached it -- the struck ball's move read as a nudge
(``ball_moved``) and the cue ball's first contact was lost.  That piece, run back,
misses the cue ball's rest by 45 mm: the first sample left the rest straight, the
rest of the path bent (dev fp-rally/1409, 30 fps)."""

from __future__ import annotations

import pytest
from events_helpers import _Play

from luza.calibration.profiles import load_profile
from luza.physics.sim import Timeline
from luza.physics.state import Strike
from luza.vision.events import FrameObs, extract_events
from luza.vision.events_truth import Noise, sample_scene

PROFILE = load_profile("pyramid-12ft")
FPS = 30.0

# the layout and the stroke of fp-rally/1409 at t 39.38 s (2 into 5, which drops in
# the middle pocket)
LAYOUT = {"2": (1941.662, 370.408), "5": (1910.598, 183.273)}


def _unseen_after(layout: dict, strike: Strike, seed: int, phase_s: float, ball: str, event):
    """``strike`` played ``phase_s`` after a frame from ``layout``, sampled without hands,
    covering cue or missed fast samples; ``ball`` is unseen in the frame after the first
    truth event ``event(e)`` picks: ``(frames, truth, that event, that frame's index)``."""
    tl = Timeline(PROFILE, layout, seed=seed)
    tl.wait(1.0 + phase_s)
    tl.strike(strike, at_t=1.0 + phase_s)
    noise = Noise(seed=seed, hands=False, cue_cover_p=0.0, miss_fast_p=0.0)
    frames, truth = sample_scene(_Play(tl), FPS, noise)
    ev = next(e for e in truth if event(e))
    k = next(i for i, f in enumerate(frames) if f.t > ev.t)
    f = frames[k]
    seen = {b: p for b, p in f.seen.items() if b != ball}
    frames[k] = FrameObs(f.frame, f.t, seen, f.hidden | {ball})
    return frames, truth, ev, k


def _hidden_at_the_hit(seed: int, phase_s: float):
    """The striker unseen in the frame after its hit."""
    strike = Strike("2", 3527.0, -1.50492, 0.3465, 0.0965, 0.0)
    return _unseen_after(LAYOUT, strike, seed, phase_s, "2", lambda e: e.type == "collision")


@pytest.mark.parametrize("seed", range(4))
def test_a_cue_ball_unseen_at_its_first_hit_keeps_that_contact(seed):
    frames, truth, hit, k = _hidden_at_the_hit(seed, 0.016)
    assert (hit["a"], hit["b"]) == ("2", "5")
    # the cue ball was seen on its way (a frame before the hit), 40+ mm from its rest
    assert "2" in frames[k - 1].seen
    ev = extract_events(frames, PROFILE, "free-pyramid")
    assert [e["cue_ball"] for e in ev if e.type == "shot_start"] == ["2"]
    cols = [e for e in ev if e.type == "collision"]
    assert cols and (cols[0]["a"], cols[0]["b"]) == ("2", "5")
    assert abs(cols[0].t - hit.t) <= 1.0 / FPS
    assert not [e for e in ev if e.type == "ball_moved"]


# fb-rally/1451 at t 36.6 s: W1 rolling at 2.3 m/s into R1, 81 mm off the left cushion;
# R1 seen once on its way there, unseen at the bounce
CUSHION_LAYOUT = {"W1": (1182.117, 610.409), "R1": (1401.158, 115.455)}


def _struck_into_cushion(seed: int, phase_s: float):
    """R1 unseen in the frame after its bounce."""
    strike = Strike("W1", 2400.0, -1.152, 0.4, 0.0, 0.0)
    frames, truth, bounce, _ = _unseen_after(
        CUSHION_LAYOUT,
        strike,
        seed,
        phase_s,
        "R1",
        lambda e: e.type == "cushion" and e["ball"] == "R1",
    )
    return frames, truth, bounce


@pytest.mark.parametrize(("phase_s", "seed"), [(0.0, 3), (0.008, 0), (0.008, 1)])
def test_a_ball_struck_into_a_cushion_keeps_the_bounce_when_its_first_piece_bent(phase_s, seed):
    """R1's first piece (its sample before the bounce and those after) misses its rest:
    its first sample is split off (``_bent_off_anchor``), and the break after it is
    still looked at for the cushion it met (``_bent_head``), as the first piece was
    before (``_struck_into_cushion``, which needs a piece of 2+ samples)."""
    frames, truth, bounce = _struck_into_cushion(seed, phase_s)
    ev = extract_events(frames, PROFILE, "five-ball")
    cols = [e for e in ev if e.type == "collision"]
    assert cols and {cols[0]["a"], cols[0]["b"]} == {"W1", "R1"}
    found = [e for e in ev if e.type == "cushion" and e["ball"] == "R1"]
    assert any(
        e["cushion"] == bounce["cushion"] and abs(e.t - bounce.t) <= 2.0 / FPS for e in found
    )
