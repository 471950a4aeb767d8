// Command edgemeasure measures how a picture draws the liquid's edge (issue 37's
// measures, internal/edgemeasure): the liquid's pixels, pieces, specks (pieces under 40
// pixels) and the roughness of its outline.
//
//	go run ./tools/edgemeasure [--liquid water|blood|coffee|paint] picture.png ...
//
// The pictures are PNGs or JPEGs, for instance from vpbench render --at 3 --width 800
// --height 450. One line per picture.
package main

import (
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	_ "image/jpeg"
	"image/png"
	_ "image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vpbench/vpbench/internal/edgemeasure"
	"github.com/vpbench/vpbench/scene"
)

func main() {
	liquid := flag.String("liquid", "", "the liquid's colour to look for: water, blood, coffee or paint (default: guessed from the file name, else water)")
	marks := flag.String("marks", "", "also write each picture with its specks ringed in magenta and the rest of the liquid mask tinted, as `SUFFIX` after its name (x.png: x.SUFFIX.png)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./tools/edgemeasure [--liquid NAME] picture.png ...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	code := 0
	for _, path := range flag.Args() {
		name := *liquid
		if name == "" {
			name = guess(path)
		}
		col, ok := scene.LiquidColors[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "edgemeasure: liquid %q: want one of water, blood, coffee, paint\n", name)
			os.Exit(2)
		}
		img, err := load(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "edgemeasure: %v\n", err)
			code = 1
			continue
		}
		e := edgemeasure.Measure(img, col)
		if *marks != "" {
			out := strings.TrimSuffix(path, filepath.Ext(path)) + "." + *marks + ".png"
			if err := writeMarks(out, img, edgemeasure.LiquidMask(img, col)); err != nil {
				fmt.Fprintf(os.Stderr, "edgemeasure: %v\n", err)
				code = 1
			}
		}
		fmt.Printf("%s (%s): %d specks, roughness %.2f (%d liquid pixels in %d pieces)\n",
			path, name, e.Specks, e.Roughness, e.Pixels, e.Pieces)
	}
	os.Exit(code)
}

// guess names the liquid from the file's name (coffee3.png: coffee), rock's being paint
// and surgery's blood.
func guess(path string) string {
	base := strings.ToLower(path[strings.LastIndex(path, "/")+1:])
	names := []string{"blood", "coffee", "paint", "water"}
	for _, n := range names {
		if strings.Contains(base, n) {
			return n
		}
	}
	for scene, liquid := range map[string]string{"rock": "paint", "surgery": "blood", "gauze": "blood"} {
		if strings.Contains(base, scene) && slices.Contains(names, liquid) {
			return liquid
		}
	}
	return "water"
}

// load reads a PNG or JPEG into RGBA.
func load(path string) (*image.RGBA, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src, _, err := image.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	dst := image.NewRGBA(src.Bounds())
	draw.Draw(dst, dst.Bounds(), src, src.Bounds().Min, draw.Src)
	return dst, nil
}

// writeMarks writes img with the liquid mask tinted green and each speck (a 4-connected
// piece under edgemeasure.SpeckPixels) ringed by a magenta square.
func writeMarks(path string, img *image.RGBA, mask []bool) error {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := image.NewRGBA(b)
	draw.Draw(out, b, img, b.Min, draw.Src)
	for p, m := range mask {
		if m {
			c := out.RGBAAt(b.Min.X+p%w, b.Min.Y+p/w)
			c.G = uint8(min(255, int(c.G)+60))
			out.SetRGBA(b.Min.X+p%w, b.Min.Y+p/w, c)
		}
	}
	magenta := color.RGBA{255, 0, 255, 255}
	seen := make([]bool, len(mask))
	var stack, piece []int
	for start, m := range mask {
		if !m || seen[start] {
			continue
		}
		seen[start] = true
		stack, piece = append(stack[:0], start), piece[:0]
		for len(stack) > 0 {
			p := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			piece = append(piece, p)
			x, y := p%w, p/w
			for _, q := range [4][2]int{{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}} {
				if q[0] < 0 || q[1] < 0 || q[0] >= w || q[1] >= h {
					continue
				}
				i := q[1]*w + q[0]
				if mask[i] && !seen[i] {
					seen[i] = true
					stack = append(stack, i)
				}
			}
		}
		if len(piece) >= edgemeasure.SpeckPixels {
			continue
		}
		x0, y0, x1, y1 := w, h, 0, 0
		for _, p := range piece {
			x0, y0, x1, y1 = min(x0, p%w), min(y0, p/w), max(x1, p%w), max(y1, p/w)
		}
		x0, y0, x1, y1 = max(x0-3, 0), max(y0-3, 0), min(x1+3, w-1), min(y1+3, h-1)
		for x := x0; x <= x1; x++ {
			out.SetRGBA(b.Min.X+x, b.Min.Y+y0, magenta)
			out.SetRGBA(b.Min.X+x, b.Min.Y+y1, magenta)
		}
		for y := y0; y <= y1; y++ {
			out.SetRGBA(b.Min.X+x0, b.Min.Y+y, magenta)
			out.SetRGBA(b.Min.X+x1, b.Min.Y+y, magenta)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, out); err != nil {
		f.Close()
		return fmt.Errorf("%s: %v", path, err)
	}
	return f.Close()
}
