#version 330 core
// One instanced draw per mesh kind. Per vertex: position, normal, a vertex colour whose
// alpha says how much it replaces the instance colour (the axes gizmo paints its arms).
// Per instance: the node's world matrix (column-vector convention), its look's colour
// and size (size scales the mesh only), and the highlight value the overlay drives.
uniform mat4 u_view_proj;

in vec3 in_position;
in vec3 in_normal;
in vec4 in_vcolor;

in mat4 in_world;
in vec3 in_color;
in vec3 in_size;
in float in_highlight;

out vec3 v_world_pos;
out vec3 v_normal;
out vec3 v_color;
out float v_highlight;

void main() {
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
    gl_Position = u_view_proj * vec4(p, 1.0);
}
