"""Watching a running program: `publisher` (``viewer.publish``) sends a graph's frames,
`server` receives and checks them in the viewer, `mirror` rebuilds the program's scene,
`adapter` shows it in the session; `protocol` is the wire format (docs/attach.md)."""
