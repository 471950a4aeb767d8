package engine

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// testOutbox is an outbox on a synthetic clock that records what it sends; its States
// carry the number of the build (Frames) so that a test sees when one was built.
type testOutbox struct {
	*outbox
	now    time.Time
	sent   []any
	builds int
}

func newTestOutbox(interval time.Duration) *testOutbox {
	o := &testOutbox{now: time.Unix(1000, 0)}
	o.outbox = newOutbox(func(m any) { o.sent = append(o.sent, m) }, func() State {
		o.builds++
		return State{Run: Run{Frames: o.builds}}
	}, interval)
	o.outbox.now = func() time.Time { return o.now }
	return o
}

// take returns what was sent since the last take, as "log:<lines>" and "state".
func (o *testOutbox) take() []string {
	var out []string
	for _, m := range o.sent {
		switch m := m.(type) {
		case Log:
			s := "log:"
			for _, l := range m.Lines {
				s += fmt.Sprintf("[%s %s]", levelNames[l.Level], l.Text)
			}
			out = append(out, s)
		case State:
			out = append(out, "state")
		default:
			out = append(out, fmt.Sprintf("%T", m))
		}
	}
	o.sent = nil
	return out
}

var levelNames = map[LogLevel]string{LogInfo: "info", LogPrint: "print", LogWarn: "warning", LogError: "error"}

func sameList(a, b []string) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

func TestOutboxLinesGoBeforeTheirState(t *testing.T) {
	o := newTestOutbox(40 * time.Millisecond)
	o.logf(LogInfo, "loading %s", "a.lua")
	o.logf(LogError, "boom")
	if len(o.sent) != 0 || o.builds != 0 {
		t.Fatalf("logf sent %v and built %d states: lines wait for a flush", o.take(), o.builds)
	}
	o.flush(false)
	if got, want := o.take(), []string{"log:[info loading a.lua][error boom]", "state"}; !sameList(got, want) {
		t.Errorf("flush after two lines: sent %q, want %q", got, want)
	}
	o.flush(false)
	if got := o.take(); len(got) != 0 || o.builds != 1 {
		t.Errorf("idle, nothing changed: sent %q (%d states built), want nothing", got, o.builds)
	}
	o.changed()
	o.flush(false)
	if got := o.take(); !sameList(got, []string{"state"}) {
		t.Errorf("idle after a change: sent %q, want the state alone", got)
	}
	o.flush(true)
	if got := o.take(); !sameList(got, []string{"state"}) {
		t.Errorf("running, nothing logged: sent %q, want the state alone (its clocks moved)", got)
	}
}

func TestOutboxStatesAtMostEveryInterval(t *testing.T) {
	o := newTestOutbox(40 * time.Millisecond)
	o.flush(true)
	o.take()
	o.now = o.now.Add(39 * time.Millisecond)
	o.logf(LogInfo, "a line")
	o.flushIfDue(true)
	if got := o.take(); len(got) != 0 {
		t.Errorf("39 ms after a state: sent %q, want nothing (the line waits for the state)", got)
	}
	o.now = o.now.Add(time.Millisecond)
	o.flushIfDue(true)
	if got := o.take(); !sameList(got, []string{"log:[info a line]", "state"}) {
		t.Errorf("40 ms after a state: sent %q, want the line and a state", got)
	}
	o.now = o.now.Add(40 * time.Millisecond)
	o.flushIfDue(false)
	if got := o.take(); len(got) != 0 {
		t.Errorf("due, but stopped and nothing changed: sent %q, want nothing", got)
	}
}

func TestOutboxLogFromAnotherGoroutineWakesTheRunner(t *testing.T) {
	o := newTestOutbox(40 * time.Millisecond)
	done := make(chan struct{})
	go func() {
		o.log(LogInfo, "from the preview")
		o.log(LogWarn, "again") // a nudge is already waiting: this must not block
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("log blocked while a nudge was waiting for the runner")
	}
	select {
	case <-o.wake:
	default:
		t.Error("log did not wake the runner")
	}
	o.flush(false)
	if got, want := o.take(), []string{"log:[info from the preview][warning again]"}; !sameList(got, want) {
		t.Errorf("an idle runner woken by lines sent %q, want %q (the lines alone: they change no state)", got, want)
	}
}

func TestOutboxPrintLevels(t *testing.T) {
	o := newTestOutbox(40 * time.Millisecond)
	o.print("t=0.1 volume=1 ml")
	o.print("warning: dt is above the stability limit")
	o.print("warning: ")
	o.flush(false)
	if got, want := o.take(), []string{"log:[print t=0.1 volume=1 ml][warning warning: dt is above the stability limit][print warning: ]"}; !sameList(got, want) {
		t.Errorf("printed lines: sent %q, want %q", got, want)
	}
	select {
	case <-o.wake:
		t.Error("print woke the runner: it prints while the runner waits for the script")
	default:
	}
}

func TestOutboxLinesFromManyGoroutines(t *testing.T) {
	var mu sync.Mutex
	lines := 0
	o := newOutbox(func(m any) {
		if l, ok := m.(Log); ok {
			mu.Lock()
			lines += len(l.Lines)
			mu.Unlock()
		}
	}, func() State { return State{} }, time.Millisecond)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 250 {
				if g%2 == 0 {
					o.log(LogInfo, "preview")
				} else {
					o.print(fmt.Sprint("terrain ", i))
				}
			}
		}()
	}
	for range 100 {
		o.logf(LogInfo, "runner")
		o.flush(true)
	}
	wg.Wait()
	o.flush(true)
	if lines != 1100 {
		t.Errorf("%d lines sent, want 1100 (1000 from four goroutines, 100 from the runner)", lines)
	}
}
