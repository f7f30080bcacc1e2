"""Bytes that are not UTF-8 read the same in every reader (TOML, .gltf, a .glb's JSON
chunk): one line naming the file, the line, the first bad byte's offset in the file and
its value, and why (the TOML reader once named the byte, the glTF reader the reason).
Generated: a bad byte at a random place in otherwise good text."""

from __future__ import annotations

import re
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from viewer.io.errors import SceneError, decode_utf8
from viewer.io.loader import load_scene

#: Bytes that cannot start (or go on) a UTF-8 character where they are put.
BAD = [b"\xff", b"\xe9 ", b"\xc3(", b"\x80"]
GOOD = st.text(st.characters(codec="utf-8", exclude_characters="\r"), max_size=60)


def glb(json_bytes: bytes) -> bytes:
    padded = json_bytes + b" " * (-len(json_bytes) % 4)
    chunk = struct.pack("<II", len(padded), 0x4E4F534A) + padded
    return b"glTF" + struct.pack("<II", 2, 12 + len(chunk)) + chunk


def message_of(path) -> str:
    with pytest.raises(SceneError) as info:
        load_scene(path)
    return str(info.value)


@settings(max_examples=25, deadline=None)
@given(head=GOOD, tail=GOOD, bad=st.sampled_from(BAD), bom=st.booleans())
@pytest.mark.parametrize("kind", ["toml", "gltf", "glb"])
def test_a_bad_byte_is_named_by_its_offset_in_the_file(tmp_path_factory, kind, head, tail,
                                                       bad, bom):  # fmt: skip
    folder = tmp_path_factory.mktemp("utf8")
    if kind == "toml":
        before = f"# {head}\n".encode() + b'title = "'
        data, what, path = before + bad + f'{tail}"\n'.encode(), "the file", folder / "bad.toml"
        offset, line = len(before), before.count(b"\n") + 1
    else:
        bom_bytes = b"\xef\xbb\xbf" if bom and kind == "gltf" else b""
        before = bom_bytes + f'{{"asset": {{"version": "2.0"}}, "x": "{head}'.encode()
        body = before + bad + f'{tail}"}}'.encode()
        data = body if kind == "gltf" else glb(body)
        what = "the .gltf file" if kind == "gltf" else "the JSON chunk"
        path = folder / f"bad.{kind}"
        # the first byte that is not UTF-8, in the file (a .glb's chunk starts at 20)
        offset, line = len(before) + (20 if kind == "glb" else 0), before.count(b"\n") + 1
    path.write_bytes(data)
    assert data[offset : offset + len(bad)] == bad
    text = message_of(path)
    assert "\n" not in text
    pattern = (rf"{re.escape(str(path))}:{line}: {what} is not UTF-8 text: "
               rf"byte {offset:,} \(0x{bad[0]:02X}\): [a-z ]+")  # fmt: skip
    assert re.fullmatch(pattern, text), text


def test_the_helper_alone():
    assert decode_utf8(b"\xef\xbb\xbfab", "it", "f", bom=True) == "ab"
    with pytest.raises(SceneError, match=r"^f:2: it is not UTF-8 text: byte 104 \(0xFF\): "
                                         "invalid start byte$"):  # fmt: skip
        decode_utf8(b"a\n\xff", "it", "f", start=102)
    assert decode_utf8(b"\xef\xbb\xbfa", "it", "f") == "\ufeffa"  # TOML: text like any
    with pytest.raises(SceneError, match=r"^f:1: .* byte 3 \(0xFF\)"):  # counted in the file
        decode_utf8(b"\xef\xbb\xbf\xff", "it", "f", bom=True)
