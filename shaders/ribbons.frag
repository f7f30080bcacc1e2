#version 330 core
in vec4 g_color;
out vec4 f_color;

void main() {
    f_color = g_color;
}
