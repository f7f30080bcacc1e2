#version 330 core
// Coloured line segments: world axes, the selection outline.
uniform mat4 u_view_proj;
in vec3 in_position;
in vec4 in_color;
out vec4 v_color;

void main() {
    v_color = in_color;
    gl_Position = u_view_proj * vec4(in_position, 1.0);
}
