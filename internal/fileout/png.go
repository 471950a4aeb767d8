package fileout

import (
	"image"
	"image/png"
	"io"
)

// WritePNG creates or replaces the file at path with img as PNG (best compression), as
// Write does: missing folders are made, and a failed write leaves any earlier file at
// path as it was.
func WritePNG(path string, img image.Image) error {
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	return Write(path, func(w io.Writer) error { return enc.Encode(w, img) })
}
