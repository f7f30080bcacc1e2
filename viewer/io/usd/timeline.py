"""Time-sampled transforms as the scene's animation, on sgview's clock.

Frame N is at t = N/60 s (as for glTF), that is USD time code
``startTimeCode + t * timeCodesPerSecond``, looping over ``[startTimeCode, endTimeCode]``;
where the frames' places in the loop repeat after P frames (the `period`: a loop of a
whole number of frames, or a few loops), frame N shows exactly what frame N mod P shows
(computing a later frame's time with fmod lands an ulp beside it, which on a held jump
is the other value).
A stage whose range is empty or not authored is not animated: every frame shows
``startTimeCode``.

The transforms are baked, never approximated: for every prim whose transform may vary
(``TransformMightBeTimeVarying``), pxr evaluates its op stack at each frame's time code
(held or linear interpolation, as the stage says), and the clip keys those matrices at
the clip times the frames land on (``fmod(N * (1/60), loop)``, computed as the player
does, to the bit), so each frame shows exactly USD's value and a held segment changes
nothing (no glow). Times between frames (a window's real clock, or frames after the
first `MAX_LOOPS` loops, which land an ulp beside a key) interpolate linearly between the
two keys around them.
Budgets: the frames times the animated prims, as matrices, within ``--max-buffer-mb``;
any one property at most `MAX_SAMPLES` time samples.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from pxr import Usd, UsdGeom

from viewer.io.errors import SceneError
from viewer.io.limits import Limits
from viewer.io.usd.xforms import column_matrices

__all__ = ["FPS", "MAX_LOOPS", "MAX_SAMPLES", "Timeline", "bake", "timeline_of"]

FPS = 60
#: Time samples one property may have (each is parsed and held by pxr).
MAX_SAMPLES = 1_000_000
#: The most loops whose frames are keyed (see `Timeline.key_times`).
MAX_LOOPS = 8


@dataclass(frozen=True)
class Timeline:
    """The stage's time range: `start` and `end` time codes, `per_second` codes a second."""

    start: float
    end: float
    per_second: float

    @property
    def animated(self) -> bool:
        return self.end > self.start

    @property
    def seconds(self) -> float:
        """How long one loop lasts on sgview's clock."""
        return (self.end - self.start) / self.per_second if self.animated else 0.0

    def code_at(self, t: float) -> float:
        """The time code frame time `t` (seconds) shows."""
        if not self.animated:
            return self.start
        return self.start + math.fmod(max(t, 0.0), self.seconds) * self.per_second

    def period(self) -> int | None:
        """After how many frames the frames' places in the loop repeat: the first whole
        number of frames that is a whole number of loops (at most `MAX_LOOPS` loops);
        None when no such number is that small."""
        frames = self.seconds * FPS
        for loops in range(1, MAX_LOOPS + 1):
            if abs(frames * loops - round(frames * loops)) < 1e-9:
                return round(frames * loops)
        return None

    def key_code(self, t: float) -> float:
        """The time code keyed at clip time `t`: the loop's end is its start again when
        the frames repeat (frame `period` is frame 0), else the end time code."""
        if t < self.seconds:
            return self.code_at(t)
        return self.start if self.period() is not None else self.end

    def key_count(self) -> int:
        """How many keys `key_times` gives at most (known before computing them)."""
        period = self.period()
        return (period if period is not None else int(self.seconds * FPS * MAX_LOOPS) + 1) + 1

    def key_times(self) -> np.ndarray:
        """The clip times frames land on: ``fmod(N * (1/60), seconds)`` computed as the
        player computes them, so every frame's pose is a key, for the frames of one
        period (later frames land within an ulp of one of these, and take its value to
        about 1e-14) or, without a short period, of `MAX_LOOPS` loops; and the end."""
        step, span = 1.0 / FPS, self.seconds
        phases = np.fmod(np.arange(self.key_count() - 1) * step, span)
        return np.unique(np.append(phases, span))

    def describe(self) -> str:
        if not self.animated:
            return f"time code {self.start:g} on every frame (no time range)"
        return (
            f"time codes {self.start:g}..{self.end:g} at {self.per_second:g} a second, "
            f"looping every {self.seconds:g} s"
        )


def timeline_of(stage: Usd.Stage, display: str) -> Timeline:
    """The stage's range; an unauthored one is not animated."""
    start, end = stage.GetStartTimeCode(), stage.GetEndTimeCode()
    per_second = stage.GetTimeCodesPerSecond()
    for name, value in (("startTimeCode", start), ("endTimeCode", end)):
        if not math.isfinite(value) or abs(value) > 1e12:
            raise SceneError(
                f"expected a finite time code within 1e12, got {value!r}",
                file=display,
                section="stage metadata",
                field=name,
            )
    if not (math.isfinite(per_second) and per_second > 0):
        raise SceneError(
            f"expected a positive number, got {per_second!r}",
            file=display,
            section="stage metadata",
            field="timeCodesPerSecond",
        )
    if not stage.HasAuthoredTimeCodeRange():
        end = start
    return Timeline(float(start), float(end), float(per_second))


def _check_samples(prim, display: str) -> None:
    for op in UsdGeom.Xformable(prim).GetOrderedXformOps():
        count = op.GetNumTimeSamples()
        if count > MAX_SAMPLES:
            raise SceneError(
                f"{count:,} time samples, over the limit of {MAX_SAMPLES:,}",
                file=display,
                section=f"prim {prim.GetPath()}",
                field=op.GetName(),
            )


def bake(
    prims: list, timeline: Timeline, display: str, limits: Limits
) -> tuple[list[int], np.ndarray, np.ndarray]:
    """(the rows of `prims` whose transform varies, the key times (F,), their local
    matrices (F, k, 4, 4), column vectors); nothing when the stage is not animated."""
    if not timeline.animated:
        return [], np.zeros(0), np.zeros((0, 0, 4, 4))
    rows = [i for i, p in enumerate(prims) if UsdGeom.Xformable(p).TransformMightBeTimeVarying()]
    if not rows:
        return [], np.zeros(0), np.zeros((0, 0, 4, 4))
    for i in rows:
        _check_samples(prims[i], display)
    count = timeline.key_count()
    need = 128 * count * len(rows)
    reason = limits.bytes_reason(
        need, f"the animation ({count:,} frames of {len(rows):,} animated prims, as matrices)"
    )
    if reason is not None:
        raise SceneError(
            reason, file=display, section=f"prim {prims[rows[0]].GetPath()}", field="xformOpOrder"
        )
    times = timeline.key_times()
    chosen = [prims[i] for i in rows]
    cache = UsdGeom.XformCache()
    out = np.empty((len(times), len(rows), 4, 4))
    for f, t in enumerate(times):
        cache.SetTime(Usd.TimeCode(timeline.key_code(t)))
        out[f] = column_matrices([cache.GetLocalTransformation(p)[0] for p in chosen])
    return rows, times, out
