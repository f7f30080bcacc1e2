"""The scene-graph core: pure numpy (and numba), no GL. See docs/api.md."""

from .errors import HierarchyError
from .graph import SceneGraph
from .node import Node
from .report import FrameReport

__all__ = ["FrameReport", "HierarchyError", "Node", "SceneGraph"]
