"""What a scene is beyond its transforms: looks, camera, motions, scripted events.

``scene.py`` holds the `Scene` description, ``motion.py`` the motions and events that
move it frame after frame, ``motion_kinds.py`` the table of motion kinds and their
parameters. Built on the transform core (``viewer.scene``); no GL here.
"""
