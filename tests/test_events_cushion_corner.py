"""Where a cushion nose ends at a pocket: the nose or the jaw (``_past_nose_end``,
``_nose_or_rounding``).  Samples: balls of development scenes at 60 fps as the tracker
gives them (the noise of ``vision/events_truth.py``)."""

from __future__ import annotations

from events_helpers import other_ball, rest_way_rest

from luza.calibration.profiles import load_profile
from luza.vision.events import FrameObs, extract_events

PROFILE = load_profile("pyramid-12ft")
FPS = 60.0
TOL_S = 2.0 / FPS  # the benchmark's time tolerance for a contact
OTHER_AT = (1000.0, 900.0)  # a ball at rest far from everything


def _frames(ball: str, rest, way, n_rest: int = 40) -> list[FrameObs]:
    """``ball`` at rest at ``rest``, then along ``way`` (None: hidden; after its end
    ``'gone'`` samples: not on the table any more), then at rest where it stopped."""
    return rest_way_rest(ball, rest, way, {other_ball(ball): OTHER_AT}, FPS, n_rest, 40)


def _cushions(frames, ball: str, game: str):
    ev = extract_events(frames, PROFILE, game)
    return ev, [e for e in ev if e.type == "cushion" and e["ball"] == ball]


# ball 2 of fp-pots (seed 1204) from 2.75 s, struck at 3.3 m/s along the foot cushion
# into the foot-left pocket: the physics' first contact is the jaw at 3.051 s (truth
# at 0.82 s here), 34 mm past the foot nose's end.  The piece before the last frame gap,
# followed on, came within the 1.8 mm contact slack of the foot nose 2 mm inside its end
# (noise: ~3 mm a sample at this speed), and the next sample is 17 mm beyond the nose's
# line, past its end: it never met the nose
ENTRY_REST = (3216.8, 501.4)
ENTRY_WAY = [
    (3223.3, 500.1), (3250.1, 448.3),
    (3283.0, 388.2), (3317.4, 345.5), (3353.4, 299.9), (3384.7, 253.1), (3413.8, 196.9),
    (3448.7, 152.3), None, (3507.6, 63.3), (3532.6, 15.5), (3566.4, -16.6),
    (3587.5, -37.6), (3584.6, -37.0), (3580.6, -31.4), (3575.4, -28.0), (3575.3, -23.5),
] + [None] * 15 + ["gone"] * 10  # fmt: skip
ENTRY_JAW_T = 3.0509 - 2.8833 + 40 / FPS  # the physics' jaw contact on this clock


def test_a_ball_entering_a_corner_pocket_past_a_nose_end_touched_the_jaw():
    ev, touches = _cushions(_frames("2", ENTRY_REST, ENTRY_WAY), "2", "free-pyramid")
    assert [e["cushion"] for e in touches] == ["jaw:foot-left"]
    assert abs(touches[0].t - ENTRY_JAW_T) <= TOL_S
    assert [(e["ball"], e["pocket"]) for e in ev if e.type == "pocket"] == [("2", "foot-left")]


# ball K of fb-rally (seed 1060) from 15.25 s, hit at rest to the right-foot nose, which
# it meets at 1.4 m/s 20 mm inside the nose's end by the middle-right pocket (truth at
# 15.436 s).  Its gap to the jaw rounding at that end also falls and rises (the gap
# reversal), read as a touch of the jaw 3 ms later: one contact, at a point inside the
# nose's ends: the nose's
NOSE_REST = (1914.0, 1701.0)
NOSE_WAY = [
    (1891.0, 1711.3), (1873.0, 1725.7), (1851.9, 1736.3),
    (1832.9, 1730.7), (1818.9, 1726.0), (1803.7, 1714.1), (1787.6, 1704.5),
    (1772.4, 1694.9), (1759.1, 1689.9), (1745.3, 1676.2), (1730.7, 1671.7),
    (1718.7, 1667.8), (1707.1, 1659.5), (1695.7, 1653.6), (1683.2, 1646.4),
    (1672.5, 1640.0), (1661.6, 1630.5), (1647.5, 1624.9), (1635.9, 1617.7),
    (1625.6, 1611.8), (1611.5, 1607.8), (1602.0, 1602.1), (1592.4, 1594.0),
    (1577.7, 1584.1), (1566.6, 1582.8), (1558.6, 1576.8), (1544.2, 1567.8),
    (1530.8, 1562.9), (1522.8, 1557.2), (1510.8, 1549.6), (1499.1, 1542.4),
]  # fmt: skip
NOSE_T = 15.4356 - 15.4000 + 40 / FPS


def test_a_nose_touch_by_a_pocket_is_not_also_a_jaw_touch():
    _, touches = _cushions(_frames("K", NOSE_REST, NOSE_WAY), "K", "five-ball")
    assert [e["cushion"] for e in touches] == ["right-foot"]
    assert abs(touches[0].t - NOSE_T) <= TOL_S


# ball W2 of fb-rally (seed 1213) from 13.9 s: off the foot nose (truth 14.306 s) into
# the jaw rounding at the right-foot nose's end by the foot-right pocket (truth 14.352 s,
# 2 mm past the nose's end).  The break names the jaw, the gap reversal the nose within
# a millimetre: one contact, past the nose's end: the jaw's
JAW_REST = (3287.0, 1356.0)
JAW_WAY = [
    (3297.5, 1371.1), (3308.1, 1386.1), (3317.2, 1398.3), (3326.8, 1413.1),
    (3335.3, 1428.6), (3345.5, 1444.4), (3354.3, 1455.6), (3360.6, 1469.2),
    (3370.6, 1484.8), (3379.1, 1497.8), (3391.6, 1511.9), (3399.5, 1527.2),
    (3408.5, 1541.5), (3416.8, 1556.5), (3421.5, 1567.7), (3429.7, 1582.7),
    (3445.8, 1593.3), (3451.7, 1610.9), (3461.2, 1624.8), (3471.1, 1637.6),
    (3476.8, 1651.9), (3486.3, 1663.5), (3498.5, 1679.6), (3504.2, 1691.4),
    (3512.2, 1707.2), (3511.9, 1717.3), (3505.5, 1729.1), (3498.3, 1737.9),
    (3495.7, 1731.5), (3488.4, 1724.7), (3486.7, 1716.8), (3486.5, 1707.8),
    (3483.0, 1699.5), (3477.8, 1692.1), (3474.5, 1686.4), (3470.1, 1679.4),
    (3468.6, 1672.9), (3465.8, 1665.4), (3462.6, 1659.7), (3461.7, 1654.0),
    (3456.1, 1649.6), (3456.2, 1642.5), (3451.6, 1636.4), (3448.1, 1632.4),
    (3445.7, 1625.5), (3445.6, 1618.1), (3439.4, 1610.9), (3438.1, 1605.9),
    (3435.8, 1602.9),
]  # fmt: skip
JAW_T = (14.3064 - 13.9000 + 40 / FPS, 14.3522 - 13.9000 + 40 / FPS)


def test_a_jaw_touch_past_a_nose_end_is_not_also_a_nose_touch():
    _, touches = _cushions(_frames("W2", JAW_REST, JAW_WAY), "W2", "five-ball")
    assert [e["cushion"] for e in touches] == ["foot", "jaw:foot-right"]
    for e, t in zip(touches, JAW_T, strict=True):
        assert abs(e.t - t) <= TOL_S
