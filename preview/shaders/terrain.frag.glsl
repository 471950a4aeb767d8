#version 330 core
in vec3 vPos;
in vec3 vNormal;
uniform vec3 uLightDir;
out vec4 fragColor;

#include "terrain_shading.glsl"

void main() {
	vec3 n = normalize(vNormal);
	if (!gl_FrontFacing) n = -n;
	fragColor = vec4(pow(terrainLinear(vPos, n), vec3(1.0 / 2.2)), 1.0);
}
