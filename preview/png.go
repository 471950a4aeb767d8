package preview

import (
	"image"
	"image/png"
	"os"
	"path/filepath"
)

// WritePNG writes img to path as PNG, making missing folders.
func WritePNG(path string, img image.Image) error {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	err = enc.Encode(f, img)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
