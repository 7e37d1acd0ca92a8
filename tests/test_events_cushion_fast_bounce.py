"""Fast balls at cushions at 30 fps: a bounce off a nose between two frames, both samples
15-20 mm off it (``gap_series.fast_minima`` feeding the gap reversal), and a nose then the
jaw at its end in one frame gap (two touches, not one: ``NOSE_JAW_SAME_SPOT_MM``).  Samples:
balls of development scenes as the tracker gives them (the noise of
``vision/events_truth.py``)."""

from __future__ import annotations

from events_helpers import other_ball, rest_way_rest

from luza.calibration.profiles import load_profile
from luza.vision.events import FrameObs, extract_events

PROFILE = load_profile("pyramid-12ft")
FPS = 30.0
TOL_S = 2.0 / FPS  # the benchmark's time tolerance for a contact
N_REST = 30
OTHER_AT = (1000.0, 300.0)  # a ball at rest far from everything


def _frames(ball: str, rest, way) -> list[FrameObs]:
    return rest_way_rest(ball, rest, way, {other_ball(ball): OTHER_AT}, FPS, N_REST, 30)


def _touches(frames, ball: str):
    ev = extract_events(frames, PROFILE, "free-pyramid")
    return [e for e in ev if e.type == "cushion" and e["ball"] == ball]


# ball 3 of fp-rally (seed 1001) from 3.1 s, out of the break at 1.7 m/s into the
# right-foot nose (truth 3.6813 s: 0.5813 s into the way here), 1.2 m/s across it: the
# samples either side of the touch are 18 and 17 mm off the nose; the piece between them
# has two samples (no velocity to follow), and neither is within the 12 mm that the gap
# reversal looked at: the touch was missed
REST_3 = (2721.1, 921.4)
WAY_3 = [
    (2696.2, 977.4), None, (2649.9, 1082.2), (2624.4, 1132.2),
    (2598.5, 1182.5), (2578.3, 1224.2), (2558.6, 1273.1), (2538.7, 1316.9),
    (2519.2, 1361.7), (2499.8, 1397.9), (2480.1, 1437.7), (2460.1, 1481.8),
    (2444.3, 1521.7), (2419.4, 1560.6), (2404.8, 1602.5), (2384.5, 1642.6),
    (2365.2, 1683.9), (2347.7, 1722.8), (2333.3, 1723.9), (2319.7, 1690.1),
    (2305.5, 1665.9), (2294.0, 1638.7), (2283.8, 1612.2), (2270.9, 1590.8),
    (2257.9, 1567.4), (2244.3, 1548.9), (2230.1, 1525.9), (2219.9, 1505.1),
    (2205.2, 1487.2),
    (2194.9, 1463.0), (2180.9, 1445.1), (2170.6, 1425.6), (2157.1, 1403.9),
    (2146.6, 1383.4), (2135.1, 1360.4), (2120.0, 1344.5), (2104.1, 1323.1),
    (2095.9, 1301.1), (2083.2, 1284.3), (2073.3, 1261.8), (2061.2, 1245.3),
    (2050.0, 1227.1), (2036.0, 1207.3), (2028.6, 1186.3), (2016.0, 1167.8),
    (2003.3, 1152.0), (1995.0, 1130.3), (1980.1, 1112.3), (1968.0, 1091.6),
]  # fmt: skip
T_3 = N_REST / FPS + 3.6813 - 3.1

# ball Y of fp-penalty (seed 1271) from 2.8333 s, struck at 1.8 m/s straight into the
# right-foot nose (truth 3.3475 s); samples 13 and 20 mm off it either side
REST_Y = (3171.7, 986.3)
WAY_Y = [
    (3167.9, 1046.1),
    (3168.3, 1109.1), (3164.7, 1161.8), (3166.4, 1219.4), (3161.6, 1271.9),
    (3161.0, 1322.9), (3154.9, 1373.5), (3158.2, 1417.8), (3155.4, 1461.2),
    (3155.6, 1500.5), (3154.6, 1543.2), (3152.0, 1581.2), (3150.8, 1616.5),
    (3149.6, 1650.5), (3151.4, 1690.3), (3148.6, 1728.1), (3147.2, 1721.2),
    (3149.7, 1694.6), (3150.1, 1671.0), (3151.4, 1646.2), (3153.7, 1627.4),
    (3154.5, 1610.1), (3155.3, 1589.5), (3155.3, 1572.1), (3155.6, 1550.8),
    (3155.9, 1533.5), (3158.2, 1512.0), (3157.0, 1495.5), (3157.9, 1479.4),
    (3157.9, 1460.2), (3159.0, 1440.7), (3162.1, 1424.9),
    (3161.9, 1405.3), (3160.7, 1389.1), (3161.7, 1372.1), (3165.2, 1358.0),
    (3162.8, 1337.6), (3163.9, 1317.8), (3164.4, 1301.1), (3165.9, 1286.3),
    (3165.0, 1268.7), (3166.3, 1252.0), (3167.9, 1236.2), (3169.7, 1220.7),
    (3168.1, 1203.6), (3166.8, 1189.2), (3173.4, 1171.6), (3173.7, 1156.2),
    (3172.5, 1141.8), (3172.0, 1121.9), (3170.6, 1109.1), (3172.8, 1092.0),
    (3173.8, 1078.2), (3175.7, 1062.0), (3175.8, 1048.6), (3175.6, 1035.6),
    (3176.4, 1018.3), (3175.3, 1005.1), (3176.7, 986.9), (3179.3, 974.8),
]  # fmt: skip
T_Y = N_REST / FPS + 3.3475 - 2.8333


def test_a_fast_bounce_between_two_frames_off_the_nose_is_found():
    for ball, rest, way, t in (("3", REST_3, WAY_3, T_3), ("Y", REST_Y, WAY_Y, T_Y)):
        touches = _touches(_frames(ball, rest, way), ball)
        assert [e["cushion"] for e in touches] == ["right-foot"], ball
        assert abs(touches[0].t - t) <= TOL_S, ball


# ball Y of fp-multi (seed 1117) from 3.6 s (after its collision with ball 11), at 3 m/s
# into the foot nose 27 mm inside its end by the foot-left pocket (truth 3.6725 s), then
# off the jaw rounding at that end 19 ms later (truth 3.6918 s): two touches in one frame
# gap, found by the break (the nose) and the gap reversal (the jaw) 21 mm apart
REST_2 = (3450.0, 410.0)
WAY_2 = [
    (3467.8, 308.4), (3487.0, 204.5), (3511.5, 107.1), (3499.1, 57.0), (3494.1, 123.4),
    None, (3487.3, 266.4), (3472.8, 336.6), (3469.9, 406.2), (3470.7, 469.0),
]  # fmt: skip
T_2 = (N_REST / FPS + 3.6725 - 3.6, N_REST / FPS + 3.6918 - 3.6)


def test_a_nose_then_the_jaw_at_its_end_in_one_frame_gap_are_two_touches():
    touches = _touches(_frames("Y", REST_2, WAY_2), "Y")
    assert [e["cushion"] for e in touches] == ["foot", "jaw:foot-left"]
    for e, t in zip(touches, T_2, strict=True):
        assert abs(e.t - t) <= TOL_S
