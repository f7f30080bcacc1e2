#version 330 core
// Lines fade out towards the rim of the grid so it has no hard edge.
uniform vec3 u_center;
uniform float u_radius;
uniform vec3 u_minor_color;
uniform vec3 u_major_color;
in vec3 v_world_pos;
in float v_weight;
out vec4 f_color;

void main() {
    float d = length(v_world_pos - u_center) / u_radius;
    float fade = 1.0 - smoothstep(0.55, 1.0, d);
    vec3 c = mix(u_minor_color, u_major_color, v_weight);
    f_color = vec4(c, fade * mix(0.55, 0.9, v_weight));
}
