#version 430
// After cull_instances.comp (viewer/render/culling.py): the counts of one mesh kind's
// rows kept become its indirect draw commands (DrawElementsIndirectCommand: count,
// instanceCount, firstIndex, baseVertex, baseInstance), and the counts go back to zero
// for the next frame. Commands 0 .. u_commands - 1 draw ranges of the mesh with the
// full-mesh rows (the front of the output); command u_commands draws one point per
// sprite row (the back: baseInstance is where they start).
layout(local_size_x = 1) in;

layout(std430, binding = 0) buffer Counts { uint counts[]; };
layout(std430, binding = 1) buffer Commands { uint commands[]; };

uniform uint u_commands;
uniform uint u_rows;

void main() {
    uint full = counts[0];
    uint sprites = counts[1];
    for (uint k = 0u; k < u_commands; ++k) commands[k * 5u + 1u] = full;
    commands[u_commands * 5u + 1u] = sprites;
    commands[u_commands * 5u + 4u] = u_rows - sprites;
    counts[0] = 0u;
    counts[1] = 0u;
}
