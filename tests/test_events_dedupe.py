"""One contact found twice by two rules a frame or two apart is one event; a pair that
really meets twice (somewhere else) stays two."""

from __future__ import annotations

from luza.vision.events import DEDUPE_SAME_SPOT_FRAMES, _Cand, _dedupe

DT = 1 / 30
R_MM = 34.0


def _hit(t: float, pos: tuple[float, float]) -> _Cand:
    return _Cand("collision", t, 0.9, {"a": "W1", "b": "K", "pos": list(pos)})


def _dedupe_30fps(cands: list[_Cand]) -> list[_Cand]:
    return _dedupe(cands, 1.6 * DT, DEDUPE_SAME_SPOT_FRAMES * DT, R_MM)


def test_the_same_hit_found_two_frames_apart_at_one_spot_is_one():
    # LukasSeglias video_13: W1-K at frames 33 and 35, 1 mm apart
    out = _dedupe_30fps([_hit(1.1006, (1694.3, 747.0)), _hit(1.1707, (1694.3, 748.0))])
    assert len(out) == 1
    assert out[0].t == 1.1006  # the earlier finding is kept


def test_a_second_meeting_elsewhere_stays_two():
    out = _dedupe_30fps([_hit(1.1006, (1694.3, 747.0)), _hit(1.1707, (1640.0, 700.0))])
    assert len(out) == 2


def test_the_same_spot_much_later_stays_two():
    out = _dedupe_30fps([_hit(1.0, (1694.3, 747.0)), _hit(1.0 + 5 * DT, (1694.3, 747.0))])
    assert len(out) == 2
