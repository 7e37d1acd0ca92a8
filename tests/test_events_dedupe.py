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


def test_a_pair_seen_parting_and_meeting_again_at_one_spot_stays_two():
    # dev fb-rally/2930: W2-K, K away to W1 and back, 74 ms later 12 mm off
    cands = [_hit(48.9162, (3368.3, 1537.0)), _hit(48.9899, (3381.7, 1546.6))]
    seen = []

    def met_anew(first: _Cand, then: _Cand) -> bool:
        seen.append((first.t, then.t))
        return True

    out = _dedupe(cands, 1.6 * DT, DEDUPE_SAME_SPOT_FRAMES * DT, R_MM, met_anew)
    assert len(out) == 2
    assert seen == [(48.9162, 48.9899)]  # asked of the earlier finding, then the later
    assert len(_dedupe_30fps(cands)) == 1  # not asked: one contact found twice
