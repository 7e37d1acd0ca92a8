"""Free Pyramid engine over many generated games: invariants, rule frequencies, speed.

Plays N random but possible games (the generator of tests/test_rules_fp_properties.py),
checks ball conservation / score deltas / replay at every step, and prints how
often each foul and note occurs and how fast streams are scored.

    .venv/bin/python benchmarks/bench_rules_fp.py [N]
"""

from __future__ import annotations

import collections
import sys
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import test_rules_fp_properties as gen  # noqa: E402

from luza.rules.record import score_items  # noqa: E402


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    streams = []

    @settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def collect(data):
        streams.append(gen.gen_game(data.draw, max_strokes=30))

    collect()
    stats: collections.Counter = collections.Counter()
    t0 = time.perf_counter()
    n_items = n_rulings = 0
    for b in streams:
        items = b.items()
        last: dict = {}
        log: list = []
        s = score_items(
            items, observe=lambda g, r, last=last, log=log: gen.check_step(g, r, last, log)
        )
        n_items += len(items)
        n_rulings += len(s.rulings)
        stats["finished"] += s.final["winner"] is not None
        for r in s.rulings:
            for f in r.fouls:
                stats["foul " + f.rule] += 1
            for note in r.notes:
                stats["note " + note.split(":")[0]] += 1
    dt = time.perf_counter() - t0
    print(
        f"games {len(streams)}  finished {stats.pop('finished')}  strokes {n_rulings}  "
        f"events {n_items}"
    )
    print(
        f"scored in {dt:.2f} s: {n_items / dt:,.0f} events/s, {n_rulings / dt:,.0f} rulings/s "
        "(invariants checked at every ruling)"
    )
    for k, v in sorted(stats.items(), key=lambda kv: -kv[1]):
        print(f"  {v:6d}  {k}")


if __name__ == "__main__":
    main()
