#version 330 core
// Two ways of shading, chosen per draw by u_pbr:
// 0: the built-in meshes (native scenes): Blinn-Phong, one directional light, a
//    sky/ground ambient, the per-instance colour, in display values.
// 1: glTF meshes: the glTF 2.0 metallic-roughness material (the specification's
//    appendix B BRDF: Lambert diffuse, GGX microfacets with the height-correlated Smith
//    visibility and Schlick's Fresnel, mixed by metallic), lit by the file's
//    KHR_lights_punctual lights and an image-based environment (a neutral room, prefiltered
//    for roughness: viewer/render/environment.py), or without the environment
//    (--environment none) the file's lights or a default key light. Colours are linear:
//    base colour and emissive textures are sRGB textures (decoded by the GPU), the result
//    is scaled by the exposure, tone mapped (Khronos PBR Neutral by default) and encoded to
//    sRGB. KHR_materials_unlit: the base colour as is (no exposure, no tone mapping).
//    Alpha: OPAQUE, MASK (u_alpha_cutoff) or BLEND (the renderer draws those last, back
//    to front, without depth writes).
// The material extensions are compiled in only where a scene uses them, one program per
// feature set (viewer/render/shaders.py adds the #defines, material_uniforms.py picks
// them): SPECULAR (KHR_materials_ior and _specular: F0 and F90), CLEARCOAT (a second GGX
// lobe over the material, with its own roughness and normal map), SHEEN (the Charlie
// distribution with the Neubelt visibility, the layer below scaled by its albedo),
// TRANSMISSION (KHR_materials_transmission, _volume, _dispersion: what lies behind,
// sampled from the opaque pass's picture through the refracting surface, attenuated by
// Beer's law), IRIDESCENCE (a thin film's interference in the Fresnel term) and
// ANISOTROPY (the environment sampled about a bent normal, as three.js does).
// u_unlit = 1 writes the plain colour (used by the pixel tests and the bench baseline).
// u_depth_only = 1 is the depth pre-pass (viewer/render/surface_pass.py): only the
// discards run (a glTF back face, a masked texel), so the depth it leaves is the shading
// pass's, and that pass shades each pixel once.
// A highlighted instance (see instanced.vert) shows its glow on top, by u_glow_style:
//   0 fill: it turns into its glow colour, emissive (at full strength the glow colour with
//     a little shading to keep its shape);
//   1 rim: it keeps its own colour and the glow lights its silhouette (with the halo pass,
//     an outline), so a scene where everything moves keeps its colours;
//   2 heat: the highlight is the node's heat in [0, 1] (how often it was recomputed
//     lately) and every node is drawn in the heat ramp's colour, lit (Blinn-Phong).
// The pending look (v_pending > 0: marked by a touch or an edit while paused, not yet
// executed), in every style: no fill; diagonal stripes (PENDING_STRIPE pixels wide) of the
// glow's colour over the node's own, with the halo pass's outline around it. Executed
// nodes are filled solid, so "marked" and "recomputed" never look alike.
uniform vec3 u_light_dir;   // towards the default light, normalised, world space
uniform vec3 u_eye;         // camera position, world space (perspective)
uniform vec3 u_view_dir;    // camera forward, world space (orthographic)
uniform int u_ortho;
uniform int u_unlit;
uniform int u_depth_only;
uniform int u_halo;
uniform int u_glow_style;   // 0 fill, 1 rim, 2 heat
uniform vec3 u_glow_local;  // red: the node's own value changed
uniform vec3 u_glow_world;  // orange: only its world matrix was recomputed

// The material (u_pbr = 1); see viewer/render/material_uniforms.py. BUILTIN_ONLY is
// the built-in meshes' program (viewer/render/renderer.py): the glTF shading compiled
// out, since a software rasteriser (llvmpipe) runs both sides of a branch for every
// fragment, and the glTF side is most of the shader.
#ifdef BUILTIN_ONLY
const int u_pbr = 0;
#else
uniform int u_pbr;
#endif
uniform vec4 u_base_color;
uniform float u_metallic;
uniform float u_roughness;
uniform vec3 u_emissive;
uniform int u_alpha_mode;   // 0 OPAQUE, 1 MASK, 2 BLEND
uniform float u_alpha_cutoff;
uniform int u_double_sided;
uniform int u_mat_unlit;
uniform float u_normal_scale;
uniform float u_occlusion_strength;
// Textures, in this order: base colour, metallic-roughness, normal, occlusion, emissive,
// then the extensions': clearcoat, clearcoat roughness, clearcoat normal, transmission,
// thickness, sheen colour, specular colour, iridescence, iridescence thickness,
// anisotropy, sheen roughness, specular.
const int N_TEX = 17;
uniform sampler2D u_tex0;
uniform sampler2D u_tex1;
uniform sampler2D u_tex2;
uniform sampler2D u_tex3;
uniform sampler2D u_tex4;
uniform sampler2D u_tex5;
uniform sampler2D u_tex6;
uniform sampler2D u_tex7;
uniform sampler2D u_tex8;
uniform sampler2D u_tex9;
uniform sampler2D u_tex10;
uniform sampler2D u_tex11;
uniform sampler2D u_tex12;
uniform sampler2D u_tex13;
uniform sampler2D u_tex14;
uniform sampler2D u_tex15;
uniform sampler2D u_tex16;
uniform int u_tex_on[N_TEX];      // 1: the material has this texture
uniform int u_tex_set[N_TEX];     // its coordinate set: 0 TEXCOORD_0, 1 TEXCOORD_1
uniform vec3 u_tex_row0[N_TEX];   // KHR_texture_transform: u' = dot(row0, (u, v, 1))
uniform vec3 u_tex_row1[N_TEX];   //                        v' = dot(row1, (u, v, 1))
uniform ivec2 u_tex_mirror[N_TEX];  // MIRRORED_REPEAT per axis (the GPU repeats or clamps)
// The extensions' factors (their specifications' defaults change nothing).
uniform float u_ior;
uniform float u_specular;
uniform vec3 u_specular_color;
uniform float u_clearcoat;
uniform float u_clearcoat_roughness;
uniform float u_clearcoat_normal_scale;
uniform vec3 u_sheen_color;
uniform float u_sheen_roughness;
uniform float u_transmission;
uniform float u_thickness;
uniform vec3 u_attenuation_color;
uniform float u_attenuation_distance;  // 0: infinite (no attenuation)
uniform float u_dispersion;
uniform float u_iridescence;
uniform float u_iridescence_ior;
uniform vec2 u_iridescence_thickness;  // nanometres: the thickness texture's 0 and 1
uniform float u_anisotropy;
uniform float u_anisotropy_rotation;
// Transmission: the opaque pass's picture (display values, mipmapped) and its size.
uniform sampler2D u_backdrop;
uniform vec2 u_backdrop_size;
uniform mat4 u_view_proj;
// Lights: KHR_lights_punctual of the file, or one directional default light.
const int MAX_LIGHTS = 8;
uniform int u_light_count;
uniform int u_light_type[MAX_LIGHTS];       // 0 directional, 1 point, 2 spot
uniform vec3 u_light_pos[MAX_LIGHTS];       // point, spot: world position
uniform vec3 u_light_to[MAX_LIGHTS];        // the direction the light shines, world space
uniform vec3 u_light_color[MAX_LIGHTS];     // colour times intensity
uniform float u_light_range[MAX_LIGHTS];    // 0: infinite
uniform vec2 u_light_cone[MAX_LIGHTS];      // spot: (scale, offset) of cos(angle)
uniform float u_env_strength;  // 0: no environment light
// The environment (viewer/render/environment.py): radiance by roughness (octahedral
// layers), the irradiance's spherical harmonics, the split-sum BRDF table.
uniform sampler2DArray u_env_radiance;
uniform float u_env_levels;
uniform vec3 u_env_sh[9];
uniform sampler2D u_brdf_lut;
// The picture: exposure, then tone mapping (0 none: clamped, 1 Khronos PBR Neutral,
// 2 ACES filmic), then sRGB.
uniform float u_exposure;
uniform int u_tone_mapping;
// 1 while the transmission pass's picture is drawn: linear radiance, before exposure and
// tone mapping (three.js draws its transmission target so, in half floats).
uniform int u_linear_out;

in vec3 v_world_pos;
in vec3 v_normal;
in vec3 v_color;
in float v_highlight;
in float v_pending;
in vec2 v_uv;
in vec2 v_uv1;
in vec4 v_vcolor;
in float v_mirror;
in float v_scale;  // the model matrix's mean scale (a volume's thickness is in mesh units)

out vec4 f_color;

const float PI = 3.14159265358979;

// Cold to hot: slate blue, violet, orange, pale yellow.
vec3 heat_ramp(float h) {
    vec3 a = vec3(0.22, 0.27, 0.40), b = vec3(0.56, 0.22, 0.62);
    vec3 c = vec3(0.96, 0.50, 0.14), d = vec3(1.00, 0.93, 0.50);
    if (h < 1.0 / 3.0) return mix(a, b, 3.0 * h);
    if (h < 2.0 / 3.0) return mix(b, c, 3.0 * h - 1.0);
    return mix(c, d, 3.0 * h - 2.0);
}

vec2 tex_uv(int k) {
    vec3 uv = vec3(u_tex_set[k] == 1 ? v_uv1 : v_uv, 1.0);
    vec2 t = vec2(dot(u_tex_row0[k], uv), dot(u_tex_row1[k], uv));
    vec2 m = mod(t, 2.0);
    if (u_tex_mirror[k].x == 1) t.x = m.x > 1.0 ? 2.0 - m.x : m.x;
    if (u_tex_mirror[k].y == 1) t.y = m.y > 1.0 ? 2.0 - m.y : m.y;
    return t;
}

vec4 tex(int k) {
    vec2 uv = tex_uv(k);
    if (k == 0) return texture(u_tex0, uv);
    if (k == 1) return texture(u_tex1, uv);
    if (k == 2) return texture(u_tex2, uv);
    if (k == 3) return texture(u_tex3, uv);
    if (k == 4) return texture(u_tex4, uv);
    if (k == 5) return texture(u_tex5, uv);
    if (k == 6) return texture(u_tex6, uv);
    if (k == 7) return texture(u_tex7, uv);
    if (k == 8) return texture(u_tex8, uv);
    if (k == 9) return texture(u_tex9, uv);
    if (k == 10) return texture(u_tex10, uv);
    if (k == 11) return texture(u_tex11, uv);
    if (k == 12) return texture(u_tex12, uv);
    if (k == 13) return texture(u_tex13, uv);
    if (k == 14) return texture(u_tex14, uv);
    if (k == 15) return texture(u_tex15, uv);
    return texture(u_tex16, uv);
}

vec3 to_srgb(vec3 c) {
    c = clamp(c, 0.0, 1.0);
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, c));
}

// Khronos PBR Neutral tone mapping: colours up to 0.76 stay as they are, brighter ones
// roll off towards white.
vec3 tone_map(vec3 color) {
    const float start = 0.8 - 0.04;
    const float desaturation = 0.15;
    float x = min(color.r, min(color.g, color.b));
    float offset = x < 0.08 ? x - 6.25 * x * x : 0.04;
    color -= offset;
    float peak = max(color.r, max(color.g, color.b));
    if (peak < start) return color;
    float d = 1.0 - start;
    float new_peak = 1.0 - d * d / (peak + d - start);
    color *= new_peak / peak;
    float g = 1.0 - 1.0 / (desaturation * (peak - new_peak) + 1.0);
    return mix(color, vec3(new_peak), g);
}

// Where direction d falls on an octahedral map (viewer/render/environment.py's
// octahedral_uv): the upper hemisphere (+Y) in the centre diamond, the lower one folded
// into the corners.
vec2 octahedral_uv(vec3 d) {
    vec2 p = d.xz / (abs(d.x) + abs(d.y) + abs(d.z));
    if (d.y < 0.0) {
        vec2 s = vec2(p.x >= 0.0 ? 1.0 : -1.0, p.y >= 0.0 ? 1.0 : -1.0);
        p = (1.0 - abs(p.yx)) * s;
    }
    return p * 0.5 + 0.5;
}

// The environment's radiance towards d, prefiltered for `roughness` (the layers hold
// roughness 0, 1/(n-1), ..., 1; between two, mixed).
vec3 environment(vec3 d, float roughness) {
    float level = roughness * (u_env_levels - 1.0);
    float k = min(floor(level), u_env_levels - 2.0);
    vec2 uv = octahedral_uv(d);
    vec3 a = texture(u_env_radiance, vec3(uv, k)).rgb;
    vec3 b = texture(u_env_radiance, vec3(uv, k + 1.0)).rgb;
    return mix(a, b, clamp(level - k, 0.0, 1.0));
}

// The irradiance over pi around n (a white Lambert surface's radiance) from the
// environment's 9 spherical-harmonic coefficients.
vec3 environment_diffuse(vec3 n) {
    vec3 c = u_env_sh[0] * 0.282095
           + 0.488603 * (u_env_sh[1] * n.y + u_env_sh[2] * n.z + u_env_sh[3] * n.x)
           + 1.092548 * (u_env_sh[4] * n.x * n.y + u_env_sh[5] * n.y * n.z
                         + u_env_sh[7] * n.x * n.z)
           + u_env_sh[6] * (0.315392 * (3.0 * n.z * n.z - 1.0))
           + u_env_sh[8] * (0.546274 * (n.x * n.x - n.y * n.y));
    return max(c, vec3(0.0));
}

// Set per fragment where the feature is compiled in: iridescence's Fresnel and weight,
// anisotropy's directions and roughnesses along them.
vec3 g_irid_fresnel = vec3(0.0);
float g_irid = 0.0;
vec3 g_aniso_t = vec3(1.0, 0.0, 0.0), g_aniso_b = vec3(0.0, 1.0, 0.0);
float g_at = 0.0, g_ab = 0.0;

// The environment's light on the material (split sum: prefiltered radiance times the
// BRDF table's F0 scale and F90 bias; the multiple-scattering energy of Fdez-Aguera 2019,
// so rough metals keep their brightness; the diffuse part gets what the specular leaves).
// The reflection is taken about `nr` (n, or anisotropy's bent normal).
vec3 environment_light(vec3 n, vec3 nr, vec3 v, vec3 c_diff, vec3 f0, float f90,
                       float roughness) {
    float n_v = clamp(dot(n, v), 1e-4, 1.0);
    vec2 fab = texture(u_brdf_lut, vec2(n_v, roughness)).rg;
    vec3 single = f0 * fab.x + f90 * fab.y;
    float e_single = fab.x + fab.y;
    vec3 f_avg = f0 + (1.0 - f0) / 21.0;
    vec3 multi = single * f_avg / (1.0 - (1.0 - e_single) * f_avg) * (1.0 - e_single);
    vec3 irradiance = environment_diffuse(n);
    float r2 = roughness * roughness;
    vec3 r = normalize(mix(reflect(-v, nr), nr, r2 * r2));
    vec3 specular = environment(r, roughness) * single + multi * irradiance;
    return specular + c_diff * irradiance * (1.0 - single - multi);
}

vec3 aces_filmic(vec3 c) {
    // Hill's fit of the ACES reference transform, as three.js applies it (exposure / 0.6)
    const mat3 to_aces = mat3(0.59719, 0.07600, 0.02840, 0.35458, 0.90834, 0.13383,
                              0.04823, 0.01566, 0.83777);
    const mat3 from_aces = mat3(1.60475, -0.10208, -0.00327, -0.53108, 1.10813, -0.07276,
                                -0.07367, -0.00605, 1.07602);
    c = to_aces * (c / 0.6);
    c = (c * (c + 0.0245786) - 0.000090537) / (c * (0.983729 * c + 0.4329510) + 0.238081);
    return clamp(from_aces * c, 0.0, 1.0);
}

// Linear radiance to what the display shows: exposure, tone mapping, sRGB encoding.
vec3 display(vec3 color) {
    if (u_linear_out == 1) return color;
    color *= u_exposure;
    if (u_tone_mapping == 1) color = tone_map(color);
    else if (u_tone_mapping == 2) color = aces_filmic(color);
    return to_srgb(color);
}

// GGX distribution times the height-correlated Smith visibility (appendix B), or their
// anisotropic forms (KHR_materials_anisotropy) when compiled in and the material has it.
float specular_dv(vec3 n, vec3 v, vec3 l, vec3 h, float alpha) {
    float n_l = max(dot(n, l), 0.0), n_v = max(dot(n, v), 1e-4);
    float n_h = max(dot(n, h), 0.0);
#ifdef ANISOTROPY
    if (g_at > 0.0) {
        float at = g_at, ab = g_ab;
        float a2 = at * ab;
        vec3 f = vec3(ab * dot(g_aniso_t, h), at * dot(g_aniso_b, h), a2 * n_h);
        float w2 = a2 / dot(f, f);
        float d = a2 * w2 * w2 / PI;
        float gv = n_l * length(vec3(at * dot(g_aniso_t, v), ab * dot(g_aniso_b, v), n_v));
        float gl = n_v * length(vec3(at * dot(g_aniso_t, l), ab * dot(g_aniso_b, l), n_l));
        return d * 0.5 / max(gv + gl, 1e-6);
    }
#endif
    float a2 = alpha * alpha;
    float denom = n_h * n_h * (a2 - 1.0) + 1.0;
    float d = a2 / (PI * denom * denom);
    float vis_denom = n_l * sqrt(n_v * n_v * (1.0 - a2) + a2)
                    + n_v * sqrt(n_l * n_l * (1.0 - a2) + a2);
    float vis = vis_denom > 0.0 ? 0.5 / vis_denom : 0.0;
    return d * vis;
}

// Appendix B: f = f_diffuse + f_specular for one light direction l (Schlick's Fresnel
// from f0 to f90, KHR_materials_specular; iridescence's film mixed in by its weight).
vec3 brdf(vec3 n, vec3 v, vec3 l, vec3 c_diff, vec3 f0, float f90, float alpha) {
    vec3 h = normalize(l + v);
    float v_h = max(dot(v, h), 0.0);
    vec3 fresnel = f0 + (f90 - f0) * pow(1.0 - v_h, 5.0);
#ifdef IRIDESCENCE
    fresnel = mix(fresnel, g_irid_fresnel, g_irid);
#endif
    return (1.0 - fresnel) * c_diff / PI + fresnel * specular_dv(n, v, l, h, alpha);
}

// The tangent frame of texture k's coordinates from the screen-space derivatives of the
// position and coordinates (the file's tangents are not read); false where degenerate.
// glTF's v runs down the image while the texture is stored top row first, so +v of the
// coordinates is the image's downward direction: the bitangent is -b.
bool tangent_frame(vec3 n, int k, out vec3 t, out vec3 b) {
    vec3 dp1 = dFdx(v_world_pos), dp2 = dFdy(v_world_pos);
    vec2 uv = tex_uv(k);
    vec2 duv1 = dFdx(uv), duv2 = dFdy(uv);
    vec3 dp2perp = cross(dp2, n), dp1perp = cross(n, dp1);
    t = dp2perp * duv1.x + dp1perp * duv2.x;
    b = dp2perp * duv1.y + dp1perp * duv2.y;
    float scale = max(dot(t, t), dot(b, b));
    if (!(scale > 0.0)) return false;
    float inv = inversesqrt(scale);
    t *= inv;
    b *= -inv;
    return true;
}

// Perturb n by normal texture k (its scale: `scale`).
vec3 mapped_normal(vec3 n, int k, float scale) {
    vec3 t, b;
    if (!tangent_frame(n, k, t, b)) return n;
    vec3 m = tex(k).xyz * 2.0 - 1.0;
    m.xy *= scale;
    return normalize(mat3(t, b, n) * m);
}

// One light's direction towards it (l) and its radiance reaching this point.
vec3 light_at(int i, out vec3 l) {
    l = -u_light_to[i];
    float fall = 1.0;
    if (u_light_type[i] != 0) {
        vec3 d = u_light_pos[i] - v_world_pos;
        float dist2 = max(dot(d, d), 1e-8);
        l = d * inversesqrt(dist2);
        fall = 1.0 / dist2;
        if (u_light_range[i] > 0.0) {
            float q = dist2 / (u_light_range[i] * u_light_range[i]);
            fall *= clamp(1.0 - q * q, 0.0, 1.0);
        }
        if (u_light_type[i] == 2) {
            float cd = dot(u_light_to[i], -l);
            float a = clamp(cd * u_light_cone[i].x + u_light_cone[i].y, 0.0, 1.0);
            fall *= a * a;
        }
    }
    return u_light_color[i] * fall;
}

float max3(vec3 c) { return max(c.r, max(c.g, c.b)); }

#ifdef SHEEN
// The Charlie sheen distribution (alpha = sheen roughness squared) and Neubelt's
// visibility, as KHR_materials_sheen gives them.
float sheen_dv(vec3 n, vec3 v, vec3 l, float roughness) {
    vec3 h = normalize(l + v);
    float alpha = max(roughness * roughness, 1e-4);
    float inv = 1.0 / alpha;
    float n_h = max(dot(n, h), 0.0);
    float sin2 = max(1.0 - n_h * n_h, 0.0);
    float d = (2.0 + inv) * pow(sin2, inv * 0.5) / (2.0 * PI);
    float n_l = max(dot(n, l), 0.0), n_v = max(dot(n, v), 1e-4);
    return d / (4.0 * (n_l + n_v - n_l * n_v));
}

// The sheen's directional albedo towards d (its energy under uniform light): three.js's
// fit of the Charlie sheen's integral (IBLSheenBRDF).
float sheen_albedo(vec3 n, vec3 d, float roughness) {
    float n_d = clamp(dot(n, d), 0.0, 1.0);
    float r2 = roughness * roughness;
    float inv = 1.0 / (roughness + 0.1);
    float a = -1.9362 + 1.0678 * roughness + 0.4573 * r2 - 0.8469 * inv;
    float b = -0.6014 + 0.5538 * roughness - 0.4670 * r2 - 0.1255 * inv;
    return clamp(exp(a * n_d + b), 0.0, 1.0);
}
#endif

#ifdef IRIDESCENCE
// KHR_materials_iridescence: the reflectance of a thin film (ior u_iridescence_ior,
// `thickness` nm) over a base of Fresnel `base_f0`, as the extension specifies it (Belcour
// and Barla 2017): Airy's sum of the light bounced between the film's two faces, its
// first two orders, each integrated against the eye's colour sensitivities (their fit by
// Gaussians in Fourier space, in CIE XYZ), then taken to linear sRGB.
// Each face's reflectance is Schlick's, its weight (1 - cos)^5 evaluated by the
// spherical-Gaussian fit exp2((-5.55473 cos - 6.98316) cos) (Lagarde's, which three.js
// uses for the film): the extension's implementation notes leave the BRDF's evaluation
// to the renderer, and for the film's faces the fit lies nearer Fresnel's exact
// reflectance (an ior 1.3 film at cos 0.5: exact 0.053, fit 0.050, (1 - cos)^5 0.048).
float film_schlick_weight(float cos_t) {
    return exp2((-5.55473 * cos_t - 6.98316) * cos_t);
}

vec3 film_sensitivity(float opd, vec3 shift) {
    float phase = 2.0 * PI * opd * 1.0e-9;
    const vec3 amplitude = vec3(5.4856e-13, 4.4201e-13, 5.2481e-13);
    const vec3 centre = vec3(1.6810e+06, 1.7953e+06, 2.2084e+06);
    const vec3 spread = vec3(4.3278e+09, 9.3046e+09, 6.6121e+09);
    vec3 xyz = amplitude * sqrt(2.0 * PI * spread) * cos(centre * phase + shift)
             * exp(-phase * phase * spread);
    xyz.x += 9.7470e-14 * sqrt(2.0 * PI * 4.5282e+09) * cos(2.2399e+06 * phase + shift.x)
           * exp(-4.5282e+09 * phase * phase);
    xyz /= 1.0685e-7;
    const mat3 xyz_to_srgb = mat3(3.2404542, -0.9692660, 0.0556434,
                                  -1.5371385, 1.8760108, -0.2040259,
                                  -0.4985314, 0.0415560, 1.0572252);
    return xyz_to_srgb * xyz;
}

vec3 iridescence_fresnel(float n_v, vec3 base_f0, float thickness) {
    // a guard for a film of (almost) no thickness: its ior goes to the air's below
    // 0.03 nm, as three.js has it (shade_pbr leaves a film of 0 nm out altogether)
    float film = mix(1.0, u_iridescence_ior, smoothstep(0.0, 0.03, thickness));
    float cos2_sq = 1.0 - (1.0 - n_v * n_v) / (film * film);
    if (cos2_sq < 0.0) return vec3(1.0);  // total internal reflection
    float cos2 = sqrt(cos2_sq);
    // the air-film face, and the film-base face (the base's ior from its F0)
    float r0 = (film - 1.0) * (film - 1.0) / ((film + 1.0) * (film + 1.0));
    float r12 = r0 + (1.0 - r0) * film_schlick_weight(n_v);
    float t121 = 1.0 - r12;
    float phi12 = film < 1.0 ? PI : 0.0;
    vec3 sf0 = sqrt(clamp(base_f0, 0.0, 0.9999));
    vec3 base_ior = (1.0 + sf0) / (1.0 - sf0);
    vec3 r1 = (base_ior - film) * (base_ior - film) / ((base_ior + film) * (base_ior + film));
    vec3 r23 = r1 + (1.0 - r1) * film_schlick_weight(cos2);
    vec3 phi23 = vec3(base_ior.r < film ? PI : 0.0, base_ior.g < film ? PI : 0.0,
                      base_ior.b < film ? PI : 0.0);
    float opd = 2.0 * film * thickness * cos2;  // the optical path difference
    vec3 phi = vec3(PI - phi12) + phi23;
    vec3 r123 = clamp(r12 * r23, 1e-5, 0.9999);
    vec3 rs = t121 * t121 * r23 / (1.0 - r123);
    vec3 result = r12 + rs;
    vec3 cm = rs - t121;
    for (int m = 1; m <= 2; ++m) {
        cm *= sqrt(r123);
        result += cm * 2.0 * film_sensitivity(float(m) * opd, float(m) * phi);
    }
    return max(result, vec3(0.0));
}

// The F0 that Schlick's curve would need to give `f` at this angle (F90 = 1), for the
// environment's split sum.
vec3 f0_of(vec3 f, float n_v) {
    float x5 = min(pow(clamp(1.0 - n_v, 0.0, 1.0), 5.0), 0.9999);
    return (f - x5) / (1.0 - x5);
}
#endif

#ifdef TRANSMISSION
// Texture t at mip level `level` filtered by a cubic B-spline (four bilinear taps placed
// by the spline's weights): smooth where the GPU's bilinear filter shows the texels.
vec3 bspline_level(sampler2D t, vec2 uv, int level) {
    vec2 size = vec2(textureSize(t, level));
    vec2 st = uv * size - 0.5;
    vec2 i = floor(st), f = st - i;
    vec2 f2 = f * f, f3 = f2 * f;
    vec2 w0 = (-f3 + 3.0 * f2 - 3.0 * f + 1.0) / 6.0;
    vec2 w1 = (3.0 * f3 - 6.0 * f2 + 4.0) / 6.0;
    vec2 w2 = (-3.0 * f3 + 3.0 * f2 + 3.0 * f + 1.0) / 6.0;
    vec2 w3 = f3 / 6.0;
    vec2 g0 = w0 + w1, g1 = w2 + w3;
    vec2 p0 = (i - 0.5 + w1 / g0) / size, p1 = (i + 1.5 + w3 / g1) / size;
    float l = float(level);
    return g0.y * (g0.x * textureLod(t, p0, l).rgb + g1.x * textureLod(t, vec2(p1.x, p0.y), l).rgb)
         + g1.y * (g0.x * textureLod(t, vec2(p0.x, p1.y), l).rgb + g1.x * textureLod(t, p1, l).rgb);
}

// The picture at fractional mip level `lod`, B-spline filtered on the two levels around it
// (as three.js samples its transmission picture).
vec3 backdrop_at(vec2 uv, float lod) {
    int level = int(floor(lod));
    return mix(bspline_level(u_backdrop, uv, level), bspline_level(u_backdrop, uv, level + 1),
               fract(lod));
}

// The light behind the surface along one refracted ray through `ior`: the opaque pass's
// linear picture where the ray leaves a volume `thickness` deep (0: thin-walled, straight
// through), blurred by the roughness (its mip level, as three.js does), attenuated by
// Beer's law.
vec3 behind(vec3 n, vec3 v, float ior, float thickness, float roughness, out float dist) {
    vec3 ray = normalize(refract(-v, n, 1.0 / ior)) * thickness;
    dist = length(ray);
    vec4 clip = u_view_proj * vec4(v_world_pos + ray, 1.0);
    vec2 uv = clip.xy / clip.w * 0.5 + 0.5;
    float lod = log2(max(u_backdrop_size.x, 1.0)) * roughness * clamp(ior * 2.0 - 2.0, 0.0, 1.0);
    return backdrop_at(uv, lod);
}

// KHR_materials_transmission with _volume and _dispersion: what comes through, before
// the transmission factor mixes it with the diffuse part.
vec3 transmitted(vec3 n, vec3 v, vec3 base, vec3 f0, float f90, float roughness) {
    float thickness = u_thickness * v_scale;
    if (u_tex_on[9] == 1) thickness *= tex(9).g;
    float dist;
    vec3 light;
#ifdef DISPERSION
    // the extension's spread of the three channels' iors (dispersion = 20 / Abbe number),
    // none below 1: its Cauchy curve n(lambda) is clamped there
    float half_spread = (u_ior - 1.0) * 0.025 * u_dispersion;
    vec3 iors = vec3(max(u_ior - half_spread, 1.0), u_ior, u_ior + half_spread);
    light.r = behind(n, v, iors.r, thickness, roughness, dist).r;
    light.g = behind(n, v, iors.g, thickness, roughness, dist).g;
    light.b = behind(n, v, iors.b, thickness, roughness, dist).b;
#else
    light = behind(n, v, u_ior, thickness, roughness, dist);
#endif
    if (u_attenuation_distance > 0.0) {
        vec3 coefficient = -log(max(u_attenuation_color, vec3(1e-6))) / u_attenuation_distance;
        light *= exp(-coefficient * dist);
    }
    float n_v = clamp(dot(n, v), 1e-4, 1.0);
    vec2 fab = texture(u_brdf_lut, vec2(n_v, roughness)).rg;
    vec3 fresnel = f0 * fab.x + f90 * fab.y;
    return (1.0 - fresnel) * light * base;
}
#endif

// The material's colour (display values, alpha) at this fragment.
vec4 shade_pbr(vec3 n_geom, vec3 to_eye) {
    vec4 base = u_base_color * v_vcolor;
    if (u_tex_on[0] == 1) base *= tex(0);
    if (u_unlit == 1 || u_mat_unlit == 1)
        return vec4(u_linear_out == 1 ? base.rgb : to_srgb(base.rgb), base.a);
    float metallic = u_metallic, roughness = u_roughness;
    if (u_tex_on[1] == 1) {
        vec4 mr = tex(1);
        roughness *= mr.g;
        metallic *= mr.b;
    }
    // three.js's floor (no pinpoint highlights), widened by how fast the geometric normal
    // turns across the pixel (three.js's geometryRoughness: the largest component of the
    // view-space normal's derivatives; the view's axes are the rows of the view-projection
    // matrix's x and y, their lengths the projection's scales), so that a curved rim's
    // reflection does not alias
    vec3 right = normalize(vec3(u_view_proj[0][0], u_view_proj[1][0], u_view_proj[2][0]));
    vec3 up = normalize(vec3(u_view_proj[0][1], u_view_proj[1][1], u_view_proj[2][1]));
    mat3 to_view = transpose(mat3(right, up, cross(right, up)));
    vec3 dxy = max(abs(to_view * dFdx(n_geom)), abs(to_view * dFdy(n_geom)));
    float geometry_roughness = max(max(dxy.x, dxy.y), dxy.z);
    roughness = min(max(roughness, 0.0525) + geometry_roughness, 1.0);
    metallic = clamp(metallic, 0.0, 1.0);
    vec3 n = u_tex_on[2] == 1 ? mapped_normal(n_geom, 2, u_normal_scale) : n_geom;
    vec3 v = to_eye;
    vec3 c_diff = mix(base.rgb, vec3(0.0), metallic);
    vec3 f0 = vec3(0.04);
    float f90 = 1.0;
#ifdef SPECULAR
    // KHR_materials_ior and _specular: the dielectric F0 from the ior, tinted by the
    // specular colour (at most 1), both F0 and F90 weighted by the specular factor
    float r_ior = (u_ior - 1.0) / (u_ior + 1.0);
    vec3 tint = u_specular_color;
    if (u_tex_on[11] == 1) tint *= tex(11).rgb;
    float weight = u_specular;
    if (u_tex_on[16] == 1) weight *= tex(16).a;
    f0 = min(r_ior * r_ior * tint, vec3(1.0)) * weight;
    f90 = weight;
#endif
    vec3 f0_dielectric = f0;
    f0 = mix(f0, base.rgb, metallic);
    f90 = mix(f90, 1.0, metallic);
    vec3 f0_env = f0;  // the environment's F0 (iridescence changes it)
    float alpha = roughness * roughness;
    vec3 nr = n;  // the normal the environment is reflected about
#ifdef ANISOTROPY
    if (u_anisotropy > 0.0) {
        vec3 t, b;
        if (!tangent_frame(n, 0, t, b)) {
            t = normalize(cross(abs(n.y) < 0.9 ? vec3(0.0, 1.0, 0.0) : vec3(1.0, 0.0, 0.0), n));
            b = cross(n, t);
        }
        // the texture's RG: the direction in the tangent frame (from [0, 1] to [-1, 1]),
        // its B: the strength; both before the rotation, as the specification says
        vec2 dir = vec2(1.0, 0.0);
        float strength = u_anisotropy;
        if (u_tex_on[14] == 1) {
            vec3 a = tex(14).rgb;
            dir = a.rg * 2.0 - 1.0;
            strength *= a.b;
        }
        float c = cos(u_anisotropy_rotation), s = sin(u_anisotropy_rotation);
        dir = vec2(c * dir.x - s * dir.y, s * dir.x + c * dir.y);
        g_aniso_t = t * dir.x + b * dir.y;
        g_aniso_t = dot(g_aniso_t, g_aniso_t) > 1e-12 ? normalize(g_aniso_t) : t;
        g_aniso_b = normalize(cross(n, g_aniso_t));
        g_at = mix(alpha, 1.0, strength * strength);
        g_ab = alpha;
        // bent about the bitangent, across which the lobe is narrow (as three.js does)
        vec3 bent = normalize(cross(cross(g_aniso_b, v), g_aniso_b));
        float bend = 1.0 - strength * (1.0 - roughness);
        nr = normalize(mix(bent, n, bend * bend * bend * bend));
    }
#endif
#ifdef IRIDESCENCE
    {
        float n_v = clamp(dot(n, v), 0.0, 1.0);
        // No thickness texture: the maximum, as the specification says.
        float t = u_iridescence_thickness.y;
        if (u_tex_on[13] == 1) t = mix(u_iridescence_thickness.x, t, tex(13).g);
        // a film of no thickness reflects as the surface below it does
        g_irid = t > 0.0 ? u_iridescence : 0.0;
        if (u_tex_on[12] == 1) g_irid *= tex(12).r;
        g_irid_fresnel = mix(iridescence_fresnel(n_v, f0_dielectric, t),
                             iridescence_fresnel(n_v, base.rgb, t), metallic);
        f0_env = mix(f0, f0_of(g_irid_fresnel, n_v), g_irid);
    }
#endif
    float transmission = 0.0;
#ifdef TRANSMISSION
    transmission = u_transmission;
    if (u_tex_on[8] == 1) transmission *= tex(8).r;
#endif
    vec3 c_lit = c_diff * (1.0 - transmission);  // the diffuse part transmission leaves
#ifdef SHEEN
    vec3 sheen = u_sheen_color;
    if (u_tex_on[10] == 1) sheen *= tex(10).rgb;
    float sheen_rough = u_sheen_roughness;
    if (u_tex_on[15] == 1) sheen_rough *= tex(15).a;
    sheen_rough = clamp(sheen_rough, 1e-4, 1.0);
    vec3 sheen_light = vec3(0.0);
    // the layer below keeps the energy the sheen leaves (KHR_materials_sheen's albedo
    // scaling, with three.js's fit of the albedo)
    float sheen_v = max3(sheen) * sheen_albedo(n, v, sheen_rough);
#endif
#ifdef CLEARCOAT
    float coat = u_clearcoat;
    if (u_tex_on[5] == 1) coat *= tex(5).r;
    float coat_rough = u_clearcoat_roughness;
    if (u_tex_on[6] == 1) coat_rough *= tex(6).g;
    coat_rough = min(max(coat_rough, 0.0525) + geometry_roughness, 1.0);
    vec3 n_coat = u_tex_on[7] == 1 ? mapped_normal(n_geom, 7, u_clearcoat_normal_scale)
                                   : n_geom;
    vec3 coat_light = vec3(0.0);
#endif
    vec3 color = vec3(0.0);
    for (int i = 0; i < u_light_count && i < MAX_LIGHTS; ++i) {
        vec3 l;
        vec3 radiance = light_at(i, l);
        float n_l = max(dot(n, l), 0.0);
        float scale = 1.0;
#ifdef SHEEN
        if (n_l > 0.0) sheen_light += sheen * sheen_dv(n, v, l, sheen_rough) * radiance * n_l;
        scale = 1.0 - max(sheen_v, max3(sheen) * sheen_albedo(n, l, sheen_rough));
#endif
        if (n_l > 0.0) color += brdf(n, v, l, c_lit, f0, f90, alpha) * radiance * n_l * scale;
#ifdef CLEARCOAT
        float c_l = max(dot(n_coat, l), 0.0);
        if (c_l > 0.0) {
            vec3 h = normalize(l + v);
            float fc = 0.04 + 0.96 * pow(1.0 - max(dot(v, h), 0.0), 5.0);
            float ca = coat_rough * coat_rough;
            coat_light += fc * specular_dv(n_coat, v, l, h, ca) * radiance * c_l;
        }
#endif
    }
    float occlusion = 1.0;
    if (u_tex_on[3] == 1) occlusion = 1.0 + u_occlusion_strength * (tex(3).r - 1.0);
    if (u_env_strength > 0.0) {
        vec3 env = environment_light(n, nr, v, c_lit, f0_env, f90, roughness);
#ifdef SHEEN
        env *= 1.0 - sheen_v;
        sheen_light += u_env_strength * occlusion * sheen * sheen_albedo(n, v, sheen_rough)
                     * environment_diffuse(n);
#endif
        color += u_env_strength * occlusion * env;
#ifdef CLEARCOAT
        float cv = clamp(dot(n_coat, v), 1e-4, 1.0);
        vec2 fab = texture(u_brdf_lut, vec2(cv, coat_rough)).rg;
        float cr2 = coat_rough * coat_rough;
        vec3 r = normalize(mix(reflect(-v, n_coat), n_coat, cr2 * cr2));
        coat_light += u_env_strength * occlusion * environment(r, coat_rough)
                    * (0.04 * fab.x + fab.y);
#endif
    }
#ifdef TRANSMISSION
    if (transmission > 0.0)
        color += transmission * transmitted(n, v, base.rgb * (1.0 - metallic), f0, f90,
                                            roughness);
#endif
    vec3 emissive = u_emissive;
    if (u_tex_on[4] == 1) emissive *= tex(4).rgb;
    color += emissive;
#ifdef SHEEN
    color += sheen_light;
#endif
#ifdef CLEARCOAT
    float fcv = 0.04 + 0.96 * pow(1.0 - clamp(dot(n_coat, v), 0.0, 1.0), 5.0);
    color = color * (1.0 - coat * fcv) + coat * coat_light;
#endif
    return vec4(display(color), base.a);
}

const float PENDING_STRIPE = 5.0;

// The built-in shading of colour `c` at normal `n` (towards the eye) seen from `to_eye`.
vec3 blinn_phong(vec3 c, vec3 n, vec3 to_eye) {
    float diffuse = max(dot(n, u_light_dir), 0.0);
    vec3 h = normalize(u_light_dir + to_eye);
    float spec = pow(max(dot(n, h), 0.0), 48.0) * 0.35;
    float sky = 0.5 + 0.5 * n.y;
    vec3 ambient = mix(vec3(0.20, 0.19, 0.18), vec3(0.34, 0.36, 0.40), sky);
    return c * (ambient + 0.78 * diffuse) + vec3(spec);
}

// 1 on the glow's stripes of the pending look, 0 between them and on other nodes.
float pending_stripe() {
    if (v_pending <= 0.0) return 0.0;
    return mod(floor((gl_FragCoord.x + gl_FragCoord.y) / PENDING_STRIPE), 2.0);
}

#ifdef SPRITE
// The sprites' program (BUILTIN_ONLY too): an unmarked sprite of a box or a sphere (u_shape
// 1 or 2; 3 a flat box, cast at every size; the mesh's local bounds u_box_lo .. u_box_hi)
// is the mesh itself, cast per pixel:
// the ray through the pixel, taken into the mesh's frame (v_to_local, about v_origin),
// meets the box (or the ellipsoid in it) or the pixel is dropped, and the face it meets
// gives the normal and the depth, so a few-pixel cube shows its faces' shading and
// outline as its 12 triangles would. Other sprites (u_shape 0, marked, or under
// IMPOSTOR_MIN_PX) stay flat squares: a box's (v_impostor 1) in the mean of the shading of
// its faces seen, each weighted by the area it shows.
uniform mat4 u_inv_view_proj;
uniform vec2 u_viewport_px;
uniform int u_shape;
uniform vec3 u_box_lo;
uniform vec3 u_box_hi;
flat in mat3 v_to_local;
flat in vec3 v_origin;
flat in float v_impostor;

// The hit of this pixel's ray with the mesh's box or ellipsoid: its world position and
// normal (normal.w 0: missed).
vec4 cast_sprite(out vec3 hit) {
    vec2 ndc = gl_FragCoord.xy / u_viewport_px * 2.0 - 1.0;
    vec4 a = u_inv_view_proj * vec4(ndc, -1.0, 1.0);
    vec4 b = u_inv_view_proj * vec4(ndc, 1.0, 1.0);
    vec3 p0 = a.xyz / a.w, p1 = b.xyz / b.w;
    vec3 o = v_to_local * (p0 - v_origin);
    vec3 d = v_to_local * (p1 - p0);
    d += vec3(equal(d, vec3(0.0))) * 1e-12;  // a ray along a face: no division by zero
    vec3 n;
    float t;
    if (u_shape == 2) {
        vec3 c = 0.5 * (u_box_lo + u_box_hi), r = max(0.5 * (u_box_hi - u_box_lo), 1e-12);
        vec3 oo = (o - c) / r, dd = d / r;
        float qa = dot(dd, dd), qb = dot(oo, dd), qc = dot(oo, oo) - 1.0;
        float disc = qb * qb - qa * qc;
        if (disc < 0.0) return vec4(0.0);
        t = (-qb - sqrt(disc)) / qa;
        n = (oo + t * dd) / r;
    } else {
        vec3 t1 = (u_box_lo - o) / d, t2 = (u_box_hi - o) / d;
        vec3 near = min(t1, t2), far = max(t1, t2);
        t = max(near.x, max(near.y, near.z));
        if (t > min(far.x, min(far.y, far.z))) return vec4(0.0);
        vec3 axis = t == near.x ? vec3(1.0, 0.0, 0.0)
                  : t == near.y ? vec3(0.0, 1.0, 0.0) : vec3(0.0, 0.0, 1.0);
        n = -axis * sign(d);
    }
    hit = p0 + t * (p1 - p0);
    // normals go to the world by the inverse transpose of the model matrix
    return vec4(normalize(transpose(v_to_local) * n), 1.0);
}

// Colour `c` as box u_box_lo .. u_box_hi shows it on average from `to_eye`: each face
// turned to the eye shaded with its normal, weighted by its area seen (its local area
// times the view direction's component along it in the box's frame).
vec3 box_mean(vec3 c, vec3 to_eye) {
    vec3 e = u_box_hi - u_box_lo;
    vec3 along = v_to_local * to_eye;
    vec3 weight = abs(along) * vec3(e.y * e.z, e.z * e.x, e.x * e.y);
    mat3 normals = transpose(v_to_local);  // column k: face k's world normal (unscaled)
    vec3 sum = vec3(0.0);
    for (int k = 0; k < 3; ++k) {
        vec3 n = normalize(normals[k]) * (along[k] < 0.0 ? -1.0 : 1.0);
        sum += weight[k] * blinn_phong(c, n, to_eye);
    }
    float total = weight.x + weight.y + weight.z;
    return total > 0.0 ? sum / total : blinn_phong(c, to_eye, to_eye);
}
#endif

void main() {
    float strength = clamp(abs(v_highlight), 0.0, 1.0);
    vec3 glow = v_highlight < 0.0 ? u_glow_local : u_glow_world;
    if (v_pending > 0.0) glow = v_pending < 1.5 ? u_glow_local : u_glow_world;
    if (u_halo == 1) {
        // A paler rim than the body, so the outline reads even against the glow.
        f_color = vec4(mix(glow, vec3(1.0, 0.93, 0.75), 0.45), strength);
        return;
    }
    if (u_depth_only == 1 && u_pbr == 0) return;
    vec3 world_pos = v_world_pos;
    float len = length(v_normal);
    vec3 n = len > 0.0 ? v_normal / len : vec3(0.0, 1.0, 0.0);
#ifdef SPRITE
    gl_FragDepth = gl_FragCoord.z;
    if (v_impostor == 2.0) {
        vec4 found = cast_sprite(world_pos);
        if (found.w == 0.0) discard;
        n = found.xyz;
        vec4 clip = u_view_proj * vec4(world_pos, 1.0);
        gl_FragDepth = clamp(0.5 * clip.z / clip.w + 0.5, 0.0, 1.0);
    }
#endif
    vec3 to_eye = u_ortho == 1 ? -u_view_dir : normalize(u_eye - world_pos);
    vec4 color;
#ifndef BUILTIN_ONLY
    if (u_pbr == 1) {
        // glTF: a triangle's front is its counter-clockwise side, mirrored with the
        // node's transform when that has a negative determinant (v_mirror < 0).
        bool front = gl_FrontFacing == (v_mirror > 0.0);
        if (!front && u_double_sided == 0) discard;  // back-face culling, per instance
        if (!front) n = -n;
        float a = u_base_color.a * v_vcolor.a * (u_tex_on[0] == 1 ? tex(0).a : 1.0);
        if (u_alpha_mode == 1 && a < u_alpha_cutoff) discard;
        if (u_depth_only == 1) return;
        if (u_glow_style == 2) {
            color = vec4(heat_ramp(clamp(v_highlight, 0.0, 1.0)), 1.0);
            strength = 0.0;
        } else {
            color = shade_pbr(n, to_eye);
            color.a = u_alpha_mode == 2 ? clamp(color.a, 0.0, 1.0) : 1.0;
            // with the glow at full strength, the glow's colour covers a transparent
            // surface too
            color.a = mix(color.a, 1.0, strength);
        }
    } else
#endif
    {
        color = vec4(u_glow_style == 2 ? heat_ramp(clamp(v_highlight, 0.0, 1.0)) : v_color, 1.0);
        if (u_glow_style == 2) strength = 0.0;
    }
    float stripe = pending_stripe();
    if (v_pending > 0.0) strength = 0.0;  // pending: stripes instead of the fill
    if (u_unlit == 1) {
        f_color = vec4(mix(mix(color.rgb, glow, strength), glow, stripe), color.a);
        return;
    }
    // Two-sided: flat disks and rectangles are seen from both faces.
    if (dot(n, to_eye) < 0.0) n = -n;
    float diffuse = max(dot(n, u_light_dir), 0.0);
    vec3 lit = color.rgb;
    if (u_pbr == 0 || u_glow_style == 2) lit = blinn_phong(color.rgb, n, to_eye);
#ifdef SPRITE
    if (v_impostor == 1.0) lit = box_mean(color.rgb, to_eye);
#endif
    if (u_glow_style == 1) {
        // Rim: strongest where the surface turns away from the eye (the silhouette).
        float rim = smoothstep(0.65, 0.15, abs(dot(n, to_eye)));
        lit = mix(lit, glow, strength * rim);
    } else {
        // Glow: emissive, so it reads the same on the lit and the shaded side.
        lit = mix(lit, glow * (0.80 + 0.20 * diffuse), strength);
    }
    lit = mix(lit, glow * (0.80 + 0.20 * diffuse), stripe);
    f_color = vec4(lit, max(color.a, stripe));
}
