#version 430
// One frame's uploads, scattered on the GPU (viewer/render/scatter.py): the per-slot
// buffers of the parent -> child lines, the node's origin (its matrix's translation,
// floats 3, 7 and 11 of the row-major matrix) and the line's link stamp.
layout(local_size_x = 64) in;

const uint ROW = 20u;

layout(std430, binding = 0) readonly buffer Staged { float staged[]; };
layout(std430, binding = 1) writeonly buffer Origins { float origins[]; };
layout(std430, binding = 2) writeonly buffer LinkTimes { float link_times[]; };

uniform uint u_count;  // staged rows

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= u_count) return;
    uint base = i * ROW;
    uint slot = floatBitsToUint(staged[base + 19u]);
    origins[slot * 3u] = staged[base + 3u];
    origins[slot * 3u + 1u] = staged[base + 7u];
    origins[slot * 3u + 2u] = staged[base + 11u];
    link_times[slot] = staged[base + 18u];
}
