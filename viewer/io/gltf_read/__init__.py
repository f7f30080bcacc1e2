"""Reading glTF 2.0: the JSON, buffers and accessors, and the scene built from them."""
