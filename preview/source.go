package preview

import (
	"sync"
	"sync/atomic"
	"time"
)

// Source connects one running scenario to the preview. The run loop (package engine)
// publishes frames into it while Wanted says someone looks; the preview's window takes
// the newest, and hands back values: the camera position (Eye, for the surface's
// convex-meniscus cap), a meniscus override (MeniscusOverride) and its render times
// (OnRender). The preview never reaches into the scenario.
type Source struct {
	name string
	mb   *Mailbox // for the window
	shot *Mailbox // for screenshots

	windows  atomic.Int32 // open windows on this source
	shots    atomic.Int32 // screenshots waiting for a frame
	eye      atomic.Pointer[[3]float64]
	meniscus atomic.Int32 // meniscusScript, meniscusOn or meniscusOff

	mu       sync.Mutex
	onRender func(time.Duration)

	// wake, set while a window shows the source, wakes the window's event wait: a frame
	// published is drawn at once, not when the wait times out (which held a software
	// renderer's window to one frame in 30 ms while it drew one in 13).
	wake atomic.Pointer[func()]

	shotReady chan struct{} // a frame came into shot (capacity 1)
}

// Meniscus overrides a window can set (M key).
const (
	meniscusScript = iota
	meniscusOn
	meniscusOff
)

// NewSource returns a Source for the scenario called name (shown in the window's title).
func NewSource(name string) *Source {
	return &Source{name: name, mb: NewMailbox(), shot: NewMailbox(), shotReady: make(chan struct{}, 1)}
}

// Name is the scenario's name.
func (s *Source) Name() string { return s.name }

// Wanted reports whether a window shows the source or a screenshot waits for a frame:
// the runner then builds the surface and publishes every frame.
func (s *Source) Wanted() bool { return s.windows.Load() > 0 || s.shots.Load() > 0 }

// Publish hands the runner's frame to the preview (see Mailbox.Publish): to the window
// when one is open, to the screenshots that wait.
func (s *Source) Publish(f Frame) {
	if s.windows.Load() > 0 {
		s.mb.Publish(f)
		if w := s.wake.Load(); w != nil {
			(*w)()
		}
	}
	if s.shots.Load() > 0 {
		s.shot.Publish(f)
		select {
		case s.shotReady <- struct{}{}:
		default:
		}
	}
}

// Eye is the camera position of the open window, for the surface's convex-meniscus cap
// (Settings.Camera); nil when no window is open.
func (s *Source) Eye() *[3]float64 { return s.eye.Load() }

// MeniscusOverride reports whether the window turned the meniscus shading on or off
// (set) and which (on); set is false when the script's setting stands.
func (s *Source) MeniscusOverride() (on, set bool) {
	switch s.meniscus.Load() {
	case meniscusOn:
		return true, true
	case meniscusOff:
		return false, true
	}
	return false, false
}

// OnRender sets a function called (on the preview's thread) with the render time of
// every frame the window draws: upload and draw, up to the GPU finishing, without the
// wait for the display. The run loop records it as Table 1's render column.
func (s *Source) OnRender(fn func(time.Duration)) {
	s.mu.Lock()
	s.onRender = fn
	s.mu.Unlock()
}

func (s *Source) rendered(d time.Duration) {
	s.mu.Lock()
	fn := s.onRender
	s.mu.Unlock()
	if fn != nil {
		fn(d)
	}
}

// nextShot asks the runner for a frame and waits up to timeout for one published after
// the call.
func (s *Source) nextShot(timeout time.Duration) (*Frame, bool) {
	s.shots.Add(1)
	defer s.shots.Add(-1)
	select { // a notice from before the call
	case <-s.shotReady:
	default:
	}
	s.shot.Take(nil) // and its frame
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-s.shotReady:
	case <-t.C:
		return nil, false
	}
	f, ok := s.shot.Take(nil)
	return f, ok
}
