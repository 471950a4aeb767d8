#version 330 core
layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aNormal;
layout(location = 2) in vec2 aDisc; // the place on the sink's disc: (x, y) less its centre, over its radius
uniform mat4 uViewProj;
out vec3 vPos;
out vec3 vNormal;
out vec2 vDisc;
void main() {
	vPos = aPos;
	vNormal = aNormal;
	vDisc = aDisc;
	gl_Position = uViewProj * vec4(aPos, 1.0);
}
