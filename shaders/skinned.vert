#version 330 core
// Skinned meshes (glTF skins), drawn with instanced.frag. Each vertex follows up to four
// joints: its position is sum_k weight_k * J[joint_k] * p, where J[j] = world(joint j) *
// inverseBind(j) is read from u_joints, one texture row per joint and one texel per
// column. The mesh node's own transform plays no part (the glTF rule).
uniform mat4 u_view_proj;
uniform sampler2D u_joints;
uniform vec3 u_color;

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

mat4 joint_matrix(float index) {
    int row = int(index + 0.5);
    return mat4(texelFetch(u_joints, ivec2(0, row), 0), texelFetch(u_joints, ivec2(1, row), 0),
                texelFetch(u_joints, ivec2(2, row), 0), texelFetch(u_joints, ivec2(3, row), 0));
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
    v_highlight = 0.0;
    v_pending = 0.0;
    v_uv = in_uv;
    v_uv1 = in_uv1;
    v_vcolor = in_vcolor;
    v_mirror = det < 0.0 ? -1.0 : 1.0;
    gl_Position = u_view_proj * vec4(p.xyz, 1.0);
}
