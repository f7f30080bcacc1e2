#version 330 core
// Each lit line becomes a strip u_width_px pixels wide on screen (GL lines wider than one
// pixel are not portable), in the glow colour with the line's strength as opacity; an
// unlit line emits nothing. Vertex 1 of a line is the child, whose stamp is the line's.
layout(lines) in;
layout(triangle_strip, max_vertices = 4) out;

uniform vec2 u_viewport;    // pixels
uniform float u_width_px;
uniform vec3 u_color;

in float v_strength[];
out vec4 g_color;

void main() {
    float s = v_strength[1];
    vec4 a = gl_in[0].gl_Position;
    vec4 b = gl_in[1].gl_Position;
    if (s <= 0.0 || a.w <= 0.0 || b.w <= 0.0) return;
    vec2 d = (b.xy / b.w - a.xy / a.w) * u_viewport;  // on screen, in pixels (x2)
    float len = length(d);
    if (len < 1e-6) return;
    vec2 side = vec2(-d.y, d.x) / len * u_width_px / u_viewport;  // half width, in NDC
    g_color = vec4(u_color, s);
    gl_Position = vec4(a.xy - side * a.w, a.zw); EmitVertex();
    gl_Position = vec4(a.xy + side * a.w, a.zw); EmitVertex();
    gl_Position = vec4(b.xy - side * b.w, b.zw); EmitVertex();
    gl_Position = vec4(b.xy + side * b.w, b.zw); EmitVertex();
    EndPrimitive();
}
