#version 430
// Between the two phases of cull_instances.comp (viewer/render/culling.py): the work
// groups' counts of full and sprite rows become each group's offsets (an exclusive
// prefix sum: each thread sums a run of groups, the threads' sums are scanned in shared
// memory, then each run is written out), and the totals become the batch's indirect draw
// commands (DrawElementsIndirectCommand: count, instanceCount, firstIndex, baseVertex,
// baseInstance). Commands 0 .. u_commands - 1 draw ranges of the mesh with the full
// rows (the front of the output); command u_commands one point per sprite row (after
// them: baseInstance is where they start).
layout(local_size_x = 256) in;

layout(std430, binding = 0) buffer Work { uint work[]; };
layout(std430, binding = 1) buffer Commands { uint commands[]; };

uniform uint u_groups;
uniform uint u_commands;

shared uvec2 partial[256];

void main() {
    uint t = gl_LocalInvocationID.x;
    uint run = (u_groups + 255u) / 256u;
    uint lo = min(t * run, u_groups);
    uint hi = min(lo + run, u_groups);
    uvec2 sum = uvec2(0u);
    for (uint g = lo; g < hi; ++g) sum += uvec2(work[2u + 2u * g], work[3u + 2u * g]);
    partial[t] = sum;
    barrier();
    for (uint step = 1u; step < 256u; step *= 2u) {  // inclusive scan of the sums
        uvec2 add = t >= step ? partial[t - step] : uvec2(0u);
        barrier();
        partial[t] += add;
        barrier();
    }
    uvec2 total = partial[255];
    uvec2 at = (t > 0u ? partial[t - 1u] : uvec2(0u)) + uvec2(0u, total.x);
    for (uint g = lo; g < hi; ++g) {
        uvec2 count = uvec2(work[2u + 2u * g], work[3u + 2u * g]);
        work[2u + 2u * g] = at.x;
        work[3u + 2u * g] = at.y;
        at += count;
    }
    if (t == 0u) {
        work[0] = total.x;
        work[1] = total.y;
        for (uint k = 0u; k < u_commands; ++k) commands[k * 5u + 1u] = total.x;
        commands[u_commands * 5u + 1u] = total.y;
        commands[u_commands * 5u + 4u] = total.x;
    }
}
