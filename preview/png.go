package preview

import (
	"image"

	"github.com/vpbench/vpbench/internal/fileout"
)

// WritePNG writes img to path as PNG, making missing folders (a failed write leaves any
// earlier file at path as it was). It is fileout.WritePNG, which packages that do not
// draw (internal/clip) call directly.
func WritePNG(path string, img image.Image) error { return fileout.WritePNG(path, img) }
