#version 430
// GPU frustum culling and level of detail of one mesh kind's instance rows
// (viewer/render/culling.py), in two phases around cull_finish.comp, so that the rows
// kept come out in the order they went in (the order the batch is drawn in without
// culling: ties in depth resolve alike, from frame to frame).
//
// Phase 0 classifies each row: its bounding sphere (the mesh's local sphere u_sphere
// placed by the row's world matrix and look size) tested against the six frustum planes:
// 0 outside, 1 drawn as the full mesh, 2 a point sprite (inside, and its projected
// diameter under u_lod_px pixels); it keeps the class and counts each work group's full
// and sprite rows. cull_finish.comp turns the counts into each group's offsets. Phase 1
// copies each kept row to the output rows: the full ones from the front, the sprites
// after them, each in row order.
//
// The radius for the test is the sphere's times a bound of the 3x3's largest stretch
// (Gershgorin's on the Gram matrix of its columns: exact for a rotation times a scale,
// above it under shear, so nothing visible is culled); the projected size uses the
// longest column (the size it looks).
//
// work: [0] full rows, [1] sprite rows (cull_finish's totals); [2 + 2g], [3 + 2g] group
// g's counts, then its offsets; [2 + 2 u_groups + i] row i's class.
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Matrices { float matrices[]; };
layout(std430, binding = 1) readonly buffer Looks { float looks[]; };
layout(std430, binding = 2) readonly buffer Stamps { vec2 stamps[]; };
layout(std430, binding = 3) writeonly buffer OutMatrices { float out_matrices[]; };
layout(std430, binding = 4) writeonly buffer OutLooks { float out_looks[]; };
layout(std430, binding = 5) writeonly buffer OutStamps { vec2 out_stamps[]; };
layout(std430, binding = 6) buffer Work { uint work[]; };

uniform uint u_phase;
uniform uint u_rows;
uniform uint u_groups;
uniform vec4 u_planes[6];   // xyz . p + w >= 0 inside, xyz normalised
uniform vec4 u_sphere;      // the mesh's local bounding sphere: centre, radius
uniform vec4 u_w_row;       // the view-projection's last row: clip w of a point
uniform float u_px_scale;   // pixels per world unit at clip w = 1
uniform float u_lod_px;     // under this projected diameter: a sprite (0: never)

shared uint group_full;
shared uint group_sprites;
shared uint classes[64];

vec3 column(uint base, uint k) {
    return vec3(matrices[base + 4u * k], matrices[base + 4u * k + 1u],
                matrices[base + 4u * k + 2u]);
}

uint classify(uint i) {
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
        if (dot(u_planes[k].xyz, centre) + u_planes[k].w < -bound) return 0u;  // outside
    }
    float w = dot(u_w_row.xyz, centre) + u_w_row.w;
    float reach = u_sphere.w * sqrt(max(lengths.x, max(lengths.y, lengths.z)));
    bool sprite = u_lod_px > 0.0 && w > bound && 2.0 * reach * u_px_scale < u_lod_px * w;
    return sprite ? 2u : 1u;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint lid = gl_LocalInvocationID.x;
    uint g = gl_WorkGroupID.x;
    uint class_at = 2u + 2u * u_groups;
    if (u_phase == 0u) {
        if (lid == 0u) {
            group_full = 0u;
            group_sprites = 0u;
        }
        barrier();
        uint c = i < u_rows ? classify(i) : 0u;
        if (i < u_rows) work[class_at + i] = c;
        if (c == 1u) atomicAdd(group_full, 1u);
        if (c == 2u) atomicAdd(group_sprites, 1u);
        barrier();
        if (lid == 0u) {
            work[2u + 2u * g] = group_full;
            work[3u + 2u * g] = group_sprites;
        }
        return;
    }
    uint c = i < u_rows ? work[class_at + i] : 0u;
    classes[lid] = c;
    barrier();
    if (c == 0u) return;
    uint rank = 0u;  // kept rows of this class before this one in the group
    for (uint j = 0u; j < lid; ++j) rank += classes[j] == c ? 1u : 0u;
    uint at = work[(c == 1u ? 2u : 3u) + 2u * g] + rank;  // (sprites: after the full rows)
    uint m = i * 16u;
    uint l = i * 6u;
    for (uint k = 0u; k < 16u; ++k) out_matrices[at * 16u + k] = matrices[m + k];
    for (uint k = 0u; k < 6u; ++k) out_looks[at * 6u + k] = looks[l + k];
    out_stamps[at] = stamps[i];
}
