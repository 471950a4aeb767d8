uniform sampler2DShadow uShadow;
uniform mat4 uLightViewProj;
uniform float uShadowOn;
uniform float uShadowOffset;
uniform float uShadowTexel;
uniform float uChecker; // the terrain's checker square, m
float keyShadow(vec3 p, vec3 n) {
	if (uShadowOn < 0.5) return 1.0;
	vec4 q = uLightViewProj * vec4(p + n * uShadowOffset, 1.0);
	vec3 s = q.xyz / q.w * 0.5 + 0.5;
	if (s.x <= 0.0 || s.x >= 1.0 || s.y <= 0.0 || s.y >= 1.0 || s.z >= 1.0) return 1.0;
	if (uShadowTexel <= 0.0) return texture(uShadow, s); // one lookup (software renderers)
	float t = 0.5 * uShadowTexel;
	return 0.25 * (texture(uShadow, vec3(s.xy + vec2(-t, -t), s.z)) + texture(uShadow, vec3(s.xy + vec2(t, -t), s.z))
		+ texture(uShadow, vec3(s.xy + vec2(-t, t), s.z)) + texture(uShadow, vec3(s.xy + vec2(t, t), s.z)));
}
// litLinear is a surface of albedo base (linear RGB) at p (unit normal n) lit as the
// terrain is: a hemisphere ambient (sky above, a darker bounce below) plus Lambert from
// the key light, shadowed. The terrain and the floating bodies (body.frag.glsl) share it.
vec3 litLinear(vec3 base, vec3 p, vec3 n) {
	float hemi = 0.5 + 0.5 * n.z;
	vec3 ambient = mix(vec3(0.06, 0.06, 0.06), vec3(0.22, 0.23, 0.26), hemi);
	float diff = max(dot(n, uLightDir), 0.0);
	if (diff > 0.0) diff *= keyShadow(p, n);
	return base * (ambient + 0.95 * diff);
}
vec3 terrainLinear(vec3 p, vec3 n) {
	vec3 base = vec3(0.62, 0.60, 0.57);
	// The checker's cell is taken a little inside the surface (against n): a face lying on
	// a cell boundary (a flat top at a multiple of uChecker, a wall on the domain's side)
	// otherwise flips between two cells pixel by pixel with the rounding of the
	// interpolated position (a speckle like shadow acne). Heights go a twentieth of a
	// square (0.5 mm) in: the narrow chamfer that marching cubes cuts along a crease
	// standing on a floor or a flat top (up to half a cell high) flipped in a sawtooth band.
	// Across, a thousandth: there a deeper offset would draw the vertical boundaries' jumps
	// of normal between a simplified terrain's triangles as stripes.
	vec3 inward = n * uChecker * vec3(1e-3, 1e-3, 0.05);
	ivec3 c = ivec3(floor((p - inward) / uChecker));
	if (((c.x + c.y + c.z) & 1) == 1) base *= 0.86;
	return litLinear(base, p, n);
}
