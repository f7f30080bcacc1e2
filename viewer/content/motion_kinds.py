"""The table of motion kinds: each kind's channel, its parameters and what they mean.

The one list every part reads: the motions themselves (``motion.py``), the TOML reader
(which keys a ``motion`` table accepts, which are required, how each is checked), the
saver (which parameters it writes) and the generator (the defaults it uses). Adding a
kind or a parameter here is what the format, the loader and the saver see.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Param:
    """One parameter of a motion kind.

    ``width`` is 3 for a vector (the axis) and 1 for a number. ``default`` is None for a
    required parameter. ``check`` names the rule beyond "finite": ``"nonzero"`` (a
    vector that is not all zeros), ``"positive"`` or ``"fraction"`` (between -1 and 1,
    exclusive), or ``""``. ``meaning`` is the unit and role, as the format documents it.
    """

    name: str
    width: int
    default: float | tuple[float, float, float] | None
    meaning: str
    check: str = ""

    @property
    def required(self) -> bool:
        return self.default is None


@dataclass(frozen=True)
class MotionKind:
    """A kind of motion: the local channel it drives and the parameters it takes."""

    name: str
    channel: str  # "position", "rotation" or "scale"
    formula: str
    params: tuple[Param, ...]

    def param(self, name: str) -> Param | None:
        """The parameter called ``name``, or None when this kind does not take it."""
        return next((p for p in self.params if p.name == name), None)

    @property
    def names(self) -> tuple[str, ...]:
        """The parameter names, in the table's order (the order the saver writes)."""
        return tuple(p.name for p in self.params)

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params if p.required)


def _axis(default: tuple[float, float, float], frame: str) -> Param:
    return Param("axis", 3, default, f"direction of the axis in {frame} (any length)", "nonzero")


_SPEED = Param("speed", 1, None, "degrees per second")
_PERIOD = Param("period", 1, None, "seconds per cycle", "positive")
_ANGLE_PHASE = Param("phase", 1, 0.0, "degrees added to the angle")
_CYCLE_PHASE = Param("phase", 1, 0.0, "degrees added to the cycle")
_Y = (0.0, 1.0, 0.0)

#: Every motion kind by name, in the order the saver lists a node's motions.
KINDS: dict[str, MotionKind] = {
    k.name: k
    for k in (
        MotionKind(
            "spin",
            "rotation",
            "rest ⊗ q(axis, speed·t + phase): turns about the node's own axis",
            (_axis(_Y, "the node's rest frame"), _SPEED, _ANGLE_PHASE),
        ),
        MotionKind(
            "swing",
            "rotation",
            "rest ⊗ q(axis, amplitude·sin(2π t/period + phase)): a joint",
            (
                _axis((0.0, 0.0, 1.0), "the node's rest frame"),
                Param("amplitude", 1, None, "degrees either side of the rest rotation"),
                _PERIOD,
                _CYCLE_PHASE,
            ),
        ),
        MotionKind(
            "orbit",
            "position",
            "q(axis, speed·t + phase) · rest: revolves about the parent's origin",
            (_axis(_Y, "the parent's frame"), _SPEED, _ANGLE_PHASE),
        ),
        MotionKind(
            "oscillate",
            "position",
            "rest + axis·amplitude·sin(2π t/period + phase): simple harmonic",
            (
                _axis(_Y, "the parent's frame"),
                Param("amplitude", 1, None, "length either side of the rest position"),
                _PERIOD,
                _CYCLE_PHASE,
            ),
        ),
        MotionKind(
            "pulse",
            "scale",
            "rest · (1 + amplitude·sin(2π t/period + phase))",
            (
                Param("amplitude", 1, None, "fraction of the rest scale", "fraction"),
                _PERIOD,
                _CYCLE_PHASE,
            ),
        ),
    )
}

#: The value a `Motion` stores for a parameter its kind does not take.
UNUSED = {"axis": (0.0, 0.0, 0.0), "speed": 0.0, "amplitude": 0.0, "period": 1.0, "phase": 0.0}
#: Every parameter name any kind takes (the columns of a `Motion`).
PARAM_NAMES = tuple(UNUSED)
#: Which local channel each kind drives.
CHANNELS = {name: kind.channel for name, kind in KINDS.items()}
