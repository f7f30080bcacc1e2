"""Writing glTF 2.0: sgview's own meshes and motions, and a loaded file carried over
without loss."""
