#version 330 core
// Parent -> child lines. Vertices are the nodes' world origins (one per node, written
// only for executed nodes); an element buffer pairs each child with its parent.
uniform mat4 u_view_proj;
in vec3 in_position;

void main() {
    gl_Position = u_view_proj * vec4(in_position, 1.0);
}
