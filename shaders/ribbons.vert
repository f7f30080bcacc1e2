#version 330 core
// Lit parent -> child lines (viewer/render/ribbons.py), from the same buffers as the plain
// lines: each node's world origin and, per node, the time it and its parent were last
// recomputed in the same frame (the line is on a change's path then; viewer/render/
// glow.py). The strength fades from the current time like a node's glow (Glow's
// strength_of_times is this formula's CPU twin); ribbons.geom widens the line.
uniform mat4 u_view_proj;
uniform float u_time;   // simulation seconds (the stamps' clock)
uniform float u_fade;   // seconds from full glow to none; <= 0: one frame

in vec3 in_position;
in float in_link_time;

out float v_strength;

void main() {
    gl_Position = u_view_proj * vec4(in_position, 1.0);
    float age = max(u_time - in_link_time, 0.0);
    float s = u_fade > 0.0 ? clamp(1.0 - age / u_fade, 0.0, 1.0) : (age == 0.0 ? 1.0 : 0.0);
    v_strength = s < 1e-4 ? 0.0 : s;
}
