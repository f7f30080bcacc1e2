#version 430
// GPU frustum culling and level of detail of one mesh kind's instance rows
// (viewer/render/culling.py). Each row's bounding sphere (the mesh's local sphere
// u_sphere placed by the row's world matrix and look size) is tested against the six
// frustum planes; a row inside is copied to the output rows: from the front when drawn
// as the full mesh, from the back (a point sprite) when its projected diameter is under
// u_lod_px pixels. counts[0] and counts[1] count the two; cull_finish.comp turns them
// into the indirect draw commands. The radius for the test is the sphere's times the
// Frobenius norm of the 3x3 (never less than its largest stretch: nothing visible is
// culled); the projected size uses the longest column (the size it looks).
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Matrices { float matrices[]; };
layout(std430, binding = 1) readonly buffer Looks { float looks[]; };
layout(std430, binding = 2) readonly buffer Stamps { vec2 stamps[]; };
layout(std430, binding = 3) writeonly buffer OutMatrices { float out_matrices[]; };
layout(std430, binding = 4) writeonly buffer OutLooks { float out_looks[]; };
layout(std430, binding = 5) writeonly buffer OutStamps { vec2 out_stamps[]; };
layout(std430, binding = 6) buffer Counts { uint counts[]; };

uniform uint u_rows;
uniform vec4 u_planes[6];   // xyz . p + w >= 0 inside, xyz normalised
uniform vec4 u_sphere;      // the mesh's local bounding sphere: centre, radius
uniform vec4 u_w_row;       // the view-projection's last row: clip w of a point
uniform float u_px_scale;   // pixels per world unit at clip w = 1
uniform float u_lod_px;     // under this projected diameter: a sprite (0: never)

vec3 column(uint base, uint k) {
    return vec3(matrices[base + 4u * k], matrices[base + 4u * k + 1u],
                matrices[base + 4u * k + 2u]);
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= u_rows) return;
    uint m = i * 16u;
    uint l = i * 6u;
    vec3 c0 = column(m, 0u) * looks[l + 3u];
    vec3 c1 = column(m, 1u) * looks[l + 4u];
    vec3 c2 = column(m, 2u) * looks[l + 5u];
    vec3 centre = c0 * u_sphere.x + c1 * u_sphere.y + c2 * u_sphere.z + column(m, 3u);
    vec3 lengths = vec3(dot(c0, c0), dot(c1, c1), dot(c2, c2));
    vec3 across = abs(vec3(dot(c1, c2), dot(c0, c2), dot(c0, c1)));
    float stretch2 = max(lengths.x + across.y + across.z,
                         max(lengths.y + across.x + across.z, lengths.z + across.x + across.y));
    float bound = u_sphere.w * sqrt(stretch2);
    for (int k = 0; k < 6; ++k) {
        if (dot(u_planes[k].xyz, centre) + u_planes[k].w < -bound) return;  // outside
    }
    float w = dot(u_w_row.xyz, centre) + u_w_row.w;
    float reach = u_sphere.w * sqrt(max(lengths.x, max(lengths.y, lengths.z)));
    bool sprite = u_lod_px > 0.0 && w > bound && 2.0 * reach * u_px_scale < u_lod_px * w;
    uint at = sprite ? u_rows - 1u - atomicAdd(counts[1], 1u) : atomicAdd(counts[0], 1u);
    for (uint k = 0u; k < 16u; ++k) out_matrices[at * 16u + k] = matrices[m + k];
    for (uint k = 0u; k < 6u; ++k) out_looks[at * 6u + k] = looks[l + k];
    out_stamps[at] = stamps[i];
}
