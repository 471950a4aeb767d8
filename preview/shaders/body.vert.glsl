#version 330 core
layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aNormal;
layout(location = 2) in vec3 aColor; // sRGB
uniform mat4 uViewProj;
out vec3 vPos;
out vec3 vNormal;
out vec3 vAlbedo; // linear
void main() {
	vPos = aPos;
	vNormal = aNormal;
	vAlbedo = pow(clamp(aColor, 0.0, 1.0), vec3(2.2));
	gl_Position = uViewProj * vec4(aPos, 1.0);
}
