#version 330 core
in vec3 vPos;
in vec3 vNormal;
in float vOpacity;
uniform vec3 uEye;
uniform vec3 uLightDir;
uniform vec3 uColor;
uniform vec3 uSigma;
uniform float uDepthMax;
uniform sampler2D uBehind; // the picture before the liquid (behind_gl.go), display-encoded
uniform float uBehindOn;   // 0: no copy, estimate what is behind as the terrain here
layout(location = 0, index = 0) out vec4 fragColor;
layout(location = 0, index = 1) out vec4 fragBehind;

#include "terrain_shading.glsl"

// thicknessSlope is the slope of the liquid's thickness d along the surface here
// (m/m): the gradient, in the triangle's plane, of d over the screen-space derivatives of
// the position. Constant across a triangle (d is interpolated linearly).
float thicknessSlope(float d) {
	vec3 pa = dFdx(vPos), pb = dFdy(vPos);
	vec3 N = cross(pa, pb);
	vec3 g = (dFdx(d) * cross(pb, N) + dFdy(d) * cross(N, pa)) / max(dot(N, N), 1e-30);
	return length(g);
}

// studio is the radiance (linear RGB) the surface mirrors along r, seen from direction
// v, with lit the key light's unshadowed share and ringOn the ring's (the liquid's
// thickness changing): see liquidFS's comment.
vec3 studio(vec3 r, vec3 v, float lit, float ringOn) {
	float el = r.z; // the sine of r's elevation
	vec3 room = el >= 0.0 ? mix(vec3(0.20, 0.21, 0.23), vec3(0.03, 0.035, 0.045), smoothstep(0.0, 0.6, el)) : vec3(0.04);
	float strip = smoothstep(0.02, 0.05, el) * smoothstep(0.22, 0.18, el); // 1.5 to 12 degrees up
	float c = dot(r, reflect(-v, vec3(0.0, 0.0, 1.0))); // cos of the angle from the flat mirror direction
	float ring = smoothstep(0.9848, 0.9743, c) * smoothstep(0.7660, 0.8090, c); // 10 to 40 degrees, 3-degree edges
	float key = smoothstep(0.9925, 0.9962, dot(r, uLightDir)) * lit; // a disc 5 to 7 degrees across
	return room + 1.2 * strip + 4.0 * ringOn * ring + 60.0 * key;
}
void main() {
	vec3 n = normalize(vNormal);
	vec3 v = normalize(uEye - vPos);
	if (dot(n, v) < 0.0 && !gl_FrontFacing) n = -n;
	float d = clamp(vOpacity, 0.0, 1.0) * uDepthMax;
	float ndv = clamp(dot(n, v), 0.0, 1.0);
	// The terrain under the liquid is seen by light that crossed the layer twice: down
	// from the light and back up to the eye, each along its slant refracted into the
	// liquid (n = 1.33, Snell): the path is d (1/cos t_view + 1/cos t_light).
	float ndl = clamp(dot(n, uLightDir), 0.0, 1.0);
	float path = inversesqrt(1.0 - (1.0 - ndv * ndv) / 1.7689) + inversesqrt(1.0 - (1.0 - ndl * ndl) / 1.7689);
	vec3 T = exp(-uSigma * d * path);
	float w = smoothstep(2e-5, 3e-4, d);
	float F = w * (0.02 + 0.98 * pow(1.0 - ndv, 5.0));
	// The liquid's side along a side of the domain (surface/sides.go; its normals, and so
	// theirs between, have no vertical part) stands against the side's wall: water against
	// glass reflects next to nothing, and seen at a grazing angle the face shone white.
	if (abs(vNormal.z) < 1e-6) F = 0.0;
	float lit = keyShadow(vPos, n); // the key light's share here (the terrain's shadow)
	float cover = 1.0 - (T.r + T.g + T.b) / 3.0;
	vec3 body = pow(uColor, vec3(2.2)) * (0.35 + 0.65 * max(dot(n, uLightDir), 0.0) * lit);
	float ringOn = smoothstep(0.15, 0.3, thicknessSlope(d));
	vec3 add = body * cover * (1.0 - F) + F * studio(reflect(-v, n), v, lit, ringOn);
	vec3 behind = pow(T * (1.0 - F), vec3(1.0 / 2.2));
	float b = (behind.r + behind.g + behind.b) / 3.0;
	// Composite in linear RGB against what is behind (est: the picture before the
	// liquid, or without it the terrain as it would be drawn here), then take away est's
	// encoded share, which the blend adds back from the framebuffer.
	vec3 estEnc;
	if (uBehindOn > 0.5) {
		estEnc = texelFetch(uBehind, ivec2(gl_FragCoord.xy), 0).rgb;
	} else {
		estEnc = pow(terrainLinear(vPos - d * n, n), vec3(1.0 / 2.2));
	}
	vec3 est = pow(estEnc, vec3(2.2));
	vec3 lin = add + T * (1.0 - F) * est;
	vec3 src = max(pow(lin, vec3(1.0 / 2.2)) - behind * estEnc, 0.0);
	fragColor = vec4(src, 1.0 - b);
	fragBehind = vec4(behind, b);
}
