#version 330 core
// Ground grid lines. in_weight is 1 for major lines, 0 for minor ones.
uniform mat4 u_view_proj;
in vec3 in_position;
in float in_weight;
out vec3 v_world_pos;
out float v_weight;

void main() {
    v_world_pos = in_position;
    v_weight = in_weight;
    gl_Position = u_view_proj * vec4(in_position, 1.0);
}
