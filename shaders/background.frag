#version 330 core
// Vertical gradient behind the scene.
uniform vec3 u_top;
uniform vec3 u_bottom;
in float v_y;
out vec4 f_color;

void main() {
    f_color = vec4(mix(u_bottom, u_top, clamp(v_y, 0.0, 1.0)), 1.0);
}
