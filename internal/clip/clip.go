// Package clip writes a sequence of pictures as a video, through the ffmpeg program
// (H.264, or an animated GIF for a page that shows no video), or as numbered PNG files. `vpbench render --to B --out clip.mp4`,
// sim:record{} and the terminal UI's v key use it.
package clip

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/vpbench/vpbench/internal/fileout"
)

// Writer takes a clip's pictures in order.
type Writer interface {
	// Write adds the next picture.
	Write(img *image.RGBA) error
	// Close finishes the clip: the video file appears only now, complete. abort leaves
	// nothing behind (an interrupted or failed run).
	Close(abort bool) error
}

// pngPattern is a numbered picture path: one printf verb for the frame number, such as
// %d or %04d, and a .png ending.
var pngPattern = regexp.MustCompile(`^[^%]*%0?[0-9]*d[^%]*\.png$`)

// videoExts are the endings ffmpeg writes a video for.
var videoExts = map[string]bool{".mp4": true, ".mkv": true, ".mov": true, ".gif": true}

// CheckOut checks a clip's file name: a video (.mp4, .mkv, .mov; .gif for an animated
// GIF) or a numbered picture pattern (frames/f_%04d.png). The error names it as out ("--out ..." for the command).
func CheckOut(out string) error {
	switch {
	case out == "":
		return errors.New("--out is empty: want clip.mp4 (a video) or frames/f_%04d.png (numbered pictures)")
	case videoExts[strings.ToLower(filepath.Ext(out))]:
		return nil
	case strings.HasSuffix(strings.ToLower(out), ".png"):
		if !pngPattern.MatchString(filepath.ToSlash(out)) {
			return fmt.Errorf("--out %q: numbered pictures need one frame-number verb such as %%04d in the name (frames/f_%%04d.png)", out)
		}
		return nil
	}
	return fmt.Errorf("--out %q: want a video (.mp4, .mkv, .mov, or .gif for an animated GIF, written with ffmpeg) or numbered pictures (frames/f_%%04d.png)", out)
}

// FFmpegAvailable reports whether the ffmpeg program is on PATH.
func FFmpegAvailable() bool {
	_, err := exec.LookPath("ffmpeg")
	return err == nil
}

// findFFmpeg is the ffmpeg program, or an error that says what to do without it.
func findFFmpeg(out string) (string, error) {
	p, err := exec.LookPath("ffmpeg")
	if err != nil {
		return "", fmt.Errorf("writing %s needs the ffmpeg program, which is not installed: install it (apt-get install ffmpeg; `make test` installs it), or write numbered pictures instead: --out frames/f_%%04d.png", out)
	}
	return p, nil
}

// New makes the writer for out (checked by CheckOut) of width x height pictures at fps
// a second. ffmpeg stops with ctx.
func New(ctx context.Context, out string, width, height int, fps float64) (Writer, error) {
	if strings.HasSuffix(strings.ToLower(out), ".png") {
		if dir := filepath.Dir(out); dir != "." {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("--out %s: %v", out, err)
			}
		}
		return &pngSequence{pattern: out}, nil
	}
	bin, err := findFFmpeg(out)
	if err != nil {
		return nil, err
	}
	ext := strings.ToLower(filepath.Ext(out))
	if ext != ".gif" && (width%2 != 0 || height%2 != 0) {
		return nil, fmt.Errorf("a video needs an even width and height (H.264 in yuv420p): --width %d --height %d", width, height)
	}
	if dir := filepath.Dir(out); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("--out %s: %v", out, err)
		}
	}
	// ffmpeg writes beside the destination; the file takes its name only when complete,
	// so an interrupted run leaves an earlier clip of that name as it was.
	part := filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+".part"+ext)
	args := []string{"-hide_banner", "-loglevel", "error", "-y",
		"-f", "rawvideo", "-pix_fmt", "rgba", "-s", fmt.Sprintf("%dx%d", width, height), "-framerate", fmt.Sprint(fps), "-i", "-"}
	if ext == ".gif" {
		// One palette for the whole clip, made from all its pictures (ffmpeg keeps them
		// until the end: about 1.4 MB a picture at 800 x 450), ordered dithering (it
		// does not crawl from picture to picture as error diffusion does), and only the
		// changed rectangle of each picture stored.
		args = append(args, "-vf", "split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=bayer:bayer_scale=3:diff_mode=rectangle",
			"-loop", "0", part)
	} else {
		args = append(args, "-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "18", "-movflags", "+faststart", part)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	v := &ffmpegVideo{cmd: cmd, in: stdin, part: part, out: out, width: width, height: height}
	cmd.Stdout, cmd.Stderr = &v.log, &v.log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting ffmpeg: %v", err)
	}
	return v, nil
}

// pngSequence writes picture k to fmt.Sprintf(pattern, k).
type pngSequence struct {
	pattern string
	n       int
	written []string
}

func (p *pngSequence) Write(img *image.RGBA) error {
	path := fmt.Sprintf(p.pattern, p.n)
	if err := fileout.WritePNG(path, img); err != nil {
		return err
	}
	p.written = append(p.written, path)
	p.n++
	return nil
}

// Close keeps the pictures written, also when the run stops early: each is complete.
func (p *pngSequence) Close(bool) error { return nil }

// ffmpegVideo streams raw RGBA pictures into ffmpeg.
type ffmpegVideo struct {
	cmd           *exec.Cmd
	in            io.WriteCloser
	log           bytes.Buffer
	part, out     string
	width, height int
}

func (v *ffmpegVideo) Write(img *image.RGBA) error {
	b := img.Bounds()
	if b.Dx() != v.width || b.Dy() != v.height {
		return fmt.Errorf("a %dx%d picture for a %dx%d video", b.Dx(), b.Dy(), v.width, v.height)
	}
	for y := range v.height {
		row := img.Pix[y*img.Stride : y*img.Stride+4*v.width]
		if _, err := v.in.Write(row); err != nil {
			return fmt.Errorf("ffmpeg stopped taking pictures: %v%s", err, v.said())
		}
	}
	return nil
}

func (v *ffmpegVideo) Close(abort bool) error {
	v.in.Close()
	err := v.cmd.Wait()
	if abort {
		os.Remove(v.part)
		return nil
	}
	if err != nil {
		os.Remove(v.part)
		return fmt.Errorf("ffmpeg failed writing %s: %v%s", v.out, err, v.said())
	}
	if err := os.Rename(v.part, v.out); err != nil {
		os.Remove(v.part)
		return err
	}
	return nil
}

// said is what ffmpeg printed, for an error message.
func (v *ffmpegVideo) said() string {
	s := strings.TrimSpace(v.log.String())
	if s == "" {
		return ""
	}
	return " (ffmpeg said: " + s + ")"
}
