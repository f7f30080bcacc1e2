"""Make the pictures of the glTF section of docs/viewer.md with sgview itself.

    .venv/bin/python docs/make_gltf_images.py   # docs/images/skinned-rig.{png,gif},
                                                # docs/images/gltf-materials{,-overlay}.png

The model is the test suite's three-bone bending cylinder (tests/gltf_rig.py: skinned,
with vertex colours and an animation using every interpolation mode), written to a
temporary .glb and played headless with the overlay on: the moving joints glow red in the
tree and, drawn over the mesh, in the view; the joints that follow them glow orange.

The materials pictures show tests/gltf_looks.py's `showcase` (an alpha-masked leaf, a
blended glass pane, a gold metal and a white dielectric sphere, an emissive lamp, a block
morphed halfway by its morph target, three glowing studs drawn by one
EXT_mesh_gpu_instancing node), through the file's camera with `--no-overlay`, and from
the orbit camera with the overlay on.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent


def make(out: Path) -> list[Path]:
    sys.path[:0] = [str(REPO), str(REPO / "tests")]
    from gltf_looks import showcase
    from gltf_rig import write_rig

    from viewer.cli.main import main

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        model = write_rig(Path(tmp), "rig.glb", vertex_colors=True, skin_offset=(0, 0, 0))
        png, gif = out / "skinned-rig.png", out / "skinned-rig.gif"
        common = [str(model), "--headless", "--select", "Bone1"]
        if main([*common, "--frames", "40", "--size", "960x540", "--screenshot", str(png)]):
            raise SystemExit("the picture run failed")
        if main([*common, "--frames", "75", "--size", "640x360", "--record", str(gif)]):
            raise SystemExit("the gif run failed")
        model = showcase(Path(tmp) / "showcase.gltf")
        looks, overlay = out / "gltf-materials.png", out / "gltf-materials-overlay.png"
        common = [str(model), "--headless", "--frames", "2", "--size", "960x540"]
        if main([*common, "--camera", "Front", "--no-overlay", "--screenshot", str(looks)]):
            raise SystemExit("the materials run failed")
        if main([*common, "--select", "Gold", "--screenshot", str(overlay)]):
            raise SystemExit("the materials run with the overlay failed")
    return [png, gif, looks, overlay]


if __name__ == "__main__":
    for path in make(DOCS / "images"):
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")
