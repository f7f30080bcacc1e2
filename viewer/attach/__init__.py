"""Watching a running program: `publisher` (``viewer.publish``) sends a graph's frames,
`server` receives and checks them in the viewer, `mirror` rebuilds the program's scene,
`program_source` is the frame source that shows it; `protocol` is the wire format
(docs/attach.md)."""
