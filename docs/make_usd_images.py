"""Make the picture of the USD section of docs/scene-format.md with sgview itself.

    .venv/bin/python docs/make_usd_images.py   # docs/images/usd-stage.png

The stage is built here with pxr (usd-core) and written to a temporary .usda: Z up in
centimetres (the root node 'stage' turns it and scales it), an arm whose op stack turns
about a pivot (translate:pivot, a time-sampled rotateZ, the pivot's !invert! twin) with
a hand below it, and a PointInstancer of 24 spheres in a ring, turning on its own time
samples while a wave runs round it (its positions time-sampled). Frame 30 is shot with
the arm selected: the arm and the ring glow red (their own values changed), the hand
orange (it followed), and the inspector shows the arm's op stack and prim path.
"""

from __future__ import annotations

import math
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent


def write_stage(path: Path) -> Path:
    from pxr import Usd, UsdGeom

    stage = Usd.Stage.CreateNew(str(path))
    UsdGeom.SetStageUpAxis(stage, "Z")
    UsdGeom.SetStageMetersPerUnit(stage, 0.01)
    stage.SetStartTimeCode(0)
    stage.SetEndTimeCode(96)
    stage.SetTimeCodesPerSecond(24)
    world = UsdGeom.Xform.Define(stage, "/World")
    stage.SetDefaultPrim(world.GetPrim())
    base = UsdGeom.Cylinder.Define(stage, "/World/Base")
    base.CreateRadiusAttr(60)
    base.CreateHeightAttr(10)
    base.CreateDisplayColorAttr([(0.35, 0.38, 0.45)])
    arm = UsdGeom.Xform.Define(stage, "/World/Arm")
    arm.AddTranslateOp().Set((0, 0, 40))
    arm.AddTranslateOp(opSuffix="pivot").Set((-40, 0, 0))
    turn = arm.AddRotateYOp()
    for code, angle in ((0, -30), (48, 40), (96, -30)):
        turn.Set(angle, code)
    arm.AddTranslateOp(opSuffix="pivot", isInverseOp=True)
    beam = UsdGeom.Cube.Define(stage, "/World/Arm/Beam")
    beam.AddScaleOp().Set((80, 8, 8))
    beam.CreateSizeAttr(1)
    beam.CreateDisplayColorAttr([(0.85, 0.55, 0.2)])
    hand = UsdGeom.Sphere.Define(stage, "/World/Arm/Hand")
    hand.AddTranslateOp().Set((40, 0, 0))
    hand.CreateRadiusAttr(10)
    hand.CreateDisplayColorAttr([(0.3, 0.6, 0.9)])
    ring = UsdGeom.PointInstancer.Define(stage, "/World/Ring")
    spin = ring.AddRotateZOp()
    spin.Set(0, 0)
    spin.Set(90, 96)
    ball = UsdGeom.Sphere.Define(stage, "/World/Ring/Protos/Ball")
    ball.CreateRadiusAttr(6)
    ball.CreateDisplayColorAttr([(0.5, 0.8, 0.4)])
    ring.CreatePrototypesRel().AddTarget("/World/Ring/Protos/Ball")
    ring.CreateProtoIndicesAttr([0] * 24)
    positions = ring.CreatePositionsAttr()
    for code in range(0, 97, 12):  # a wave runs round the ring: animated instance data
        phase = code * math.tau / 96
        positions.Set([(90 * math.cos(k * math.tau / 24), 90 * math.sin(k * math.tau / 24),
                        8 + 14 * math.sin(3 * k * math.tau / 24 - phase)) for k in range(24)],
                      code)  # fmt: skip
    stage.GetRootLayer().Save()
    return path


def make(out: Path) -> list[Path]:
    sys.path[:0] = [str(REPO)]
    from viewer.cli.main import main

    out.mkdir(parents=True, exist_ok=True)
    png = out / "usd-stage.png"
    with tempfile.TemporaryDirectory() as tmp:
        stage = write_stage(Path(tmp) / "showcase.usda")
        argv = [str(stage), "--headless", "--frames", "30", "--size", "960x540",
                "--select", "Arm", "--screenshot", str(png)]  # fmt: skip
        if main(argv):
            raise SystemExit("the picture run failed")
    return [png]


if __name__ == "__main__":
    for path in make(DOCS / "images"):
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")
