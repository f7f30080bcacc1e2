"""The window app: the moderngl-window app that is the frame runner's screen, its input,
the run loop that opens a window (or a headless one), and what a run keeps of the picture."""
