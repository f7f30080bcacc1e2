"""The glow's one owner: when each node was last recomputed, and why (no GL).

Each frame report stamps the nodes it recomputed with the simulation time and the reason:
its own value changed (a local recomputation: red) or it followed a change above it
(world only: orange). Those stamps go to the GPU with the node's world matrix, in the
same range writes (`Instances.sync`), and the vertex shader turns them into a glow that
fades linearly over `fade` seconds of the current time (`u_time`), the way pygfx keeps a
`last_modified` stamp per object instead of pushing values every frame. So a frame that
recomputes nothing writes nothing, fading glows included; while the simulation is paused
the time stands still and the glow stays.

The same stamps answer the CPU's questions: the names' colours, the joint markers
(`joints.py`) and the lit parent -> child lines (`ribbons.py`; a line is lit when both
ends were recomputed in the same frame, the path the change travelled), fading alike.

The heat view reads the same stamp: an exponentially weighted share of recent time
(`HEAT_SECONDS`) stored at the stamp's time and decayed in the shader (no writes between
recomputations). A frame picked on the timeline (`set_still`) shows at full strength.

A picked frame and nodes marked but not yet executed (`set_pending`: the *pending look*)
show instead of the live stamps; `glow_marks.py` keeps them.

`STAMP_FORMAT` is the per-instance layout: (time, code), code = reason + heat in [0, 1).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from viewer.scene.report import FrameReport

from . import glow_loops
from .glow_marks import GlowMarks, LitFrame
from .glow_recent import LINES, NODES, RecentFrames

#: Seconds a glow takes to fade out (adjustable in the panel).
DEFAULT_FADE = 0.5
#: Strengths below this count as 0 (a linear fade may stop just above 0 in float steps).
EPSILON = 1e-4
#: Time constant (seconds) of the heat's exponential weighting of recent frames.
HEAT_SECONDS = 1.0
#: Bytes per instance of the stamp, and its moderngl format (2 float32: time, code).
STAMP_BYTES = 8
STAMP_FORMAT = "2f/i"
#: Reasons (the integer part of the stamp's code; the shader uses the same numbers).
NONE, OWN, FOLLOWED, STILL_OWN, STILL_FOLLOWED = 0, 1, 2, 3, 4
#: Marked, not yet executed (drawn hatched and outlined: `glow_marks.py`).
PENDING_OWN, PENDING_FOLLOWED = 5, 6
#: The heat stored in the code's fraction stays below 1 so the reason survives.
_HEAT_MAX = 0.999

_EMPTY_IDS = np.zeros(0, dtype=np.int64)
_EMPTY_VALUES = np.zeros(0, dtype=np.float32)


class Glow:
    """Recomputation stamps per node id, and the glow they show at the current time.

    Parameters
    ----------
    fade : float
        Seconds from full strength to none; 0 or less: a glow lasts exactly one frame.
    """

    def __init__(self, fade: float = DEFAULT_FADE):
        self.fade = float(fade)
        #: Simulation seconds so far (the sum of the recorded frames' `dt`).
        self.now = 0.0
        #: Frames recorded so far.
        self.frames = 0
        # By frame number (0: never): its time. A stamp's time is its frame's, so no
        # array of times by id is written each frame (`_time_of`).
        self._frame_time = np.full(64, -np.inf)
        self.own = np.zeros(0, dtype=bool)  # by id: that recomputation was its own change
        self.frame_of = np.zeros(0, dtype=np.int64)  # by id: frame of it (0: never)
        # By child id: the frame both ends of the line to it were last recomputed in.
        self.link_frame = np.zeros(0, dtype=np.int64)
        self.heat_at = np.zeros(0)  # by id: the heat at the time of its stamp
        # The recent frames that may still glow, with live counts of what is still theirs:
        # "what glows now" costs the recent work, "how many" no walk at all.
        self._recent = RecentFrames()
        #: By id: counted by `glowing_count` (the renderer's drawn nodes); None: all.
        self.counted: np.ndarray | None = None
        self._counts_every_id = True
        # (ids, new heat, line frames, their GPU rows or None) the last `record` stamped:
        # uploaded next (`_fresh_of`).
        self._fresh: tuple | None = None
        #: A picked frame, or nodes marked and not yet executed: shown instead.
        self.marks = GlowMarks()

    # -- recording ---------------------------------------------------------------------
    def _grow(self, n: int) -> None:
        if n <= len(self.frame_of):
            return
        size = max(n, 2 * len(self.frame_of))
        for name in ("own", "frame_of", "link_frame", "heat_at"):
            old = getattr(self, name)
            new = np.zeros(size, dtype=old.dtype)
            new[: len(old)] = old
            setattr(self, name, new)

    def record(self, report: FrameReport, parents: np.ndarray, dt: float) -> None:
        """Let `dt` seconds pass, then stamp what `report` recomputed with the new time.

        `parents` is the graph's parent id per node id (``graph.parents()``).
        """
        self.frames += 1
        self.marks.clear_pending()  # this frame executed them
        dt = max(float(dt), 0.0)
        self.now += dt
        if self.frames >= len(self._frame_time):
            self._frame_time = np.append(self._frame_time, np.full(self.frames, -np.inf))
        self._frame_time[self.frames] = self.now
        world = np.ascontiguousarray(report.world_updated, dtype=np.int64)
        local = np.ascontiguousarray(report.local_updated, dtype=np.int64)
        self._grow(len(parents))
        stamp = self._stamp_compiled if glow_loops.serving() else self._stamp_numpy
        decay, line_frames, rows, lit, lines, counted = stamp(world, local, parents, dt)
        self._fresh = (world, decay, line_frames, rows) if world.size else None
        if world.size or local.size:
            self._recent.add(self.now, self.frames, lit, lines, counted, lines.size)
        self._forget_old()

    def _stamp_numpy(self, world, local, parents, dt: float) -> tuple:
        """`record`'s stamps in numpy (until the compiled loops serve; their oracle):
        (new heat, line frames) per node of `world`, the lit ids, lines, counted nodes."""
        before = np.take(self.frame_of, world)  # (the frames their last stamps were of)
        decay = np.take(self._frame_time, before)  # heat: decay to now, then this frame's
        decay -= self.now
        decay *= 1.0 / HEAT_SECONDS
        np.exp(decay, out=decay)
        decay *= np.take(self.heat_at, world)
        decay += -np.expm1(-dt / HEAT_SECONDS)
        self.heat_at[world] = decay
        self.frame_of[world] = self.frames  # tells the locals recomputed in world too
        alone = local[np.take(self.frame_of, local) != self.frames]  # without one, once each
        lit = np.concatenate([world, alone]) if alone.size else world
        weights = self._weights(lit)
        self._recent.supersede(np.concatenate([before, self.frame_of[alone]]), weights, NODES)
        self.own[world] = False
        self.own[local] = True
        self.frame_of[local] = self.frames
        par = np.take(parents, world)  # (a root's -1 reads a stamp, then goes)
        lit_line = (np.take(self.frame_of, par) == self.frames) & (par >= 0)
        line_frames = np.take(self.link_frame, world)
        lines = world[lit_line]
        self._recent.supersede(line_frames[lit_line], None, LINES)
        self.link_frame[lines] = self.frames
        line_frames[lit_line] = self.frames
        return decay, line_frames, None, lit, lines, _total(weights, lit)

    def _stamp_compiled(self, world, local, parents, dt: float) -> tuple:
        """`_stamp_numpy` in compiled passes (`glow_loops.stamp_frame`): the same bits."""
        base = self._recent.oldest_frame()
        decay, line_frames, rows, alone, lines, counted, gone = glow_loops.stamp_frame(
            world,
            local,
            parents,
            self.frames,
            base,
            (self.now, 1.0 / HEAT_SECONDS, -np.expm1(-dt / HEAT_SECONDS)),
            self._frame_time,
            (self.own, self.frame_of, self.link_frame, self.heat_at),
            self.counted,
            self._counts_every_id,
            (max(self.now, -3.0e38), OWN, FOLLOWED, _HEAT_MAX),
        )
        if base is not None:
            self._recent.take_off(gone[0], NODES)
            self._recent.take_off(gone[1], LINES)
        lit = np.concatenate([world, alone]) if alone.size else world
        return decay, line_frames, rows, lit, lines, counted

    def _time_of(self, ids: np.ndarray) -> np.ndarray:
        """The time of node `ids`' last stamps (-inf: never stamped)."""
        return self._frame_time[self.frame_of[ids]]

    def _weights(self, ids: np.ndarray) -> np.ndarray | None:
        """1 for each of `ids` that `glowing_count` counts, else 0; None: all count."""
        if self.counted is None or (
            self._counts_every_id and (ids.size == 0 or int(ids.max()) < len(self.counted))
        ):
            return None
        inside = ids < len(self.counted)
        weights = np.zeros(ids.size)
        weights[inside] = self.counted[ids[inside]]
        return weights

    def forget(self) -> None:
        """Forget every stamp, as before the first frame (the scene restarted at frame 0:
        nothing has been recomputed yet, so nothing glows, as at launch)."""
        self.now, self.frames = 0.0, 0
        self._frame_time.fill(-np.inf)
        for name in ("own", "frame_of", "link_frame", "heat_at"):
            getattr(self, name).fill(0)
        self._recent = RecentFrames()
        self._fresh = None
        self.marks = GlowMarks()

    def count_drawn(self, counted: np.ndarray | None) -> None:
        """Count only nodes `counted` (a mask by id; None: all) in `glowing_count` from
        now on; the recent frames' counts are worked out again (once, at a rebuild)."""
        self.counted = counted
        self._counts_every_id = counted is None or bool(np.all(counted))  # (no gather then)
        self._recent.recount(
            self.frame_of, self.link_frame, lambda ids: _total(self._weights(ids), ids)
        )

    def light(self, ids: npt.ArrayLike) -> None:
        """Stamp nodes `ids` as changed in their own values (red) in the frame just
        recorded, with no line: a change that moved no matrix (morph weights, say)."""
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        if ids.size == 0:
            return
        self._grow(int(ids.max()) + 1)
        self._fresh = None
        fresh = self.frame_of[ids] != self.frames  # not yet stamped in this frame
        decay = np.exp(-(self.now - self._time_of(ids[fresh])) / HEAT_SECONDS)
        self.heat_at[ids[fresh]] *= decay  # the heat counts matrix recomputations only
        self._recent.supersede(self.frame_of[ids[fresh]], self._weights(ids[fresh]), NODES)
        self.own[ids] = True
        self.frame_of[ids] = self.frames
        counted = _total(self._weights(ids[fresh]), ids[fresh])
        self._recent.add(self.now, self.frames, ids[fresh], _EMPTY_IDS, counted, 0)

    def _forget_old(self) -> None:
        self._recent.forget_faded(lambda t: float(self.strength_of_times(np.array([t]))[0]))

    def strength_of_times(self, times: np.ndarray) -> np.ndarray:
        """Glow strength now, in [0, 1], of stamps `times` (the shader's formula)."""
        age = np.maximum(self.now - np.asarray(times, dtype=np.float64), 0.0)
        if self.fade <= 0:
            s = (age == 0).astype(np.float64)
        else:
            s = np.clip(1.0 - age / self.fade, 0.0, 1.0)
        s[s < EPSILON] = 0.0
        return s

    def set_still(self, report: LitFrame | None, parents: np.ndarray) -> None:
        """Show `report` (a frame picked on the timeline) at full strength; None: live."""
        self._grow(len(parents))
        self.marks.set_still(report, parents, len(self.frame_of))

    def set_pending(self, own: np.ndarray, followed: np.ndarray) -> None:
        """Show nodes as marked and not yet executed (`GlowMarks.set_pending`); replaced
        by the next `set_pending` and cleared by `record`."""
        self.marks.set_pending(own, followed)
        self._grow(self.marks.pending_top + 1)
        self._fresh = None

    @property
    def pending(self) -> np.ndarray:
        """Ids shown as marked and not yet executed (own changes first)."""
        return self.marks.pending

    @property
    def still(self) -> bool:
        """A picked frame is on show."""
        return self.marks.still is not None

    # -- what the GPU holds ------------------------------------------------------------
    def stamp_rows(self, ids: npt.ArrayLike) -> np.ndarray:
        """[k, 2] float32 stamps of node `ids`: (time, reason + heat) (`STAMP_FORMAT`)."""
        ids = np.asarray(ids, dtype=np.int64)
        fresh = self._fresh_of(ids)
        if fresh is not None and fresh[3] is not None:  # made by the compiled record
            return fresh[3][0]
        if fresh is not None:  # stamped now: own or followed, their new heat
            rows = np.empty((ids.size, 2), dtype=np.float32)
            rows[:, 0] = max(self.now, -3.0e38)
            rows[:, 1] = np.where(self.own[ids], OWN, FOLLOWED) + np.minimum(fresh[1], _HEAT_MAX)
            return rows
        self._grow(int(ids.max()) + 1 if ids.size else 0)
        reason = np.where(self.own[ids], OWN, FOLLOWED)
        reason[self.frame_of[ids] == 0] = NONE
        if self.marks.still is not None:
            reason = self.marks.still_mark(ids, len(self.frame_of), STILL_OWN, STILL_FOLLOWED)
        else:
            pending = self.marks.pending_mark(ids, len(self.frame_of))
            if pending is not None:
                reason[pending < 0] = PENDING_OWN
                reason[pending > 0] = PENDING_FOLLOWED
        rows = np.empty((ids.size, 2), dtype=np.float32)
        rows[:, 0] = np.maximum(self._time_of(ids), -3.0e38)
        rows[:, 1] = reason + np.minimum(self.heat_at[ids], _HEAT_MAX)
        return rows

    def _fresh_of(self, ids: np.ndarray) -> tuple | None:
        """(ids, new heat, line frames, rows) of the last `record` when `ids` are exactly the
        nodes it stamped (what the renderer uploads next: their rows are made from what
        it computed, not gathered again); None if others, or marks or a picked frame show."""
        if self._fresh is None or self.marks.still is not None or self.marks.any_pending:
            return None
        world = self._fresh[0]
        if ids is not world and (ids.shape != world.shape or not np.array_equal(ids, world)):
            return None
        return self._fresh

    def link_rows(self, ids: np.ndarray) -> np.ndarray:
        """[k] float32: the time the line to each of node `ids` was last lit (both ends
        recomputed in one frame); in a picked frame, far future for its lines."""
        ids = np.asarray(ids, dtype=np.int64)
        self._grow(int(ids.max()) + 1 if ids.size else 0)
        if self.marks.still is not None:
            lit = np.zeros(len(self.frame_of), dtype=bool)
            lit[self.marks.still[2]] = True
            return np.where(lit[ids], 3.0e38, -3.0e38).astype(np.float32)
        fresh = self._fresh_of(ids)
        if fresh is not None and fresh[3] is not None:  # made by the compiled record
            return fresh[3][1]
        frames = self.link_frame[ids] if fresh is None else fresh[2]
        return np.maximum(np.take(self._frame_time, frames), -3.0e38).astype(np.float32)

    def uniforms(self) -> dict[str, float]:
        """The shader's clock: ``u_time``, ``u_fade``, ``u_heat_seconds``, ``u_heat_norm``
        (1 / the weight of all the time so far, as "the frames so far" at the start)."""
        weight = -np.expm1(-self.now / HEAT_SECONDS)
        return {
            "u_time": float(np.float32(self.now)),
            "u_fade": self.fade,
            "u_heat_seconds": HEAT_SECONDS,
            "u_heat_norm": 1.0 / weight if weight > 0 else 1.0,
        }

    # -- what the CPU draws and shows (the shader's formulas) ----------------------------
    def signed(self, ids: np.ndarray) -> np.ndarray:
        """Glow of node `ids` now, float32: -strength for red (own change), +strength for
        orange (followed), 0 for none."""
        ids = np.asarray(ids, dtype=np.int64)
        self._grow(int(ids.max()) + 1 if ids.size else 0)
        if self.marks.still is not None:
            return self.marks.still_mark(ids, len(self.frame_of), -1, 1).astype(np.float32)
        s = self.strength_of_times(self._time_of(ids))
        s[self.frame_of[ids] == 0] = 0.0
        signed = np.where(self.own[ids], -s, s).astype(np.float32)
        pending = self.marks.pending_mark(ids, len(self.frame_of))
        if pending is not None:  # marked, not executed: full strength until the step
            signed[pending != 0] = pending[pending != 0]
        return signed

    def kinds(self, ids: np.ndarray) -> np.ndarray:
        """-1 red (own change), +1 orange (followed), 0 no glow, per node of `ids`
        (marked, not yet executed counts as glowing)."""
        return np.sign(self.signed(ids)).astype(np.int64)

    def kind_of(self, node_id: int) -> int:
        return int(self.kinds(np.array([node_id]))[0])

    def heat(self, ids: np.ndarray) -> np.ndarray:
        """Heat of node `ids` now in [0, 1]: their share of recent time recomputed,
        weighted to the recent (`HEAT_SECONDS`)."""
        ids = np.asarray(ids, dtype=np.int64)
        self._grow(int(ids.max()) + 1 if ids.size else 0)
        age = np.maximum(self.now - self._time_of(ids), 0.0)
        h = self.heat_at[ids] * np.exp(-age / HEAT_SECONDS) * self.uniforms()["u_heat_norm"]
        return np.clip(h, 0.0, 1.0)

    def glowing_count(self) -> int:
        """How many nodes (of those `count_drawn` names) glow now: from the recent
        frames' live counts, no walk over nodes, while live and nothing is marked; a
        picked frame or marks while paused count the ids themselves."""
        if self.marks.still is not None or self.marks.any_pending:
            ids, _ = self.glowing()
            return _total(self._weights(ids), ids)
        self._forget_old()
        return self._recent.total(NODES)

    def lit_line_count(self) -> int:
        """How many parent -> child lines are lit now (`links` without the walk)."""
        if self.marks.still is not None:
            return int(self.marks.still[2].size)
        self._forget_old()
        return self._recent.total(LINES)

    def glowing(self) -> tuple[np.ndarray, np.ndarray]:
        """(ids [k], signed strengths [k]) of the nodes glowing now (each once)."""
        if self.marks.still is not None:
            world, local, _ = self.marks.still
            ids = np.concatenate([world, local])
        else:
            self._forget_old()  # (each id once, from its newest frame, without sorting)
            ids = self._recent.latest(NODES, self.frame_of)
            if self.marks.any_pending:
                recent = ids[self.marks.pending_mark(ids, len(self.frame_of)) == 0]
                ids = np.concatenate([self.marks.pending, recent])
        if ids.size == 0:
            return _EMPTY_IDS, _EMPTY_VALUES
        values = self.signed(ids)
        keep = values != 0
        return ids[keep], values[keep]

    def links(self) -> tuple[np.ndarray, np.ndarray]:
        """(child ids [k], strengths [k] float32) of the lit parent -> child lines."""
        if self.marks.still is not None:
            lines = self.marks.still[2]
            return lines, np.ones(lines.size, dtype=np.float32)
        self._forget_old()
        ids = self._recent.latest(LINES, self.link_frame)
        if ids.size == 0:
            return _EMPTY_IDS, _EMPTY_VALUES
        s = self.strength_of_times(self._frame_time[self.link_frame[ids]]).astype(np.float32)
        keep = s > 0
        return ids[keep], s[keep]


def _total(weights: np.ndarray | None, ids: np.ndarray) -> int:
    """How many of `ids` count, by their `weights` (None: all)."""
    return ids.size if weights is None else int(weights.sum())
