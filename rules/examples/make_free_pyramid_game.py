"""Write ``free_pyramid_game.jsonl``: a short complete Free Pyramid game for the README.

Ann and Bob; a legal break, pockets and an in-off, a double hit entered by the
referee (the pocketed ball is respotted on the rear spot, Bob takes a penalty
ball), a miss (Ann takes a penalty ball and hands the stroke back), and Bob
reaching 8.  Run: ``.venv/bin/python rules/examples/make_free_pyramid_game.py``.
"""

from __future__ import annotations

import random
from pathlib import Path

from luza.rules.builder import StreamBuilder

OUT = Path(__file__).with_name("free_pyramid_game.jsonl")


def scatter(b: StreamBuilder, balls: list[str], seed: int) -> dict[str, tuple[float, float]]:
    """Where ``balls`` stop: random points clear of every other ball and of the respot line."""
    rng = random.Random(seed)
    L, W = b.profile.length_mm, b.profile.width_mm
    taken = {k: v for k, v in b.pos.items() if k not in balls}
    out: dict[str, tuple[float, float]] = {}
    for ball in balls:
        while True:
            p = (round(rng.uniform(120, L - 120), 1), round(rng.uniform(120, W - 120), 1))
            near_line = p[0] > 0.7 * L and abs(p[1] - W / 2) < 120
            clear = all((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 > 90.0**2 for q in taken.values())
            if clear and not near_line:
                out[ball] = p
                taken[ball] = p
                break
    return out


def main() -> None:
    b = StreamBuilder(dt=0.4)
    b.players("Ann", "Bob")
    b.rack(cue_pos=(520.0, 887.5))
    # 1. Ann breaks with the yellow: three object balls reach a cushion (GR-13.1(2)).
    b.strike("Y", "Ann", dt=6.0).hit("Y", "1")
    b.cushion("11", "foot").cushion("15", "foot").cushion("12", "right-foot").cross("1", "centre")
    b.end(scatter(b, list(b.pos), seed=3), dt=3.0)
    # 2. Bob pockets 8 with ball 3, then 5 and the in-off of 3 (FP-5.4).
    b.strike("3", "Bob", dt=12.0).hit("3", "8").pocket("8", "foot-left")
    b.end(scatter(b, ["3"], 4), dt=2.0)
    b.strike("3", "Bob", dt=10.0).hit("3", "5").pocket("5", "middle-right")
    b.pocket("3", "foot-right").end(dt=2.0)
    # 3. Bob misses a thin cut: the turn passes (GR-7.2).
    b.strike("10", "Bob", dt=11.0).hit("10", "2").end(scatter(b, ["10", "2"], 5), dt=2.5)
    # 4. Ann pockets 9, then pockets 4 with a double hit the referee sees (GR-17):
    #    4 goes back on the rear spot (GR-22.c, GR-25), Bob takes 14 as the penalty ball (FP-7).
    b.strike("6", "Ann", dt=9.0).hit("6", "9").pocket("9", "head-left")
    b.end(scatter(b, ["6"], 6), dt=2.0)
    b.strike("6", "Ann", dt=10.0).foul("double-hit", dt=0.05).hit("6", "4")
    b.pocket("4", "foot-left").end(scatter(b, ["6"], 7), dt=2.0)
    b.remove("14", dt=4.0).place("4", (2662.5, 887.5), dt=3.0).choice("play", dt=2.0)
    # 5. Bob pockets 13 and 7, then touches nothing (GR-6.2): Ann takes 15 and hands back.
    b.strike("12", "Bob", dt=8.0).hit("12", "13").pocket("13", "head-right")
    b.end(scatter(b, ["12"], 8), dt=2.0)
    b.strike("12", "Bob", dt=9.0).hit("12", "7").pocket("7", "middle-left")
    b.end(scatter(b, ["12"], 9), dt=2.0)
    b.strike("12", "Bob", dt=9.0).cushion("12", "foot").end(scatter(b, ["12"], 10), dt=2.5)
    b.remove("15", dt=4.0).choice("hand-back", dt=2.0)
    # 6. Bob plays the respotted 4 in, then 11: 8 points, the game (FP-1).
    b.strike("1", "Bob", dt=8.0).hit("1", "4").pocket("4", "foot-left")
    b.end(scatter(b, ["1"], 11), dt=2.0)
    b.strike("1", "Bob", dt=9.0).hit("1", "11").pocket("11", "foot-right").end(dt=2.0)
    OUT.write_text(b.jsonl(), encoding="utf-8")
    print(f"wrote {OUT} ({len(b.lines)} lines)")


if __name__ == "__main__":
    main()
