"""Which glTF extensions sgview honours, and what it does with the others.

glTF 2.0 (section 3.12): an extension in ``extensionsRequired`` must be understood for
the file to be drawn right; one only in ``extensionsUsed`` may be ignored, the file then
drawn by the core specification. So:

- a required extension sgview cannot honour is refused in one line that names it (never
  a silently wrong picture);
- an optional one it does not support gets one note (stderr, and the animation panel's
  notes), and the file loads as the core spec draws it.

docs/viewer.md has the same list as a table (a test keeps the two in step).
"""

from __future__ import annotations

from viewer.io.gltf_read.data import GltfFile
from viewer.text import quoted

__all__ = ["SUPPORTED", "check_extensions"]

#: Extension -> what sgview does with it (the docs table's wording).
SUPPORTED = {
    "KHR_draco_mesh_compression": "decoded with DracoPy",
    "EXT_meshopt_compression": "decoded with meshoptimizer",
    "KHR_mesh_quantization": "integer positions, normals and coordinates",
    "EXT_mesh_gpu_instancing": "instances drawn at their node's world matrix",
    "KHR_animation_pointer": "node TRS and morph weights played; other pointers noted",
    "KHR_materials_unlit": "materials",
    "KHR_texture_transform": "materials",
    "KHR_materials_emissive_strength": "materials",
    "KHR_materials_ior": "materials",
    "KHR_materials_specular": "materials",
    "KHR_materials_clearcoat": "materials",
    "KHR_materials_sheen": "materials",
    "KHR_materials_transmission": "materials, with a pass of what lies behind",
    "KHR_materials_volume": "materials, with transmission",
    "KHR_materials_iridescence": "materials",
    "KHR_materials_anisotropy": "materials",
    "KHR_materials_dispersion": "materials, with transmission",
    "KHR_materials_variants": "materials: --variant and the scene panel",
    "KHR_materials_pbrSpecularGlossiness": "converted to metallic-roughness",
    "KHR_texture_basisu": "textures: KTX2 transcoded with opengl_basisu",
    "EXT_texture_webp": "textures: WebP decoded with Pillow",
    "EXT_texture_avif": "textures: AVIF decoded with Pillow",
    "KHR_lights_punctual": "lights",
    "KHR_xmp_json_ld": "metadata: nothing to draw",
}


def check_extensions(gltf: GltfFile) -> list[str]:
    """Refuse a file that requires an extension sgview cannot honour; the notes for the
    optional ones it leaves out (one per extension)."""
    required = _names(gltf, "extensionsRequired")
    missing = [name for name in required if name not in SUPPORTED]
    if missing:
        names = ", ".join(quoted(name, 60) for name in missing)
        raise gltf.error(
            None,
            f"requires the extension{'s' * (len(missing) > 1)} {names}, "
            "which sgview cannot honour (see docs/viewer.md)",
        )
    notes = []
    for name in _names(gltf, "extensionsUsed"):
        if name not in SUPPORTED and name not in required:
            notes.append(
                f"{gltf.display}: optional extension {quoted(name, 60)} is not supported: "
                "drawn by the core glTF spec without it"
            )
    return notes


def _names(gltf: GltfFile, key: str) -> list[str]:
    """The extension names listed under `key` (strings only, each once, in order)."""
    names: list[str] = []
    for name in gltf.array(key):
        if isinstance(name, str) and name not in names:
            names.append(name)
    return names
