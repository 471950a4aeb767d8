#version 330 core
in vec3 vPos;
in vec3 vNormal;
in vec2 vDisc;
uniform vec3 uLightDir;
out vec4 fragColor;

#include "terrain_shading.glsl"

// A sink's mark (sinkFS, preview/sinks.go): a drain on the floor, the sink's disc. Out
// to its edge a rim of light metal, rounded (its normal leans out on its outer half and
// in on its inner); inside, a dark hole, darker towards its middle, across it a grate of
// bars. Lit as the terrain (litLinear: ambient, key light, shadow); its edge blended
// over the terrain by coverage, a pixel wide.
const float RIM = 0.72; // where the rim begins, over the radius
void main() {
	float r = length(vDisc);
	float aa = max(fwidth(r), 1e-4);
	float cover = 1.0 - smoothstep(1.0 - aa, 1.0, r);
	if (cover <= 0.0) discard;
	vec3 n = normalize(vNormal);
	if (!gl_FrontFacing) n = -n;
	vec2 dir = r > 1e-5 ? vDisc / r : vec2(0.0);
	vec3 base;
	if (r > RIM) {
		float s = 2.0 * (r - RIM) / (1.0 - RIM) - 1.0; // -1 at the inner edge, 1 at the outer
		n = normalize(n + 0.9 * s * vec3(dir, 0.0));
		base = vec3(0.62, 0.63, 0.66);
	} else {
		float d = r / RIM;
		base = vec3(0.030, 0.028, 0.026) * (0.35 + 0.65 * d * d);
		float bar = abs(fract(vDisc.x * 2.2 + 0.5) - 0.5); // bars across, 0.45 radii apart
		float w = max(fwidth(vDisc.x) * 2.2, 1e-4);
		base = mix(base, vec3(0.28, 0.28, 0.30), (1.0 - smoothstep(0.09 - w, 0.09 + w, bar)) * step(d, 0.93));
	}
	fragColor = vec4(pow(litLinear(base, vPos, n), vec3(1.0 / 2.2)), cover);
}
