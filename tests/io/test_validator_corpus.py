"""The Khronos glTF-Validator's own test corpus (../shared/gltf-validator-corpus): every
file the validator finds valid (0 errors) loads; every invalid one is either refused in
one line or loads where its errors cannot change what is drawn.

"Cannot change what is drawn" is decided per error, from the validator's report: an error
whose JSON pointer lies in an object the drawn scene never reads (an unused accessor, a
mesh no node of the default scene shows, a light no node uses...) changes nothing; an error in what
is read must have its code in `HARMLESS`, each with the reason it changes nothing in
sgview's picture. Files load in-process (the whole corpus takes a few seconds).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from viewer.io import SceneError, load_scene

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "gltf-validator-corpus"
if not CORPUS.is_dir():
    CORPUS = Path("/work/shared/gltf-validator-corpus")

#: Error codes that may stand in what the scene reads, and why sgview's picture is the
#: same as for the corrected file.
HARMLESS = {
    # Declared bounds and metadata sgview does not use (it computes bounds from the data).
    "ACCESSOR_MIN_MISMATCH": "min/max are not read: bounds come from the data",
    "ACCESSOR_MAX_MISMATCH": "min/max are not read: bounds come from the data",
    "ACCESSOR_ELEMENT_OUT_OF_MIN_BOUND": "min/max are not read: bounds come from the data",
    "ACCESSOR_ELEMENT_OUT_OF_MAX_BOUND": "min/max are not read: bounds come from the data",
    "MESH_PRIMITIVE_POSITION_ACCESSOR_WITHOUT_BOUNDS": "min/max are not read",
    "ANIMATION_SAMPLER_INPUT_ACCESSOR_WITHOUT_BOUNDS": "min/max are not read",
    "ACCESSOR_MATRIX_ALIGNMENT": "numpy reads unaligned data exactly",
    "ACCESSOR_OFFSET_ALIGNMENT": "numpy reads unaligned data exactly",
    "ACCESSOR_TOTAL_OFFSET_ALIGNMENT": "numpy reads unaligned data exactly",
    "MESH_PRIMITIVE_ACCESSOR_UNALIGNED": "numpy reads unaligned data exactly",
    "BUFFER_VIEW_TARGET_OVERRIDE": "the target hint is not read",
    "MESH_PRIMITIVE_INDICES_ACCESSOR_WITH_BYTESTRIDE": "the stride is honoured as given",
    "ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE": "the stride is honoured as given",
    "SKIN_IBM_ACCESSOR_WITH_BYTESTRIDE": "the stride is honoured as given",
    "MESH_PRIMITIVE_ACCESSOR_WITHOUT_BYTESTRIDE": "tightly packed, as without a stride",
    "BUFFER_BYTE_LENGTH_MISMATCH": "only the declared bytes are read",
    "BUFFER_VIEW_TOO_LONG": "only the bytes accessors use are read, each checked",
    "ACCESSOR_TOO_LONG": "accessors are checked against their view when read",
    # Values sgview normalises as the spec asks of files.
    "ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION": "rotations are normalised",
    "ROTATION_NON_UNIT": "rotations are normalised",
    "ACCESSOR_WEIGHTS_NON_NORMALIZED": "skin weights are normalised to sum to 1",
    "ACCESSOR_VECTOR3_NON_UNIT": "normals are normalised in the shader",
    "ACCESSOR_NON_CLAMPED": "colours are clamped to [0, 1]",
    # What sgview does not draw: tangents, joint sets beyond the first, the skeleton hint.
    "ACCESSOR_INVALID_SIGN": "tangents are not read",
    "MESH_PRIMITIVE_NO_TANGENT_SPACE": "tangents are not read",
    "MESH_PRIMITIVE_INDEXED_SEMANTIC_CONTINUITY": "JOINTS_1/WEIGHTS_1 sets are not read",
    "ACCESSOR_JOINTS_INDEX_DUPLICATE": "in JOINTS_1, which is not read",
    "ACCESSOR_JOINTS_INDEX_OOB": "in JOINTS_1, which is not read",
    "SKIN_SKELETON_INVALID": "the skeleton hint is not read",
    "SKIN_NO_COMMON_ROOT": "joint matrices are world x inverse bind, whatever the roots",
    "NODE_SKIN_WITH_NON_SKINNED_MESH": "a mesh without weights is drawn at its node",
    "ANIMATION_CHANNEL_TARGET_NODE_WEIGHTS_NO_MORPHS": "the channel moves nothing; skipped",
    "NODE_MATRIX_TRS": "the matrix wins, as the spec says TRS may not be given with it",
    "ANIMATION_CHANNEL_TARGET_NODE_MATRIX": "the channel drives TRS; the matrix is the start",
    "ANIMATION_DUPLICATE_TARGETS": "the later channel wins",
    # Declarations and places of extensions: the data is read the same either way.
    "UNDECLARED_EXTENSION": "an extension object is read where it stands",
    "NON_REQUIRED_EXTENSION": "the extension is handled whether required or not",
    "UNEXPECTED_EXTENSION_OBJECT": "an extension in an unexpected place is not read",
    "ASSET_MIN_VERSION_GREATER_THAN_VERSION": "the version is 2.x either way",
    "IMAGE_MIME_TYPE_INVALID": "images are decoded by their content",
    "TEXTURE_INVALID_IMAGE_MIME_TYPE": "images are decoded by their content",
    "BUFFER_DATA_URI_MIME_TYPE_INVALID": "data URIs are decoded by their base64 payload",
    "GLB_UNEXPECTED_BIN_CHUNK": "the BIN chunk is only read through buffer 0",
    "GLB_DUPLICATE_CHUNK": "the first BIN chunk is read",
    "GLB_CHUNK_LENGTH_UNALIGNED": "chunks are read by their stated length",
    "EMPTY_ENTITY": "an empty array or object holds nothing to draw",
    "INVALID_JSON": "only for a UTF-8 byte order mark, which is skipped",
}

#: Vertex attributes sgview reads; errors in others (TANGENT, TEXCOORD_2, JOINTS_1...)
#: change nothing it draws.
READ_ATTRIBUTES = {"POSITION", "NORMAL", "TEXCOORD_0", "TEXCOORD_1", "COLOR_0", "JOINTS_0",
                   "WEIGHTS_0"}  # fmt: skip
#: Extension objects sgview reads (at the root, on nodes, materials, textures, animation
#: targets); errors inside any other extension object change nothing it draws.
#: KHR_animation_pointer: a pointer it cannot follow is skipped with a note.
READ_EXTENSIONS = {"EXT_mesh_gpu_instancing", "KHR_draco_mesh_compression",
                   "EXT_meshopt_compression", "KHR_lights_punctual", "KHR_materials_unlit",
                   "KHR_materials_emissive_strength", "KHR_texture_transform"}  # fmt: skip
#: Where the file's lights are (KHR_lights_punctual); a node refers to one by index.
LIGHTS = "/extensions/KHR_lights_punctual/lights"
#: A material's textures (all read: metallic-roughness shading, glTF 2.0 3.9).
PBR_TEXTURES = ("baseColorTexture", "metallicRoughnessTexture")
MATERIAL_TEXTURES = ("normalTexture", "occlusionTexture", "emissiveTexture")


def _cases() -> list[tuple[Path, dict]]:
    if not CORPUS.is_dir():
        return []
    out = []
    for report in sorted(CORPUS.rglob("*.report.json")):
        out.append((report.with_name(report.name[: -len(".report.json")]), report))
    return out


CASES = _cases()


def _load(path: Path):
    try:
        return load_scene(path)
    except SceneError as exc:
        return exc


def test_the_corpus_is_there():
    if os.environ.get("CI") == "true" or CORPUS.is_dir():
        assert len(CASES) > 300, CORPUS


def _read_objects(doc: dict) -> set[str]:
    """JSON pointers of the objects the default scene makes the loader read (nodes of
    the scene, their meshes, skins and cameras, the accessors, views and buffers behind
    them, the materials, textures, images and samplers, and the animations)."""
    seen: set[str] = set()

    def get(kind, i):
        items = doc.get(kind)
        if isinstance(items, list) and isinstance(i, int | float) and 0 <= i < len(items):
            return int(i), items[int(i)]
        return None, None

    def accessor(i):
        i, acc = get("accessors", i)
        if acc is None or not isinstance(acc, dict):
            return
        seen.add(f"/accessors/{i}")
        views = [acc.get("bufferView")]
        sparse = acc.get("sparse") if isinstance(acc.get("sparse"), dict) else {}
        for part in ("indices", "values"):
            if isinstance(sparse.get(part), dict):
                views.append(sparse[part].get("bufferView"))
        for v in views:
            view(v)

    def view(v):
        v, bv = get("bufferViews", v)
        if bv is None or not isinstance(bv, dict):
            return
        seen.add(f"/bufferViews/{v}")
        b, _ = get("buffers", bv.get("buffer"))
        if b is not None:
            seen.add(f"/buffers/{b}")

    def texture(info):
        if not isinstance(info, dict):
            return
        t, tex = get("textures", info.get("index"))
        if tex is None or not isinstance(tex, dict):
            return
        seen.add(f"/textures/{t}")
        s, _ = get("samplers", tex.get("sampler"))
        if s is not None:
            seen.add(f"/samplers/{s}")
        im, image = get("images", tex.get("source"))
        if image is not None:
            seen.add(f"/images/{im}")
            if isinstance(image, dict):
                view(image.get("bufferView"))

    nodes = doc.get("nodes") if isinstance(doc.get("nodes"), list) else []
    for n, node in enumerate(nodes):
        if not isinstance(node, dict):
            continue
        seen.add(f"/nodes/{n}")
        m, mesh = get("meshes", node.get("mesh"))
        if mesh is not None:
            seen.add(f"/meshes/{m}")
            for prim in mesh.get("primitives", []) if isinstance(mesh, dict) else []:
                if not isinstance(prim, dict):
                    continue
                attrs = prim.get("attributes") if isinstance(prim.get("attributes"), dict) else {}
                for value in attrs.values():
                    accessor(value)
                accessor(prim.get("indices"))
                for target in prim.get("targets") or []:
                    for value in target.values() if isinstance(target, dict) else []:
                        accessor(value)
                mi, material = get("materials", prim.get("material"))
                if material is not None:
                    seen.add(f"/materials/{mi}")
                    material = material if isinstance(material, dict) else {}
                    pbr = material.get("pbrMetallicRoughness")
                    pbr = pbr if isinstance(pbr, dict) else {}
                    for info in [pbr.get(t) for t in PBR_TEXTURES] + [
                        material.get(t) for t in MATERIAL_TEXTURES
                    ]:
                        texture(info)
        c, camera = get("cameras", node.get("camera"))
        if camera is not None:  # looked through with --camera and the C key
            seen.add(f"/cameras/{c}")
        ext = node.get("extensions") if isinstance(node.get("extensions"), dict) else {}
        light = ext.get("KHR_lights_punctual")
        if isinstance(light, dict) and isinstance(light.get("light"), int | float):
            seen.add(f"{LIGHTS}/{int(light['light'])}")  # lights are read through nodes
        s, skin = get("skins", node.get("skin"))
        if skin is not None and mesh is not None:
            seen.add(f"/skins/{s}")
            accessor(skin.get("inverseBindMatrices"))
    for a, anim in enumerate(doc.get("animations") or []):
        seen.add(f"/animations/{a}")
        for sampler in anim.get("samplers", []) if isinstance(anim, dict) else []:
            if isinstance(sampler, dict):
                accessor(sampler.get("input"))
                accessor(sampler.get("output"))
    return seen


_COLLECTIONS = {"accessors", "animations", "buffers", "bufferViews", "cameras", "images",
                "materials", "meshes", "samplers", "skins", "textures"}  # fmt: skip


def _json_of(path: Path) -> dict | None:
    """The JSON of a .gltf, or of a .glb's first chunk; None if it does not parse."""
    data = path.read_bytes()
    if data[:4] == b"glTF" and len(data) >= 20:
        length = int.from_bytes(data[12:16], "little")
        data = data[20 : 20 + length]
    try:
        doc = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def _in_read_object(pointer: str, read: set[str], doc: dict) -> bool:
    if pointer.startswith("/extensions/KHR_lights_punctual"):  # only the nodes' lights
        light = "/".join(pointer.split("/")[:5])
        return light in read if light.startswith(f"{LIGHTS}/") else any(
            r.startswith(f"{LIGHTS}/") for r in read)  # fmt: skip
    parts = pointer.split("/")
    for k, part in enumerate(parts[:-1]):
        if part == "extensions" and parts[k + 1] not in READ_EXTENSIONS:
            return False
        if part == "attributes" and parts[k + 1] not in READ_ATTRIBUTES:
            return False
    if len(parts) == 4 and parts[1] == "nodes" and parts[2].isdigit():
        node = doc["nodes"][int(parts[2])]
        if parts[3] in ("skin", "weights") and "mesh" not in node:
            return False  # skins and weights are read only with a mesh
    if len(parts) == 2 and parts[1] in _COLLECTIONS:  # a whole array: read if any item is
        return any(r.startswith(f"/{parts[1]}/") for r in read)
    if len(parts) < 3 or not parts[2].isdigit():
        return True  # a top-level property (the scene, the asset...): read
    return "/".join(parts[:3]) in read


@pytest.mark.skipif(not CASES, reason="the validator corpus is not on this machine")
def test_every_corpus_file_is_loaded_or_refused_by_the_rule():
    problems = []
    for path, report_path in CASES:
        report = json.loads(report_path.read_text())
        errors = [m for m in report["issues"]["messages"] if m["severity"] == 0]
        result = _load(path)
        name = path.relative_to(CORPUS)
        if not errors:
            if isinstance(result, SceneError):
                problems.append(f"{name}: valid, refused: {result}")
            continue
        if isinstance(result, SceneError):
            if "\n" in str(result) or path.name not in str(result):
                problems.append(f"{name}: refusal is not one line naming the file: {result}")
            continue
        doc = _json_of(path)
        read = _read_objects(doc) if doc is not None else None
        for m in errors:
            pointer = m.get("pointer") or ""
            if m["code"] in HARMLESS:
                continue
            if read is not None and pointer and not _in_read_object(pointer, read, doc):
                continue  # in an object the drawn scene never reads
            problems.append(f"{name}: loaded despite {m['code']} at {pointer!r}")
    assert not problems, "\n".join(problems)
