package preview

import (
	"image"
	"image/png"
	"io"

	"github.com/vpbench/vpbench/internal/fileout"
)

// WritePNG writes img to path as PNG, making missing folders (a failed write leaves any
// earlier file at path as it was).
func WritePNG(path string, img image.Image) error {
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	return fileout.Write(path, func(w io.Writer) error { return enc.Encode(w, img) })
}
