"""The session: the scene on show and the frame's schedule, with its rooms for editing (undo
steps) and for scene files (open, reload, save), and the frame source protocol it
implements (`source.py`). No window and no GL."""
