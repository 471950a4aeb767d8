package main

import (
	"strings"
	"testing"
)

// Without a terminal (CI, pipes) the default mode prints progress lines as before; --plain
// asks for them on a terminal too.
func TestDefaultModePlainWithoutTerminal(t *testing.T) {
	path := writeScript(t, "plain.lua", pourScript)
	for _, args := range [][]string{
		{"--until", "0.2", "--every", "0.1", "--watch=false", path},
		{"--plain", "--until", "0.2", "--every", "0.1", "--watch=false", path},
	} {
		code, out, errOut := runCLI(t, args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d, stderr: %s", args, code, errOut)
		}
		for _, want := range []string{"t = 0.103 s", "tenth of a second", "volume"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: output lacks %q:\n%s", args, want, out)
			}
		}
	}
}

func TestUsageMentionsTheTUI(t *testing.T) {
	code, out, _ := runCLI(t, "help")
	if code != exitOK || !strings.Contains(out, "terminal UI") || !strings.Contains(out, "--plain") {
		t.Errorf("help (exit %d) does not mention the terminal UI and --plain:\n%s", code, out)
	}
}
