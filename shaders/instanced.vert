#version 330 core
// One instanced draw per mesh kind. Per vertex: position, normal, a vertex colour whose
// alpha says how much it replaces the instance colour (the axes gizmo paints its arms).
// Per instance: the node's world matrix (column-vector convention), its look's colour
// and size (size scales the mesh only), and the overlay's highlight: its magnitude is the
// glow strength, its sign the colour (negative: local change, red; positive: world only,
// orange).
//
// u_halo = 1 is the halo pass, drawn before the scene: only glowing instances, each
// grown by u_halo_px pixels around its projected origin, in flat glow colour; the scene
// drawn afterwards covers all but the rim, which outlines the glowing nodes.
uniform mat4 u_view_proj;
uniform int u_halo;
uniform vec2 u_viewport;    // pixels
uniform float u_halo_px;
uniform int u_only;         // >= 0: draw only this instance (blended parts, back to front)

in vec3 in_position;
in vec3 in_normal;
in vec4 in_vcolor;
in vec2 in_uv;      // texture coordinates TEXCOORD_0 and TEXCOORD_1 (glTF meshes)
in vec2 in_uv1;

in mat4 in_world;
in vec3 in_color;
in vec3 in_size;
in float in_highlight;

out vec3 v_world_pos;
out vec3 v_normal;
out vec3 v_color;
out float v_highlight;
out vec2 v_uv;
out vec2 v_uv1;
out vec4 v_vcolor;  // the vertex colour as is (glTF: COLOR_0)
out float v_mirror;  // -1 where the transform mirrors (glTF: the front face flips)

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
    v_highlight = in_highlight;
    v_uv = in_uv;
    v_uv1 = in_uv1;
    v_vcolor = in_vcolor;
    v_mirror = det < 0.0 ? -1.0 : 1.0;
    vec4 clip = u_view_proj * vec4(p, 1.0);
    if (u_halo == 1) {
        vec4 center = u_view_proj * vec4(in_world[3].xyz, 1.0);
        if (in_highlight == 0.0 || clip.w <= 0.0 || center.w <= 0.0) {
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
