"""Hostile input, round three (issue 26): helpers live in tests/hostile_gltf.py."""
