#version 330 core
layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aNormal;
layout(location = 2) in float aOpacity;
uniform mat4 uViewProj;
out vec3 vPos;
out vec3 vNormal;
out float vOpacity;
void main() {
	vPos = aPos;
	vNormal = aNormal;
	vOpacity = aOpacity;
	gl_Position = uViewProj * vec4(aPos, 1.0);
}
