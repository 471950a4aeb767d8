#version 330 core
in vec3 vPos;
in vec3 vNormal;
uniform vec3 uEye;
uniform float uTop;  // the rim's top, m
uniform float uEdge; // the bright band along the top, m
out vec4 fragColor;
// A pane of clear glass (see wallFS): faint seen face on, stronger at grazing views, with
// a bright band along its top edge. The colour is written display-encoded, blended over
// what is behind (SRC_ALPHA, ONE_MINUS_SRC_ALPHA).
void main() {
	vec3 v = normalize(uEye - vPos);
	float ndv = abs(dot(normalize(vNormal), v));
	float edge = 1.0 - smoothstep(0.0, uEdge, uTop - vPos.z);
	float a = 0.10 + 0.35 * pow(1.0 - ndv, 3.0) + 0.45 * edge;
	vec3 c = mix(vec3(0.78, 0.86, 0.94), vec3(0.97, 0.98, 1.0), edge);
	fragColor = vec4(c, clamp(a, 0.0, 0.9));
}
