"""glTF files built in code, one per material feature, for bench/look_compare.py: each has
one perspective camera ("View", square aspect) so that sgview and three.js see the same
picture, and lists the extensions it uses (three.js's loader reads only those)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from gltf_looks import Doc, quad, sphere  # noqa: E402

LINEAR_MIPMAPS = {"magFilter": 9729, "minFilter": 9987}
NEAREST = {"magFilter": 9728, "minFilter": 9728}


def _doc(distance: float = 4.0) -> Doc:
    d = Doc()
    d.doc["cameras"] = [{"type": "perspective", "perspective": {
        "yfov": 0.7, "aspectRatio": 1.0, "znear": 0.1, "zfar": 100.0}}]  # fmt: skip
    d.node("View", camera=0, translation=[0.0, 0.0, distance])
    return d


def _pbr(base, metallic=0.0, roughness=0.5, **more) -> dict:
    pbr = {"baseColorFactor": list(base), "metallicFactor": metallic, "roughnessFactor": roughness}
    return {"pbrMetallicRoughness": pbr, **more}


def _checker(a, b, n: int = 8, cell: int = 8) -> np.ndarray:
    tiles = (np.indices((n * cell, n * cell)) // cell).sum(axis=0) % 2
    return np.where(tiles[..., None] == 0, np.array(a, np.uint8), np.array(b, np.uint8))


def _uses(d: Doc, *names: str) -> None:
    d.doc["extensionsUsed"] = list(names)


def base_colour(d: Doc) -> None:
    d.node("Ball", mesh=d.mesh(sphere(), _pbr((0.8, 0.3, 0.1, 1.0))))


def default_material(d: Doc) -> None:
    d.node("Ball", mesh=d.mesh(sphere()))  # white, metallic 1, roughness 1


def texture(d: Doc) -> None:
    tex = d.image(_checker((220, 70, 40), (40, 120, 210)), LINEAR_MIPMAPS)
    material = _pbr((1, 1, 1, 1), 0.0, 0.7)
    material["pbrMetallicRoughness"]["baseColorTexture"] = {"index": tex}
    d.node("Ball", mesh=d.mesh(sphere(), material))


def metal_rough(d: Doc) -> None:
    ball = sphere(radius=0.42)
    for k, (metallic, roughness) in enumerate(
        [(m, r) for m in (0.0, 1.0) for r in (0.15, 0.5, 1.0)]
    ):
        x, y = (k % 3 - 1) * 0.95, (0.5 - k // 3) * 0.95
        material = _pbr((0.9, 0.7, 0.3, 1.0), metallic, roughness)
        d.node(f"B{k}", mesh=d.mesh(ball, material), translation=[x, y, 0.0])


def emissive(d: Doc) -> None:
    strength = {"KHR_materials_emissive_strength": {"emissiveStrength": 1.5}}
    material = _pbr((0.1, 0.1, 0.1, 1.0), 0.0, 0.6, emissiveFactor=[0.3, 0.6, 1.0],
                    extensions=strength)  # fmt: skip
    d.node("Ball", mesh=d.mesh(sphere(), material))
    _uses(d, "KHR_materials_emissive_strength")


def unlit(d: Doc) -> None:
    flat = {"KHR_materials_unlit": {}}
    d.node("Ball", mesh=d.mesh(sphere(radius=0.6), _pbr((0.2, 0.6, 0.9, 1.0), extensions=flat)),
           translation=[-0.6, 0.0, 0.0])  # fmt: skip
    tex = d.image(_checker((250, 200, 30), (30, 30, 30), 4, 4), NEAREST)
    material = _pbr((1, 1, 1, 1), extensions=flat)
    material["pbrMetallicRoughness"]["baseColorTexture"] = {"index": tex}
    d.node("Card", mesh=d.mesh(quad(1.0), material), translation=[0.7, 0.0, 0.0])
    _uses(d, "KHR_materials_unlit")


def vertex_colour(d: Doc) -> None:
    pos, nrm, uv, idx = sphere()
    colors = np.concatenate([0.15 + 0.85 * np.abs(nrm), np.ones((len(nrm), 1))], axis=1)
    d.node("Ball", mesh=d.mesh((pos, nrm, uv, idx), _pbr((1, 1, 1, 1), 0.0, 0.6), colors=colors))


def mask(d: Doc) -> None:
    rgba = _checker((60, 190, 90, 255), (60, 190, 90, 0), 4, 8)
    tex = d.image(rgba, NEAREST)
    material = _pbr((1, 1, 1, 1), 0.0, 0.6, alphaMode="MASK", alphaCutoff=0.5, doubleSided=True)
    material["pbrMetallicRoughness"]["baseColorTexture"] = {"index": tex}
    d.node("Leaf", mesh=d.mesh(quad(2.2), material), rotation=[-0.2, 0.0, 0.0, 0.98])


def blend(d: Doc) -> None:
    d.node("Back", mesh=d.mesh(quad(2.4), _pbr((0.9, 0.9, 0.85, 1.0), 0.0, 0.8)))
    glass = _pbr((0.9, 0.1, 0.1, 0.45), 0.0, 0.3, alphaMode="BLEND")
    d.node("Glass", mesh=d.mesh(sphere(radius=0.7), glass), translation=[0.2, 0.1, 0.6])


def texture_transform(d: Doc) -> None:
    tex = d.image(_checker((230, 230, 230), (200, 40, 60)), LINEAR_MIPMAPS)
    material = _pbr((1, 1, 1, 1), 0.0, 0.6)
    transform = {"offset": [0.25, 0.1], "rotation": 0.4, "scale": [2.0, 1.5]}
    material["pbrMetallicRoughness"]["baseColorTexture"] = {
        "index": tex, "extensions": {"KHR_texture_transform": transform}}  # fmt: skip
    d.node("Card", mesh=d.mesh(quad(2.4), material), rotation=[0.0, 0.2, 0.0, 0.98])
    _uses(d, "KHR_texture_transform")


def _ball(d: Doc, name: str, ext: dict, base=(0.8, 0.3, 0.1, 1.0), metallic=0.0, rough=0.5):
    d.node("Ball", mesh=d.mesh(sphere(), _pbr(base, metallic, rough, extensions={name: ext})))
    _uses(d, name)


def _behind(d: Doc) -> None:
    """A checker card behind the ball, for the cases that show what lies behind."""
    tex = d.image(_checker((230, 230, 230), (40, 40, 40)), LINEAR_MIPMAPS)
    card = _pbr((1, 1, 1, 1), 0.0, 0.8)
    card["pbrMetallicRoughness"]["baseColorTexture"] = {"index": tex}
    d.node("Card", mesh=d.mesh(quad(3.2, -1.6), card))


def ior(d: Doc) -> None:
    _ball(d, "KHR_materials_ior", {"ior": 2.4}, (0.1, 0.1, 0.1, 1.0), 0.0, 0.3)


def specular(d: Doc) -> None:
    ext = {"specularFactor": 0.8, "specularColorFactor": [0.3, 1.0, 0.5]}
    _ball(d, "KHR_materials_specular", ext, (0.2, 0.2, 0.6, 1.0), 0.0, 0.3)


def clearcoat(d: Doc) -> None:
    ext = {"clearcoatFactor": 1.0, "clearcoatRoughnessFactor": 0.05}
    _ball(d, "KHR_materials_clearcoat", ext, (0.7, 0.1, 0.1, 1.0), 0.0, 0.8)


def sheen(d: Doc) -> None:
    ext = {"sheenColorFactor": [1.0, 0.8, 0.8], "sheenRoughnessFactor": 0.4}
    _ball(d, "KHR_materials_sheen", ext, (0.1, 0.1, 0.35, 1.0), 0.0, 0.9)


def transmission(d: Doc) -> None:
    _behind(d)
    _ball(d, "KHR_materials_transmission", {"transmissionFactor": 1.0}, (1, 1, 1, 1), 0.0, 0.1)


def volume(d: Doc) -> None:
    _behind(d)
    ext = {"KHR_materials_transmission": {"transmissionFactor": 1.0},
           "KHR_materials_volume": {"thicknessFactor": 1.0, "attenuationDistance": 1.0,
                                    "attenuationColor": [0.5, 0.9, 1.0]}}  # fmt: skip
    d.node("Ball", mesh=d.mesh(sphere(), _pbr((1, 1, 1, 1), 0.0, 0.1, extensions=ext)))
    _uses(d, *ext)


def dispersion(d: Doc) -> None:
    _behind(d)
    ext = {"KHR_materials_transmission": {"transmissionFactor": 1.0},
           "KHR_materials_volume": {"thicknessFactor": 1.5},
           "KHR_materials_dispersion": {"dispersion": 3.0}}  # fmt: skip
    d.node("Ball", mesh=d.mesh(sphere(), _pbr((1, 1, 1, 1), 0.0, 0.05, extensions=ext)))
    _uses(d, *ext)


def iridescence(d: Doc) -> None:
    ext = {"iridescenceFactor": 1.0, "iridescenceThicknessMaximum": 400.0}
    _ball(d, "KHR_materials_iridescence", ext, (0.05, 0.05, 0.05, 1.0), 0.0, 0.2)


def anisotropy(d: Doc) -> None:
    ext = {"anisotropyStrength": 0.8, "anisotropyRotation": 0.0}
    _ball(d, "KHR_materials_anisotropy", ext, (0.9, 0.9, 0.9, 1.0), 1.0, 0.4)


CASES = {
    "base colour": base_colour, "default material": default_material, "texture": texture,
    "metal/rough": metal_rough, "emissive": emissive, "unlit": unlit,
    "vertex colour": vertex_colour, "MASK": mask, "BLEND": blend,
    "KHR_texture_transform": texture_transform,
    "KHR_materials_ior": ior, "KHR_materials_specular": specular,
    "KHR_materials_clearcoat": clearcoat, "KHR_materials_sheen": sheen,
    "KHR_materials_transmission": transmission, "KHR_materials_volume": volume,
    "KHR_materials_dispersion": dispersion, "KHR_materials_iridescence": iridescence,
    "KHR_materials_anisotropy": anisotropy,
}  # fmt: skip


def write_case(name: str, folder: Path) -> Path:
    d = _doc()
    CASES[name](d)
    slug = "".join(c if c.isalnum() else "_" for c in name.lower())
    return d.write(folder / f"{slug}.gltf")


# -- models for the docs' pictures (docs/images/look-*.png) ---------------------------------
def _ellipsoid(radii, centre=(0.0, 0.0, 0.0)):
    pos, nrm, uv, idx = sphere()
    radii = np.asarray(radii, np.float32)
    n = nrm / radii
    return (pos * radii + np.asarray(centre, np.float32), n / np.linalg.norm(n, axis=1)[:, None],
            uv, idx)  # fmt: skip


def duck_like(d: Doc) -> None:
    """A yellow toy duck: body, head, orange beak, dark eyes."""
    yellow = _pbr((0.95, 0.72, 0.05, 1.0), 0.0, 0.55)
    d.node("Body", mesh=d.mesh(_ellipsoid((0.95, 0.6, 0.7), (0.0, -0.35, 0.0)), yellow))
    d.node("Head", mesh=d.mesh(_ellipsoid((0.45, 0.45, 0.45), (0.35, 0.45, 0.1)), yellow))
    beak = _pbr((0.9, 0.25, 0.02, 1.0), 0.0, 0.45)
    d.node("Beak", mesh=d.mesh(_ellipsoid((0.28, 0.08, 0.18), (0.8, 0.38, 0.12)), beak))
    eye = _pbr((0.02, 0.02, 0.02, 1.0), 0.0, 0.2)
    for z in (-0.2, 0.32):
        d.node(f"Eye{z}", mesh=d.mesh(_ellipsoid((0.06, 0.07, 0.06), (0.66, 0.58, z)), eye))


def helmet_like(d: Doc) -> None:
    """A flight helmet: a worn metal shell, a leather band, a dark glass visor."""
    shell = _pbr((0.55, 0.52, 0.48, 1.0), 1.0, 0.35)
    d.node("Shell", mesh=d.mesh(_ellipsoid((0.85, 0.8, 0.9), (0.0, 0.05, 0.0)), shell))
    band = _pbr((0.28, 0.14, 0.06, 1.0), 0.0, 0.8)
    d.node("Band", mesh=d.mesh(_ellipsoid((0.9, 0.22, 0.95), (0.0, -0.2, 0.0)), band))
    visor = _pbr((0.05, 0.1, 0.2, 0.7), 0.0, 0.05, alphaMode="BLEND")
    d.node("Visor", mesh=d.mesh(_ellipsoid((0.7, 0.35, 0.5), (0.0, 0.1, 0.55)), visor))


def metal_sphere(d: Doc) -> None:
    d.node("Ball", mesh=d.mesh(sphere(), _pbr((0.95, 0.93, 0.88, 1.0), 1.0, 0.2)))


DOC_MODELS = {"duck-like": duck_like, "helmet-like": helmet_like, "metal sphere": metal_sphere}


def write_model(name: str, folder: Path) -> Path:
    d = _doc(4.2)
    DOC_MODELS[name](d)
    return d.write(folder / f"{name.replace(' ', '-')}.gltf")
