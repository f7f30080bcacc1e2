"""sgview: a GPU-rendered viewer that makes scene-graph transform propagation visible."""

__version__ = "0.1.0"
