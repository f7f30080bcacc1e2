"""Scene files in and out: the native TOML format, glTF 2.0 import, generated scenes.

Everything here is pure Python and numpy (no GL). Loading never raises anything but
`SceneError` (a `ValueError`), whose message is one line naming the file, the line when
known, the node and the field::

    scenes/bad.toml:12: node 'Obj3', field 'position': expected 3 numbers, got 2
"""

from viewer.io.errors import SceneError
from viewer.io.generate import default_scene, generate_scene
from viewer.io.loader import load_scene
from viewer.io.save import save_scene
from viewer.io.watch import SceneWatcher

__all__ = [
    "SceneError",
    "SceneWatcher",
    "default_scene",
    "generate_scene",
    "load_scene",
    "save_scene",
]
