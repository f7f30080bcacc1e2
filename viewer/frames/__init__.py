"""The frame runner: one redraw's stages, from the frame source to the drawn picture (no GL)."""
