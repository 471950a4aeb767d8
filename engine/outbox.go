package engine

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// outbox is what the runner has to tell its front end and when it tells it: the log lines
// not yet sent, and whether the UI's State is out of date. It sends through the send
// function given to New: pending lines as one Log, then, when something changed (and
// always while the run goes on), a State that state builds. While running a State goes
// out at most every interval of wall time (flushIfDue); an idle runner sends at once.
//
// Log and print may be called from other goroutines (the preview, a terrain extraction
// goroutine), hence the lock on the pending lines; everything else is the runner's
// goroutine's alone.
type outbox struct {
	send     func(any)
	state    func() State     // the State to send, built when it is sent
	interval time.Duration    // the least wall time between two States while running
	now      func() time.Time // the wall clock (a test's own)
	// wake is Log's nudge to an idle runner: a line from another goroutine reaches the
	// screen without waiting for a command or a timer.
	wake chan struct{}

	mu      sync.Mutex
	pending []LogLine

	lastSend time.Time // when the last State went out
	dirty    bool      // something changed that the UI has not been sent
}

func newOutbox(send func(any), state func() State, interval time.Duration) *outbox {
	return &outbox{send: send, state: state, interval: interval, now: time.Now, wake: make(chan struct{}, 1)}
}

func (o *outbox) add(l LogLine) {
	o.mu.Lock()
	o.pending = append(o.pending, l)
	o.mu.Unlock()
}

// log adds a line from any goroutine and wakes an idle runner, which then sends it at
// once. It does not mark the State out of date: a line alone changes nothing it shows.
func (o *outbox) log(level LogLevel, msg string) {
	o.add(LogLine{Level: level, Text: msg})
	select {
	case o.wake <- struct{}{}:
	default: // a nudge is already waiting
	}
}

// print is the scenario's Print hook: script output, or a warning when the line says so.
// It is called while the runner waits for the script (possibly on a terrain extraction
// goroutine), so the runner sends the line after the script returns.
func (o *outbox) print(msg string) {
	lvl := LogPrint
	if strings.HasPrefix(msg, "warning: ") && len(msg) > len("warning: ") {
		lvl = LogWarn
	}
	o.add(LogLine{Level: lvl, Text: msg})
}

// logf adds the runner's own line (on the runner's goroutine) and marks the State out of
// date: what the runner says goes with what it did.
func (o *outbox) logf(lvl LogLevel, format string, a ...any) {
	o.add(LogLine{Level: lvl, Text: fmt.Sprintf(format, a...)})
	o.dirty = true
}

// changed marks the State out of date: the next flush sends one.
func (o *outbox) changed() { o.dirty = true }

// flushIfDue flushes when the last State is at least interval old.
func (o *outbox) flushIfDue(running bool) {
	if o.now().Sub(o.lastSend) >= o.interval {
		o.flush(running)
	}
}

// flushLog sends the pending log lines, if any, as one Log.
func (o *outbox) flushLog() {
	o.mu.Lock()
	lines := o.pending
	o.pending = nil
	o.mu.Unlock()
	if len(lines) > 0 {
		o.send(Log{Lines: lines})
	}
}

// flush sends the pending log lines and then, when something changed or the run goes on
// (its clocks and rates change by themselves), the State.
func (o *outbox) flush(running bool) {
	o.flushLog()
	if !o.dirty && !running {
		return
	}
	o.dirty = false
	o.lastSend = o.now()
	o.send(o.state())
}
