#version 330 core
// One instanced draw per mesh kind. Per vertex: position, normal, a vertex colour whose
// alpha says how much it replaces the instance colour (the axes gizmo paints its arms).
// Per instance: the node's world matrix (column-vector convention), its look's colour
// and size (size scales the mesh only), and its stamp (viewer/render/glow.py): the time
// it was last recomputed and a code, reason + heat (0 never, 1 own change, 2 followed,
// 3 / 4 the same in a frame picked on the timeline: full strength; 5 / 6 the same marked
// but not yet executed, paused after a touch or an edit: full strength, and v_pending
// tells the fragment shader to draw the pending look). The glow is computed
// here from the current time u_time, so nothing is written while a glow fades:
// v_highlight's magnitude is the glow strength, its sign the colour (negative: own
// change, red; positive: followed, orange); in the heat style it is the heat in [0, 1].
//
// u_halo = 1 is the halo pass, drawn before the scene: only glowing instances, each
// grown by u_halo_px pixels around its projected origin, in flat glow colour; the scene
// drawn afterwards covers all but the rim, which outlines the glowing nodes.
//
// u_sprite = 1 draws each instance as one point (the level of detail of instances a few
// pixels across, viewer/render/culling.py): at the centre of the mesh's bounding sphere
// u_sphere, as wide as the sphere looks, facing the eye; a glowing or marked instance at
// least u_glow_min_px wide, so a touched subtree is seen at any distance.
uniform mat4 u_view_proj;
uniform int u_halo;
uniform vec2 u_viewport;    // pixels
uniform float u_halo_px;
uniform int u_glow_on;        // 0: no glow at all
uniform int u_glow_style;     // 0 fill, 1 rim, 2 heat
uniform float u_time;         // simulation seconds (the stamps' clock)
uniform float u_fade;         // seconds from full glow to none; <= 0: one frame
uniform float u_heat_seconds; // time constant of the heat's weighting
uniform float u_heat_norm;    // 1 / the weight of all the time so far
uniform int u_sprite;
uniform vec4 u_sphere;        // sprites: the mesh's local bounding sphere (centre, radius)
uniform float u_sprite_width; // sprites: the mesh's mean width on screen (local units)
uniform float u_px_scale;     // sprites: pixels per world unit at clip w = 1
uniform float u_glow_min_px;  // sprites: the least width of a glowing or marked one
uniform vec3 u_eye;           // camera position, world space (perspective)
uniform vec3 u_view_dir;      // camera forward, world space (orthographic)
uniform int u_ortho;
uniform int u_only;         // >= 0: draw only this instance (blended parts, back to front)

in vec3 in_position;
in vec3 in_normal;
in vec4 in_vcolor;
in vec2 in_uv;      // texture coordinates TEXCOORD_0 and TEXCOORD_1 (glTF meshes)
in vec2 in_uv1;

in mat4 in_world;
in vec3 in_color;
in vec3 in_size;
in vec2 in_stamp;

out vec3 v_world_pos;
out vec3 v_normal;
out vec3 v_color;
out float v_highlight;
out float v_pending;  // 0 executed or clean; 1 marked (own change), 2 marked (follows)
out vec2 v_uv;
out vec2 v_uv1;
out vec4 v_vcolor;  // the vertex colour as is (glTF: COLOR_0)
out float v_mirror;  // -1 where the transform mirrors (glTF: the front face flips)
out float v_scale;   // the model matrix's mean scale (a volume's thickness is in mesh units)
#ifdef SPRITE
// A sprite cast per pixel as its mesh's box or sphere (instanced.frag): the model matrix's
// inverse 3x3 and origin; v_impostor 2 where it is cast, 1 a flat square in its box's mean
// shading, 0 a flat square.
uniform int u_shape;          // 0: flat squares only; 1 box, 2 sphere, 3 flat box (bounds)
uniform float u_impostor_px;  // sprites at least this wide are cast
flat out mat3 v_to_local;
flat out vec3 v_origin;
flat out float v_impostor;
#endif

// Glow.signed and Glow.heat (viewer/render/glow.py) are this function's CPU twins.
float glow_value() {
    if (u_glow_on == 0) return 0.0;
    float age = max(u_time - in_stamp.x, 0.0);
    float reason = floor(in_stamp.y);
    if (u_glow_style == 2) {
        float heat = fract(in_stamp.y) * exp(-age / u_heat_seconds) * u_heat_norm;
        return clamp(heat, 0.0, 1.0);
    }
    float s;
    if (reason == 0.0) s = 0.0;
    else if (reason >= 3.0) s = 1.0;  // a picked frame, or marked and not yet executed
    else if (u_fade > 0.0) s = clamp(1.0 - age / u_fade, 0.0, 1.0);
    else s = age == 0.0 ? 1.0 : 0.0;
    if (s < 1e-4) s = 0.0;
    return (reason == 1.0 || reason == 3.0 || reason == 5.0) ? -s : s;
}

// One instance as a point: at its bounding sphere's centre, as wide as the mesh looks on
// average (u_sprite_width, local units). Under a pixel, a point would cover a whole one:
// it is kept with the chance of its area (hashed from its centre: steady while it is
// still), so a crowd of them shades as much of the picture as their meshes would.
void sprite(vec3 c0, vec3 c1, vec3 c2) {
    vec3 centre = c0 * u_sphere.x + c1 * u_sphere.y + c2 * u_sphere.z + in_world[3].xyz;
    vec4 clip = u_view_proj * vec4(centre, 1.0);
    float stretch = sqrt(max(dot(c0, c0), max(dot(c1, c1), dot(c2, c2))));
    float px = u_sprite_width * stretch * u_px_scale / max(clip.w, 1e-6);
    bool marked = (v_highlight != 0.0 && u_glow_style != 2) || v_pending > 0.0;
    float chance = fract(sin(dot(centre, vec3(12.9898, 78.233, 37.719))) * 43758.5453);
    if (!marked && px < 1.0 && chance >= px * px) {
        gl_Position = vec4(0.0, 0.0, 2.0, 1.0);  // outside the clip volume: dropped
        return;
    }
    gl_PointSize = max(px, marked ? u_glow_min_px : 1.0);
#ifdef SPRITE
    // Cast: as wide as the bounding sphere looks, so that every corner is covered.
    float det = dot(c0, cross(c1, c2));
    bool shaped = u_shape != 0 && !marked && abs(det) > 1e-30;
    v_impostor = !shaped ? 0.0 : (px >= u_impostor_px || u_shape == 3) ? 2.0
               : u_shape == 1 ? 1.0 : 0.0;
    v_to_local = v_impostor > 0.0 ? inverse(mat3(c0, c1, c2)) : mat3(1.0);
    v_origin = in_world[3].xyz;
    if (v_impostor == 2.0) {
        gl_PointSize = 2.0 * u_sphere.w * stretch * u_px_scale / max(clip.w, 1e-6);
    }
#endif
    vec3 to_eye = u_ortho == 1 ? -u_view_dir : normalize(u_eye - centre);
    // Lit as a face towards the eye; a sprite has no silhouette, so in the rim style a
    // glowing one gets a normal across the view (all rim: its glow fills it).
    vec3 across = normalize(cross(to_eye, abs(to_eye.y) < 0.9 ? vec3(0.0, 1.0, 0.0)
                                                              : vec3(1.0, 0.0, 0.0)));
    v_normal = (u_glow_style == 1 && marked) ? across : to_eye;
    v_world_pos = centre;
    v_color = in_color;
    v_vcolor = vec4(1.0);
    v_mirror = 1.0;
    v_scale = 1.0;
    gl_Position = clip;
}

void main() {
    if (u_only >= 0 && gl_InstanceID != u_only) {
        gl_Position = vec4(0.0, 0.0, 2.0, 1.0);  // outside the clip volume: dropped
        return;
    }
    // Model matrix M = world * diag(size): the columns of its upper 3x3.
    vec3 c0 = in_world[0].xyz * in_size.x;
    vec3 c1 = in_world[1].xyz * in_size.y;
    vec3 c2 = in_world[2].xyz * in_size.z;
    vec3 p = c0 * in_position.x + c1 * in_position.y + c2 * in_position.z + in_world[3].xyz;
    // Normals transform by the cofactor matrix (inverse transpose up to a scale), which
    // stays right under non-uniform inherited scale; the sign of det keeps them outward.
    mat3 cof = mat3(cross(c1, c2), cross(c2, c0), cross(c0, c1));
    float det = dot(c0, cross(c1, c2));
    v_normal = cof * in_normal * (det < 0.0 ? -1.0 : 1.0);
    v_world_pos = p;
    v_color = mix(in_color, in_vcolor.rgb, in_vcolor.a);
    v_highlight = glow_value();
    float reason = floor(in_stamp.y);
    v_pending = (u_glow_on == 1 && reason >= 5.0) ? reason - 4.0 : 0.0;
    v_uv = in_uv;
    v_uv1 = in_uv1;
    v_vcolor = in_vcolor;
    v_mirror = det < 0.0 ? -1.0 : 1.0;
    v_scale = (length(c0) + length(c1) + length(c2)) / 3.0;
    if (u_sprite == 1) {
        sprite(c0, c1, c2);
        return;
    }
    vec4 clip = u_view_proj * vec4(p, 1.0);
    if (u_halo == 1) {
        vec4 center = u_view_proj * vec4(in_world[3].xyz, 1.0);
        if (v_highlight == 0.0 || clip.w <= 0.0 || center.w <= 0.0) {
            gl_Position = vec4(0.0, 0.0, 2.0, 1.0);  // outside the clip volume: dropped
            return;
        }
        // Push the vertex away from the projected origin by up to u_halo_px pixels.
        vec2 d = (clip.xy / clip.w - center.xy / center.w) * 0.5 * u_viewport;
        vec2 push = d * (u_halo_px / max(length(d), u_halo_px));
        clip.xy += push * 2.0 / u_viewport * clip.w;
    }
    gl_Position = clip;
}
