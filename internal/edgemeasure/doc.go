// Package edgemeasure measures how a rendered picture draws the liquid's edge: how many
// specks of liquid it shows (small pieces apart from the rest) and how rough the
// liquid's outline is. The liquid is the picture's pixels that read as the liquid's
// colour (LiquidMask); the measures are those of issue 37, "The liquid's edge":
//
//   - specks: the 4-connected pieces of the liquid mask under SpeckPixels pixels;
//   - roughness: the mask's boundary length over the boundary length of the same mask
//     after a morphological opening and then a closing with a disc of radius 2 pixels.
//     A clean outline loses little to the smoothing and scores about 1.2 to 1.3 (the
//     pixel boundary of a smooth curve has its own stairs, which the smoothing keeps);
//     lace, torn edges and specks score more.
//
// The package reads pictures only: it knows nothing of OpenGL, the scene or the solver,
// so the preview's tests and any tool can measure a PNG with it.
package edgemeasure
