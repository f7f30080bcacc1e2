#version 430
// One frame's uploads, scattered on the GPU (viewer/render/scatter.py): each staged row
// carries a node's world matrix (16 floats, row-major: transposed here, where it is free),
// its glow stamp (2), its link stamp (1) and its pre-order slot (1, as uint bits). This pass writes one mesh kind's
// instance rows: the row of a slot is found by binary search in the batch's ascending
// slots; a slot not in the batch writes nothing.
layout(local_size_x = 64) in;

const uint ROW = 20u;

layout(std430, binding = 0) readonly buffer Staged { float staged[]; };
layout(std430, binding = 1) readonly buffer Slots { uint slots[]; };
layout(std430, binding = 2) writeonly buffer Matrices { float matrices[]; };
layout(std430, binding = 3) writeonly buffer Stamps { float stamps[]; };

uniform uint u_count;  // staged rows
uniform uint u_rows;  // rows of the batch

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= u_count) return;
    uint base = i * ROW;
    uint slot = floatBitsToUint(staged[base + 19u]);
    uint lo = 0u, hi = u_rows;
    while (lo < hi) {
        uint mid = (lo + hi) / 2u;
        if (slots[mid] < slot) lo = mid + 1u; else hi = mid;
    }
    if (lo >= u_rows || slots[lo] != slot) return;
    for (uint k = 0u; k < 16u; ++k) {  // column-major out: column k / 4, row k % 4
        matrices[lo * 16u + k] = staged[base + (k % 4u) * 4u + k / 4u];
    }
    stamps[lo * 2u] = staged[base + 16u];
    stamps[lo * 2u + 1u] = staged[base + 17u];
}
