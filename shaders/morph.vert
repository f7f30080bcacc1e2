#version 330 core
// Morph targets (glTF 3.7.2.2), run as a transform-feedback pass: each vertex of a mesh's
// base shape in, the morphed vertex out (the same layout), into the morphed node's own
// vertex buffer, which the node pass then draws like any mesh. It runs only when the
// node's weights change. position = base + sum_t w_t * dP_t, normal likewise with dN_t
// (renormalised when shaded). Deltas are texels of u_deltas, row-major with
// u_width texels per row: target t's delta of vertex v at t * u_vertices + v, the normal
// deltas after all the position deltas.
//
// The vertex's other attributes (colour, coordinates...) are copied as they are:
// viewer/render/morph.py declares them from the mesh vertex layout and puts their
// copies in pass_through(), replacing the two lines marked below.
uniform sampler2D u_deltas;
uniform int u_width;
uniform int u_count;     // targets
uniform int u_vertices;  // vertices of the mesh
uniform int u_normals;   // 1: normal deltas follow the position deltas
uniform float u_weights[64];

in vec3 in_position;
in vec3 in_normal;
out vec3 out_position;
out vec3 out_normal;
// @declarations
void pass_through() {}  // @pass_through

vec3 delta(int i) {
    return texelFetch(u_deltas, ivec2(i % u_width, i / u_width), 0).xyz;
}

void main() {
    vec3 p = in_position;
    vec3 n = in_normal;
    for (int t = 0; t < u_count; t++) {
        float w = u_weights[t];
        if (w == 0.0) continue;
        p += w * delta(t * u_vertices + gl_VertexID);
        if (u_normals == 1) n += w * delta((u_count + t) * u_vertices + gl_VertexID);
    }
    out_position = p;
    out_normal = n;
    pass_through();
}
