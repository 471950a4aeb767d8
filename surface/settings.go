package surface

import (
	"fmt"
	"math"
)

// Settings are the parameters of the surface and its meniscus shading. Lengths in metres,
// angles in radians.
type Settings struct {
	// DepthMax is the depth from which the liquid is opaque: a wet vertex has opacity
	// min((h - b) / DepthMax, 1) (paper Eq. 5). > 0. Default 0.002 m.
	DepthMax float64
	// MeniscusLength is how far from the boundary the meniscus tilts the normals (paper
	// Sec. 5.2: 2.8 mm for water against air). > 0. Default 0.0028 m.
	MeniscusLength float64
	// ContactAngle is Young's contact angle alpha between liquid and solid, measured
	// through the liquid, in [0, pi]. Default 30 degrees (water on a lightly
	// hydrophilic surface: a flat floor gives a convex edge, a vertical wall a concave
	// meniscus).
	ContactAngle float64
	// Meniscus turns the meniscus shading (Sec. 5) on. Default true.
	Meniscus bool
	// FallDrop, when > 0, leaves two wet columns unlinked where one's surface lies more
	// than FallDrop below the other's floor: the solver lets liquid fall there as
	// particles (gpusim.Settings.Falling), so a steep sheet between the two pools would
	// show liquid that is in the air, not on a wall. 0 links them as the paper does.
	FallDrop float64
	// ConvexTilt turns the normals of a convex edge's band (psi < 0: the solid rises
	// towards the boundary less steeply than the contact angle, as on a floor) as the
	// paper does. Default false: there the contour (contour.go) draws the edge, the
	// surface falling to its contact on the floor with the contact angle's normal, and
	// the band's tilt, 5 to 20 degrees over most of MeniscusLength, mirrored the studio's
	// ring as a pale rim a few pixels inside every edge (docs/preview.md, "The liquid's
	// edge"). A concave edge (against a wall) keeps the paper's tilt.
	ConvexTilt bool
	// Sides closes the liquid where it reaches a side of the domain: the surface runs
	// on to the side's plane and a vertical face goes down from it to the floor (the
	// grid's cell centres stop half a cell short of the side). Default true.
	Sides bool
	// Camera is the eye position, m, for the convex-meniscus cap (Sec. 5.3) and the
	// guarantee that no normal faces away from the viewer. nil: no cap.
	Camera *[3]float64
}

// DefaultSettings returns the paper's parameters: DepthMax 2 mm, MeniscusLength 2.8 mm,
// ContactAngle 30 degrees, meniscus on, no camera; and the liquid's sides.
func DefaultSettings() Settings {
	return Settings{
		DepthMax:       0.002,
		MeniscusLength: 0.0028,
		ContactAngle:   30 * math.Pi / 180,
		Meniscus:       true,
		Sides:          true,
	}
}

// Validate names the first field of s that cannot be used.
func (s Settings) Validate() error {
	if !(s.DepthMax > 0) || math.IsInf(s.DepthMax, 0) {
		return fmt.Errorf("surface: DepthMax is %g m: it must be a finite number > 0", s.DepthMax)
	}
	if !(s.MeniscusLength > 0) || math.IsInf(s.MeniscusLength, 0) {
		return fmt.Errorf("surface: MeniscusLength is %g m: it must be a finite number > 0", s.MeniscusLength)
	}
	if !(s.ContactAngle >= 0 && s.ContactAngle <= math.Pi) {
		return fmt.Errorf("surface: ContactAngle is %g rad: it must lie in [0, pi]", s.ContactAngle)
	}
	if !(s.FallDrop >= 0) || math.IsInf(s.FallDrop, 0) {
		return fmt.Errorf("surface: FallDrop is %g m: it must be a finite number >= 0", s.FallDrop)
	}
	if s.Camera != nil {
		for k, v := range s.Camera {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("surface: Camera[%d] is %g: it must be a finite number of metres", k, v)
			}
		}
	}
	return nil
}
