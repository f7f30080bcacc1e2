#version 330 core
// The transmission pass's picture starts as the picture drawn so far (the room and what
// has no glTF material), its display values decoded to linear light: the copy is an sRGB
// texture. The glTF parts are then drawn over it in linear radiance.
uniform sampler2D u_picture;
out vec4 f_color;

void main() {
    f_color = texelFetch(u_picture, ivec2(gl_FragCoord.xy), 0);
}
