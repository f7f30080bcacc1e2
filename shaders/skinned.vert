#version 330 core
// Skinned meshes (glTF skins), drawn with instanced.frag. Each vertex follows up to four
// joints: its position is sum_k weight_k * J[joint_k] * p, where J[j] = world(joint j) *
// inverseBind(j) is read from u_joints, one texture row per joint and one texel per
// column. The mesh node's own transform plays no part (the glTF rule). It glows where its
// joints were recomputed: u_joint_glow holds each joint's glow stamp (time, reason), as
// the node rows' in_stamp, and a vertex takes its joints' glow blended by its weights
// (its colour: the joint that weighs most in it).
uniform mat4 u_view_proj;
uniform sampler2D u_joints;
uniform sampler2D u_joint_glow;
uniform vec3 u_color;
uniform float u_time;         // the glow's clock and settings, as instanced.vert's
uniform float u_fade;
uniform int u_glow_on;
uniform int u_glow_style;
uniform float u_heat_seconds;
uniform float u_heat_norm;

in vec3 in_position;
in vec3 in_normal;
in vec4 in_vcolor;
in vec2 in_uv;
in vec2 in_uv1;
in vec4 in_joints;   // joint indices, as floats
in vec4 in_weights;  // sum to 1

out vec3 v_world_pos;
out vec3 v_normal;
out vec3 v_color;
out float v_highlight;
out float v_pending;  // instanced.frag's pending look: skinned meshes have no stamps
out vec2 v_uv;
out vec2 v_uv1;
out vec4 v_vcolor;  // the vertex colour as is (glTF: COLOR_0)
out float v_mirror;  // -1 where the transform mirrors (glTF: the front face flips)
out float v_scale;   // the model matrix's mean scale (a volume's thickness is in mesh units)

mat4 joint_matrix(float index) {
    int row = int(index + 0.5);
    return mat4(texelFetch(u_joints, ivec2(0, row), 0), texelFetch(u_joints, ivec2(1, row), 0),
                texelFetch(u_joints, ivec2(2, row), 0), texelFetch(u_joints, ivec2(3, row), 0));
}

// instanced.vert's glow_value, for a joint's stamp.
float joint_glow(float index) {
    if (u_glow_on == 0) return 0.0;
    vec2 stamp = texelFetch(u_joint_glow, ivec2(0, int(index + 0.5)), 0).xy;
    float age = max(u_time - stamp.x, 0.0);
    float reason = floor(stamp.y);
    if (u_glow_style == 2) {
        float heat = fract(stamp.y) * exp(-age / u_heat_seconds) * u_heat_norm;
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

float skin_glow() {
    vec4 g = vec4(joint_glow(in_joints.x), joint_glow(in_joints.y),
                  joint_glow(in_joints.z), joint_glow(in_joints.w));
    vec4 weighed = in_weights * abs(g);
    float strength = dot(weighed, vec4(1.0));
    float top = max(max(weighed.x, weighed.y), max(weighed.z, weighed.w));
    float sign_of = weighed.x == top ? g.x : weighed.y == top ? g.y : weighed.z == top ? g.z : g.w;
    return sign_of < 0.0 ? -strength : strength;
}

void main() {
    mat4 skin = in_weights.x * joint_matrix(in_joints.x) + in_weights.y * joint_matrix(in_joints.y)
              + in_weights.z * joint_matrix(in_joints.z) + in_weights.w * joint_matrix(in_joints.w);
    vec4 p = skin * vec4(in_position, 1.0);
    // Normals by the cofactor matrix, as in instanced.vert.
    vec3 c0 = skin[0].xyz, c1 = skin[1].xyz, c2 = skin[2].xyz;
    mat3 cof = mat3(cross(c1, c2), cross(c2, c0), cross(c0, c1));
    float det = dot(c0, cross(c1, c2));
    v_normal = cof * in_normal * (det < 0.0 ? -1.0 : 1.0);
    v_world_pos = p.xyz;
    v_color = mix(u_color, in_vcolor.rgb, in_vcolor.a);
    v_highlight = skin_glow();
    v_pending = 0.0;
    v_uv = in_uv;
    v_uv1 = in_uv1;
    v_vcolor = in_vcolor;
    v_mirror = det < 0.0 ? -1.0 : 1.0;
    v_scale = (length(c0) + length(c1) + length(c2)) / 3.0;
    gl_Position = u_view_proj * vec4(p.xyz, 1.0);
}
