#version 330 core
// Blinn-Phong: one directional light, a sky/ground ambient, per-instance colour.
// u_unlit = 1 writes the plain colour (used by the pixel tests and the bench baseline).
// A highlighted instance (see instanced.vert) shows its glow by u_glow_style:
//   0 fill: it turns into its glow colour, emissive (at full strength the glow colour with
//     a little shading to keep its shape);
//   1 rim: it keeps its own colour and the glow lights its silhouette (with the halo pass,
//     an outline), so a scene where everything moves keeps its colours;
//   2 heat: the highlight is the node's heat in [0, 1] (how often it was recomputed
//     lately) and every node is drawn in the heat ramp's colour, lit.
// u_textured = 1: the colour is multiplied by the base colour texture (glTF), sampled at
// v_uv, mirrored per axis where u_mirror says so (repeat and clamp are the texture's own).
uniform vec3 u_light_dir;   // towards the light, normalised, world space
uniform vec3 u_eye;         // camera position, world space (perspective)
uniform vec3 u_view_dir;    // camera forward, world space (orthographic)
uniform int u_ortho;
uniform int u_unlit;
uniform int u_halo;
uniform int u_glow_style;   // 0 fill, 1 rim, 2 heat
uniform vec3 u_glow_local;  // red: the node's own value changed
uniform vec3 u_glow_world;  // orange: only its world matrix was recomputed
uniform int u_textured;
uniform sampler2D u_base_tex;
uniform ivec2 u_mirror;

in vec3 v_world_pos;
in vec3 v_normal;
in vec3 v_color;
in float v_highlight;
in vec2 v_uv;

out vec4 f_color;

// Cold to hot: slate blue, violet, orange, pale yellow.
vec3 heat_ramp(float h) {
    vec3 a = vec3(0.22, 0.27, 0.40), b = vec3(0.56, 0.22, 0.62);
    vec3 c = vec3(0.96, 0.50, 0.14), d = vec3(1.00, 0.93, 0.50);
    if (h < 1.0 / 3.0) return mix(a, b, 3.0 * h);
    if (h < 2.0 / 3.0) return mix(b, c, 3.0 * h - 1.0);
    return mix(c, d, 3.0 * h - 2.0);
}

void main() {
    float strength = clamp(abs(v_highlight), 0.0, 1.0);
    vec3 glow = v_highlight < 0.0 ? u_glow_local : u_glow_world;
    if (u_halo == 1) {
        // A paler rim than the body, so the outline reads even against the glow.
        f_color = vec4(mix(glow, vec3(1.0, 0.93, 0.75), 0.45), strength);
        return;
    }
    vec3 base = v_color;
    if (u_textured == 1 && !isnan(v_uv.x)) {
        vec2 uv = v_uv;
        vec2 m = mod(uv, 2.0);
        if (u_mirror.x == 1) uv.x = m.x > 1.0 ? 2.0 - m.x : m.x;
        if (u_mirror.y == 1) uv.y = m.y > 1.0 ? 2.0 - m.y : m.y;
        base *= texture(u_base_tex, uv).rgb;
    }
    if (u_glow_style == 2) {  // the heat is the colour itself
        base = heat_ramp(clamp(v_highlight, 0.0, 1.0));
        strength = 0.0;
    }
    if (u_unlit == 1) {
        f_color = vec4(mix(base, glow, strength), 1.0);
        return;
    }
    float len = length(v_normal);
    vec3 n = len > 0.0 ? v_normal / len : vec3(0.0, 1.0, 0.0);
    vec3 to_eye = u_ortho == 1 ? -u_view_dir : normalize(u_eye - v_world_pos);
    // Two-sided: flat disks and rectangles are seen from both faces.
    if (dot(n, to_eye) < 0.0) n = -n;
    float diffuse = max(dot(n, u_light_dir), 0.0);
    vec3 h = normalize(u_light_dir + to_eye);
    float spec = pow(max(dot(n, h), 0.0), 48.0) * 0.35;
    float sky = 0.5 + 0.5 * n.y;
    vec3 ambient = mix(vec3(0.20, 0.19, 0.18), vec3(0.34, 0.36, 0.40), sky);
    vec3 lit = base * (ambient + 0.78 * diffuse) + vec3(spec);
    if (u_glow_style == 1) {
        // Rim: strongest where the surface turns away from the eye (the silhouette).
        float rim = smoothstep(0.65, 0.15, abs(dot(n, to_eye)));
        lit = mix(lit, glow, strength * rim);
    } else {
        // Glow: emissive, so it reads the same on the lit and the shaded side.
        lit = mix(lit, glow * (0.80 + 0.20 * diffuse), strength);
    }
    f_color = vec4(lit, 1.0);
}
