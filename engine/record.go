package engine

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"path/filepath"
	"sync"
	"time"

	"github.com/vpbench/vpbench/internal/clip"
	"github.com/vpbench/vpbench/preview"
)

// Recording: a clip of the preview's view while the scenario runs (sim:record{} from a
// script, the terminal UI's v key). Pictures are taken at simulated times t0, t0 + 1/fps,
// ... (the first frame at or after each), t0 the time the recording starts, so a
// recording of a real-time run plays at the speed it ran and one of a run as fast as
// possible plays at real speed too.

// DefaultRecordFPS is the pictures a simulated second of the UI's recordings.
const DefaultRecordFPS = 30

// recording is a clip in progress.
type recording struct {
	path     string
	fps      float64
	t0       float64
	k        int      // the next picture's number
	w        *encoder // made at the first picture, when its size is known
	width    int
	height   int
	pictures int // pictures drawn (a picture repeated for a long step counts once)
	ctx      context.Context
	cancel   context.CancelFunc
}

// recorder is the runner's part that records clips: fed each frame's figures (frame), it
// draws the pictures due by the frame's time. It draws with the shooter, from the
// pictures the runner hands it (picture: the preview's frame of the scene now).
type recorder struct {
	rec       *recording // the clip being recorded, if any
	shooter   Shooter
	src       *preview.Source
	newClip   ClipWriterFunc
	headless  bool // keep every picture (a headless run is no real-time run)
	addRender func(time.Duration)
	logf      func(lvl LogLevel, format string, a ...any)
}

// picture is the preview's frame of the scene now (the runner's frameWork.currentFrame).
type picture func() (preview.Frame, error)

// path is the clip being recorded, "" when none.
func (c *recorder) path() string {
	if c.rec == nil {
		return ""
	}
	return c.rec.path
}

// start starts a clip into path at fps pictures a simulated second from simulated time
// t; its first picture is pic's.
func (c *recorder) start(path string, fps, t float64, pic picture) error {
	switch {
	case c.rec != nil:
		return fmt.Errorf("a recording to %s is running: stop it first", c.rec.path)
	case c.shooter == nil:
		return errors.New("recording needs the preview host: run the scenario with vpbench run or the UI")
	case math.IsNaN(fps) || fps <= 0 || fps > 1000:
		return fmt.Errorf("fps is %v: it must be a number of pictures a simulated second in (0, 1000]", fps)
	}
	if err := clip.CheckOut(path); err != nil {
		return err
	}
	if ext := filepath.Ext(path); ext != ".png" && !clip.FFmpegAvailable() {
		return fmt.Errorf("recording to %s needs the ffmpeg program, which is not installed: install it (apt-get install ffmpeg), or record numbered pictures (frames/f_%%04d.png)", path)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.rec = &recording{path: path, fps: fps, t0: t, ctx: ctx, cancel: cancel}
	if err := c.draw(t, pic); err != nil {
		c.rec.cancel()
		c.rec = nil
		return err
	}
	c.logf(LogInfo, "recording %s at %g pictures a simulated second", path, fps)
	return nil
}

// frame draws the pictures due by the end of frame f; a failure ends the recording (what
// it has is kept) and is logged; the run goes on.
func (c *recorder) frame(f frameDone, pic picture) {
	if c.rec == nil {
		return
	}
	if err := c.draw(f.Time, pic); err != nil {
		c.logf(LogError, "recording %s: %v", c.rec.path, err)
		c.stop()
	}
}

// draw draws the pictures due by simulated time t, if a recording runs.
func (c *recorder) draw(t float64, pic picture) error {
	rec := c.rec
	if rec == nil {
		return nil
	}
	const tol = 1e-9
	if t < rec.t0+float64(rec.k)/rec.fps-tol {
		return nil
	}
	f, err := pic()
	if err != nil {
		return err
	}
	img, took, err := c.shooter.RenderImage(c.src, &f, rec.width, rec.height)
	if err != nil {
		return err
	}
	c.addRender(took)
	if rec.w == nil {
		b := img.Bounds()
		rec.width, rec.height = b.Dx()&^1, b.Dy()&^1 // a video needs even sizes
		if rec.width != b.Dx() || rec.height != b.Dy() {
			if img, _, err = c.shooter.RenderImage(c.src, &f, rec.width, rec.height); err != nil {
				return err
			}
		}
		newWriter := ClipWriterFunc(clip.New)
		if c.newClip != nil {
			newWriter = c.newClip
		}
		cw, err := newWriter(rec.ctx, rec.path, rec.width, rec.height, rec.fps)
		if err != nil {
			return err
		}
		rec.w = newEncoder(cw, encodeQueue)
		rec.w.block = c.headless
	}
	if err := rec.w.failed(); err != nil {
		return err
	}
	rec.pictures++
	for ; t >= rec.t0+float64(rec.k)/rec.fps-tol; rec.k++ {
		rec.w.put(img)
	}
	if n := rec.w.dropped; n > rec.w.told && time.Since(rec.w.toldAt) >= dropReportEvery {
		c.logf(LogWarn, "recording %s: %d picture(s) dropped from the clip so far: the encoder is behind the run", rec.path, n)
		rec.w.told, rec.w.toldAt = n, time.Now()
	}
	return nil
}

// stop finishes the clip (the video file appears now) and says what it holds.
func (c *recorder) stop() error {
	rec := c.rec
	if rec == nil {
		return nil
	}
	c.rec = nil
	defer rec.cancel()
	if rec.w == nil {
		return nil
	}
	if err := rec.w.close(); err != nil {
		c.logf(LogError, "recording %s: %v", rec.path, err)
		return err
	}
	dropped := ""
	if rec.w.dropped > 0 {
		dropped = fmt.Sprintf(", %d more dropped: the encoder was behind", rec.w.dropped)
	}
	c.logf(LogInfo, "recorded %s: %d pictures (%.2f simulated s at %g a second%s)", rec.path, rec.w.written, float64(rec.k)/rec.fps, rec.fps, dropped)
	return nil
}

// ClipWriterFunc makes a clip's writer: clip.New, or what Config.NewClip says.
type ClipWriterFunc func(ctx context.Context, out string, width, height int, fps float64) (clip.Writer, error)

const (
	// encodeQueue is the pictures waiting for the encoder: when it is full, a picture is
	// dropped from the clip rather than the run loop waiting for ffmpeg.
	encodeQueue = 4
	// dropReportEvery is the least wall time between two log lines about dropped pictures.
	dropReportEvery = time.Second
)

// encoder feeds a clip's writer (ffmpeg's pipe, or PNG files) from its own goroutine,
// through a queue of a few pictures: encoding never sits on the run loop's path. The
// run loop's fields (dropped, told, toldAt) are its own.
type encoder struct {
	w    clip.Writer
	q    chan *image.RGBA
	done chan struct{}
	mu   sync.Mutex
	err  error // the writer's first error (the goroutine's)

	block            bool      // put waits for room instead of dropping (headless runs)
	written, dropped int       // pictures queued, and dropped because the queue was full
	told             int       // the drops the log has reported
	toldAt           time.Time // when it last did
}

func newEncoder(w clip.Writer, depth int) *encoder {
	e := &encoder{w: w, q: make(chan *image.RGBA, depth), done: make(chan struct{})}
	go func() {
		defer close(e.done)
		for img := range e.q {
			if e.failed() != nil {
				continue // drain: the recording stops at the next picture
			}
			if err := w.Write(img); err != nil {
				e.mu.Lock()
				e.err = err
				e.mu.Unlock()
			}
		}
	}()
	return e
}

// put queues a picture, or drops it (counted) when the queue is full; it never waits
// (unless block).
func (e *encoder) put(img *image.RGBA) {
	if e.block {
		e.q <- img
		e.written++
		return
	}
	select {
	case e.q <- img:
		e.written++
	default:
		e.dropped++
	}
}

// failed is the writer's error, if it has failed.
func (e *encoder) failed() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// close waits for the queued pictures to be written, then closes the writer (the clip
// appears); a writer that failed leaves nothing behind.
func (e *encoder) close() error {
	close(e.q)
	<-e.done
	if err := e.failed(); err != nil {
		e.w.Close(true)
		return err
	}
	return e.w.Close(false)
}

// toggleRecording is the UI's v key: stop the recording, or start one into Config.OutDir
// (made by clip.New at the first picture; a video when ffmpeg is there, numbered pictures
// otherwise), named by its full path in the log.
func (r *Runner) toggleRecording() {
	if r.rec.rec != nil {
		r.rec.stop()
		return
	}
	stamp := time.Now().Format("20060102-150405")
	dir := r.cfg.OutDir
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs // the log says where the clip is, wherever the UI was started
	}
	path := filepath.Join(dir, "vpbench-"+stamp+".mp4")
	if !clip.FFmpegAvailable() {
		path = filepath.Join(dir, "vpbench-"+stamp, "f_%04d.png")
		r.out.logf(LogWarn, "ffmpeg is not installed: recording numbered pictures (apt-get install ffmpeg for a video)")
	}
	if err := r.startRecording(path, DefaultRecordFPS); err != nil {
		r.out.logf(LogError, "recording: %v", err)
	}
}

// startRecording starts a clip of the preview's view of the scene loaded.
func (r *Runner) startRecording(path string, fps float64) error {
	if r.sc == nil {
		return errors.New("no scenario is loaded")
	}
	return r.rec.start(path, fps, r.scene.Time(), r.picture)
}

// picture is the preview's frame of the scene now, after the steps in flight.
func (r *Runner) picture() (preview.Frame, error) {
	r.scene.Sync()
	return r.work.currentFrame(r.scene)
}

// scriptRecord is sim:record's hook (script.Options.Record): it starts a clip of the
// preview's view and returns the function that stops it, drawing the picture due then.
func (r *Runner) scriptRecord(path string, fps float64) (func() error, error) {
	if err := r.startRecording(path, fps); err != nil {
		return nil, err
	}
	rec := r.rec.rec
	return func() error {
		if r.rec.rec != rec { // already stopped (or failed), or another one runs
			return nil
		}
		if err := r.rec.draw(r.scene.Time(), r.picture); err != nil { // the picture due now, if one is
			r.rec.stop()
			return err
		}
		return r.rec.stop()
	}, nil
}
