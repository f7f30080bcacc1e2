"""The texture extensions' images: KHR_texture_basisu (KTX2: Basis Universal ETC1S and
UASTC, uncompressed RGBA8), EXT_texture_webp and EXT_texture_avif, decoded to the pixels
they were made from (tests/gltf_textures.py builds them in code); hostile files refused in
one line before anything large is decoded; a save keeps their bytes and extensions."""

from __future__ import annotations

import json
import struct
import sys
import warnings

import numpy as np
import pytest
from gltf_textures import MIME, PIXELS, encode, ktx2_rgba8, textured_quad
from validator import assert_valid

from viewer.io import SceneError, load_scene
from viewer.io.gltf_write.export import save_gltf

#: Largest difference per channel from the source pixels: lossless formats exactly;
#: ETC1S and AVIF are lossy (measured: 2 and 2 on this image).
TOLERANCE = {"webp": 0, "rgba8": 0, "uastc": 0, "etc1s": 8, "avif": 8}


def _pixels(scene) -> np.ndarray:
    part = next(iter(scene.surfaces.values())).parts[0]
    return part.material.base_color_texture.image.pixels


def _refusal(path) -> str:
    """The one-line refusal of loading `path`, with nothing printed and no warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(SceneError) as err:
            load_scene(path)
    message = str(err.value)
    assert "\n" not in message and str(path) in message, message
    return message


@pytest.mark.parametrize("kind", list(TOLERANCE))
def test_each_format_decodes_to_its_source_pixels(tmp_path, kind):
    got = _pixels(load_scene(textured_quad(tmp_path / "t.gltf", kind)))
    assert got.shape == PIXELS.shape and got.dtype == np.uint8
    diff = np.abs(got.astype(int) - PIXELS).max()
    assert diff <= TOLERANCE[kind], (kind, diff)


@pytest.mark.parametrize("kind", ["webp", "uastc"])
def test_the_extension_image_wins_over_the_core_fallback(tmp_path, kind):
    """The fallback PNG is black: what is drawn is the extension's image."""
    path = textured_quad(tmp_path / "t.gltf", kind, fallback=True)
    doc = json.loads(path.read_text())
    assert doc["textures"][0]["source"] == 1 and "extensionsRequired" not in doc
    got = _pixels(load_scene(path))
    assert np.array_equal(got, PIXELS)


def test_the_sampler_is_the_files(tmp_path):
    sampler = {"magFilter": 9729, "minFilter": 9729, "wrapS": 33071, "wrapT": 33648}
    image = next(
        iter(
            load_scene(
                textured_quad(tmp_path / "t.gltf", "etc1s", sampler=sampler)
            ).surfaces.values()
        )
    )
    image = image.parts[0].material.base_color_texture.image  # fmt: skip
    assert image.wrap == (33071, 33648) and not image.nearest and not image.mipmaps


def _patched(data: bytes, at: int, fmt: str, *values) -> bytes:
    out = bytearray(data)
    struct.pack_into(fmt, out, at, *values)
    return bytes(out)


def _webp_claiming(width: int, height: int) -> bytes:
    """A lossless WebP whose VP8L header says `width` x `height` (14 bits each, minus one,
    after the 0x2f signature: the WebP lossless bitstream specification)."""
    data = encode("webp")
    assert data[12:16] == b"VP8L" and data[20] == 0x2F
    bits = struct.unpack_from("<I", data, 21)[0]
    bits = (bits & ~((1 << 28) - 1)) | (width - 1) | ((height - 1) << 14)
    return _patched(data, 21, "<I", bits)


def _avif_claiming(width: int, height: int) -> bytes:
    """An AVIF whose ``ispe`` box (ISO/IEC 23008-12) says `width` x `height`."""
    data = encode("avif")
    at = data.index(b"ispe") + 8  # past the type and the version/flags word
    return _patched(data, at, ">II", width, height)


@pytest.mark.parametrize(
    ("kind", "data", "needle"),
    [
        ("webp", _webp_claiming(10000, 10000), "10000x10000 pixels; sides up to 8192"),
        ("rgba8", ktx2_rgba8(PIXELS, width=100000, height=16), "100000x16 pixels"),
        ("rgba8", ktx2_rgba8(PIXELS, width=4000, height=4000), "holds 1024 bytes"),
        ("avif", _avif_claiming(60000, 60000), "image 0"),
        ("uastc", _patched(encode("uastc"), 20, "<2I", 50000, 50000), "50000x50000 pixels"),
        ("rgba8", ktx2_rgba8(PIXELS, vk_format=131), "vkFormat is 131"),
        ("rgba8", ktx2_rgba8(PIXELS, scheme=2), "supercompressed (Zstandard)"),
        ("webp", encode("png"), "not a WebP image"),
        ("avif", encode("webp"), "not a AVIF image"),
        ("etc1s", encode("png"), "not a KTX2 file"),
        ("webp", b"RIFF\x10\0\0\0WEBPVP8 \x04\0\0\0\0\0\0\0", "not a WebP image"),
    ],
    ids=["webp-bomb", "ktx2-side", "ktx2-short-level", "avif-bomb", "basis-bomb",
          "ktx2-bc7", "ktx2-zstd", "png-as-webp", "webp-as-avif",
         "png-as-ktx2", "webp-garbage"],
)  # fmt: skip
def test_hostile_images_are_one_line(tmp_path, capfd, kind, data, needle):
    message = _refusal(textured_quad(tmp_path / "t.gltf", kind, data=data, mime=None))
    assert needle in message, message
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize("kind", ["etc1s", "uastc", "rgba8", "webp", "avif"])
def test_every_truncation_is_one_line(tmp_path, capfd, kind):
    data = encode(kind)
    for cut in sorted({0, 11, 12, 47, 80, 103, len(data) // 2, len(data) - 1}):
        if cut >= len(data):
            continue
        path = textured_quad(tmp_path / f"t{cut}.gltf", kind, data=data[:cut], mime=None)
        _refusal(path)
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize("kind", ["etc1s", "uastc"])
def test_corrupted_basis_data_loads_or_is_one_line(tmp_path, capfd, kind):
    """Bytes of the Basis payload flipped at random: the transcoder either draws something
    or refuses; it never crashes, hangs or prints."""
    data = encode(kind)
    start = struct.unpack_from("<Q", data, 80)[0]
    rng = np.random.default_rng(7)
    for k in range(40):
        bad = bytearray(data)
        for at in rng.integers(start, len(data), 4):
            bad[at] ^= int(rng.integers(1, 256))
        path = textured_quad(tmp_path / f"c{k}.gltf", kind, data=bytes(bad), mime=None)
        try:
            _pixels(load_scene(path))
        except SceneError as exc:
            assert "\n" not in str(exc)
    assert capfd.readouterr().err == ""


def test_a_wrong_mime_type_names_the_texture_and_field(tmp_path):
    message = _refusal(textured_quad(tmp_path / "t.gltf", "webp", mime="image/png"))
    assert "texture 0 EXT_texture_webp, field 'mimeType'" in message, message
    assert "'image/png', not image/webp" in message


def test_without_the_basis_transcoder_a_ktx2_only_texture_is_refused(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "opengl_basisu", None)  # import fails
    message = _refusal(textured_quad(tmp_path / "t.gltf", "uastc"))
    assert "needs the opengl_basisu package (pip install opengl_basisu)" in message
    scene = load_scene(textured_quad(tmp_path / "f.gltf", "uastc", fallback=True))
    assert np.all(_pixels(scene)[..., :3] == 0)  # the black PNG fallback
    assert any("opengl_basisu" in note for note in scene.animation.notes)


@pytest.mark.parametrize("mime", [None, ""])
@pytest.mark.parametrize("kind", list(TOLERANCE))
def test_a_core_source_of_another_format_is_read_as_what_it_is(tmp_path, kind, mime):
    """Exporters write a KTX2, WebP or AVIF file as a texture's core source without its
    extension (Khronos's AnisotropyBarnLamp glTF-KTX2-Basisu does): drawn, with a note."""
    path = textured_quad(tmp_path / "t.gltf", "png", data=encode(kind), mime=mime)
    scene = load_scene(path)
    diff = np.abs(_pixels(scene).astype(int) - PIXELS).max()
    assert diff <= TOLERANCE[kind], (kind, diff)
    label = {"webp": "WebP", "avif": "AVIF"}.get(kind, "KTX2")
    wanted = f"image 0: a {label} file, not the PNG or JPEG the core allows"
    assert sum(wanted in note for note in scene.animation.notes) == 1, scene.animation.notes


def test_an_image_of_another_format_shown_by_two_textures_is_noted_once(tmp_path):
    path = textured_quad(tmp_path / "t.gltf", "png", data=encode("webp"), mime=None)
    doc = json.loads(path.read_text())
    doc["textures"].append(dict(doc["textures"][0]))
    doc["materials"][0]["emissiveTexture"] = {"index": 1}
    path.write_text(json.dumps(doc))
    notes = load_scene(path).animation.notes
    assert sum("image 0: a WebP file" in note for note in notes) == 1, notes
    assert not any("texture 1" in note for note in notes), notes


def test_a_basis_core_source_without_the_transcoder_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "opengl_basisu", None)  # import fails
    message = _refusal(textured_quad(tmp_path / "t.gltf", "png", data=encode("etc1s")))
    assert "texture 0: its image 0 is a Basis Universal KTX2 file" in message, message
    assert _pixels(load_scene(textured_quad(tmp_path / "p.gltf", "png"))).shape == PIXELS.shape


# ------------------------------------------------------------------------------ export
@pytest.mark.parametrize("name", ["out.glb", "out.gltf"])
def test_a_save_keeps_the_bytes_and_the_extensions(tmp_path, name):
    kinds = ["etc1s", "uastc", "rgba8", "webp", "avif"]
    sources = [textured_quad(tmp_path / f"{k}.gltf", k) for k in kinds]
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    outs = []
    for kind, source in zip(kinds, sources, strict=True):
        scene = load_scene(source)
        out = out_dir / f"{kind}-{name}"
        assert save_gltf(scene, out) == []
        again = load_scene(out)
        assert np.array_equal(_pixels(again), _pixels(scene)), kind
        written = _document(out)
        assert written["textures"][0]["extensions"] == json.loads(source.read_text())[
            "textures"][0]["extensions"]  # fmt: skip
        assert written["extensionsRequired"] == written["extensionsUsed"]
        assert written["images"][0]["mimeType"] == MIME[kind]
        outs.append(out)
    # the validator knows KTX2 and WebP; AVIF it reports only as an unknown extension
    assert_valid([o for o in outs if "rgba8" not in o.name])


def _document(path) -> dict:
    data = path.read_bytes()
    if path.suffix == ".glb":
        return json.loads(data[20 : 20 + int.from_bytes(data[12:16], "little")])
    return json.loads(data)


def test_an_extension_image_that_cannot_be_carried_drops_its_extension(tmp_path):
    """A texture no material uses names a KTX2 file that is not there: the save leaves the
    image out with a note, and the texture's KHR_texture_basisu with it (its ``source`` is
    required), keeping the PNG fallback; the validator finds no error."""
    path = textured_quad(tmp_path / "t.gltf", "uastc", fallback=True)
    doc = json.loads(path.read_text())
    doc["images"].append({"uri": "missing.ktx2", "mimeType": "image/ktx2"})
    doc["textures"].append({"source": 1, "extensions": {"KHR_texture_basisu": {"source": 2}}})
    doc["materials"].append({"pbrMetallicRoughness": {"baseColorTexture": {"index": 1}}})
    path.write_text(json.dumps(doc))
    scene = load_scene(path)
    out = tmp_path / "out.glb"
    notes = save_gltf(scene, out)
    assert notes == ["1 image(s) whose bytes could not be read (left out)"], notes
    written = _document(out)
    assert written["textures"][1] == {"source": 1}
    assert written["textures"][0]["extensions"] == {"KHR_texture_basisu": {"source": 0}}
    assert_valid([out])
