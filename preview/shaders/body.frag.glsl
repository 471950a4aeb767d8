#version 330 core
in vec3 vPos;
in vec3 vNormal;
in vec3 vAlbedo;
uniform vec3 uLightDir;
out vec4 fragColor;

#include "terrain_shading.glsl"

// A floating body (bodyFS): the terrain's lighting and shadow in the body's own colour.
void main() {
	vec3 n = normalize(vNormal);
	if (!gl_FrontFacing) n = -n;
	fragColor = vec4(pow(litLinear(vAlbedo, vPos, n), vec3(1.0 / 2.2)), 1.0);
}
