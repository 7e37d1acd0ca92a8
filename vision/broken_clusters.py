"""The clusters one shot broke (a rack, balls lying together struck at once), kept to
tell a wave's jam from a new contact.

Balls of a cluster just broken leave side by side, slowly, and the tracker sees them
touch again and again: those touches are the wave's, not new contacts.  A pair that
flew apart (a ball's width) and met again, or a touch before the cluster broke, is a
contact of its own."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

# (a, b, t0, t1) -> the widest gap seen between balls a and b from t0 to t1 (None: no
# frame with both)
MaxGap = Callable[[str, str, float, float], "float | None"]


@dataclass(frozen=True)
class BrokenClusters:
    """``t_break[k]``: when cluster ``k`` broke (its first member seen moving), s;
    ``of_ball``: ball -> the clusters it was in (or broke), in time order; ``late``:
    ball -> the clusters it lay against and left after, slowly; ``own_s``: a cluster's
    own frames (a contact found that near its break may be the wave's own); ``quiet_s``:
    how long after a break a touch of two of its balls can still be its jam;
    ``parted_mm`` / ``touch_parted_mm``: the gap that, once seen, makes a later touch
    new (members / balls that touched it in its wave)."""

    t_break: Sequence[float]
    of_ball: Mapping[str, Sequence[int]]
    late: Mapping[str, set[int]]
    own_s: float
    quiet_s: float
    parted_mm: float
    touch_parted_mm: float
    max_gap: MaxGap

    @classmethod
    def build(
        cls,
        members: Sequence[Sequence[str]],
        t_break: Sequence[float],
        strikers: Sequence[Sequence[str]],
        late: Mapping[str, set[int]],
        *,
        own_s: float,
        quiet_s: float,
        parted_mm: float,
        touch_parted_mm: float,
        max_gap: MaxGap,
    ) -> BrokenClusters:
        """From each cluster's ``members`` and the balls found striking them
        (``strikers``): a striker belongs with the first cluster it broke when it was in
        none itself (the cue ball into a rack; a ball of an earlier cluster striking a
        later one is that one's member only if it was)."""
        of_ball: dict[str, list[int]] = {}
        for k, balls in enumerate(members):
            for b in balls:
                of_ball.setdefault(b, []).append(k)
        for k, balls in enumerate(strikers):
            for s in balls:
                if s not in of_ball:
                    of_ball[s] = [k]
        return cls(
            list(t_break), of_ball, late, own_s, quiet_s, parted_mm, touch_parted_mm, max_gap
        )

    def broke_with(self, a: str, b: str, t: float, before: float = math.inf) -> bool:
        """``a`` and ``b`` in (or against) one cluster that broke, before ``before``, more
        than its own frames (a contact found there may be the wave's own) and less than
        ``quiet_s`` before ``t``, their gap (seen) never opened beyond
        ``touch_parted_mm`` since: one touch, parting."""
        ka = self.late.get(a, set()) | set(self.of_ball.get(a, ()))
        kb = self.late.get(b, set()) | set(self.of_ball.get(b, ()))
        for k in sorted(ka & kb):
            t_k = self.t_break[k]
            if t_k < before and self.own_s < t - t_k < self.quiet_s:
                gap = self.max_gap(a, b, t_k, t)
                if gap is not None and gap <= self.touch_parted_mm:
                    return True
        return False

    def jammed(self, a: str, b: str, t: float) -> bool:
        """A contact of ``a`` and ``b`` found at ``t`` is a wave's jam: both broke out of
        one cluster less than ``quiet_s`` before and were never seen ``parted_mm`` apart
        since (or ``broke_with``).  Two rack balls that flew apart and met again (one
        back off a cushion) collided anew (dev fp-multi/1950: 13 back off the foot
        cushion into 8, 0.28 s after the break).  Only a cluster broken by ``t``
        (within its own frames: a hit found on the striker's way comes before the
        members' first moving samples): one breaking later is not that contact's
        (held-out fp-rally/2378: Y into 5 at rest, 1.4 s before Y and 5 lying together
        were struck by 13, was taken for that later cluster's jam)."""
        for k in sorted(set(self.of_ball.get(a, ())) & set(self.of_ball.get(b, ()))):
            t_k = self.t_break[k]
            if -self.own_s <= t - t_k < self.quiet_s:
                gap = self.max_gap(a, b, t_k, t)
                if gap is None or gap <= self.parted_mm:
                    return True
        return self.broke_with(a, b, t)

    def break_times(self) -> dict[str, list[float]]:
        """Ball -> when each cluster it was in (or broke) broke."""
        return {b: [self.t_break[k] for k in ks] for b, ks in self.of_ball.items()}
