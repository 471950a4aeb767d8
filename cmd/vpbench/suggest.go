package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/vpbench/vpbench/internal/suggest"
)

// This file words the command line's mistakes: an unknown flag or command with the
// defined one it most likely meant, and Go's flag errors with the two dashes the help uses.

// closest is the candidate name most likely meant, ASCII case ignored (suggest.Closest).
func closest(name string, candidates []string) (string, bool) {
	return suggest.Closest(name, candidates, strings.ToLower)
}

// flagNames are the names of fs's flags, in lexical order.
func flagNames(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

var (
	undefinedFlag = regexp.MustCompile(`^flag provided but not defined: -(.*)$`)
	badFlagValue  = regexp.MustCompile(`^invalid (boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-([^:\s]+): (.*)$`)
	flagNeedsArg  = regexp.MustCompile(`^flag needs an argument: -(.*)$`)
)

// flagError words an error of fs.Parse(args) as a usage error: an unknown flag with the
// defined flag nearest to it ("unknown flag --untill (did you mean --until?)"), a bad
// value with the flag, the value and what the flag takes (the flag's own Set error), and
// every flag with the two dashes the help writes.
func flagError(fs *flag.FlagSet, args []string, err error) error {
	msg := err.Error()
	if m := undefinedFlag.FindStringSubmatch(msg); m != nil {
		name := m[1]
		typed := "--" + name
		for _, a := range args { // as the command line wrote it, -x or --x
			if a == "-"+name || strings.HasPrefix(a, "-"+name+"=") {
				typed = "-" + name
				break
			}
			if a == "--"+name || strings.HasPrefix(a, "--"+name+"=") {
				break
			}
		}
		out := fmt.Sprintf("unknown flag %s for %s", typed, commandOf(fs))
		if c, ok := closest(name, flagNames(fs)); ok {
			out += fmt.Sprintf(" (did you mean --%s?)", c)
		}
		return usageError{out}
	}
	if m := badFlagValue.FindStringSubmatch(msg); m != nil {
		why := m[4]
		if m[1] != "" { // a boolean flag
			why = "want true or false (or the flag alone for true)"
		} else if why == "parse error" || why == "value out of range" {
			why = "want " + numberKind(fs.Lookup(m[3]))
		}
		return usageError{fmt.Sprintf("invalid value %s for --%s: %s", m[2], m[3], why)}
	}
	if m := flagNeedsArg.FindStringSubmatch(msg); m != nil {
		return usageError{fmt.Sprintf("--%s needs a value (--%s VALUE or --%s=VALUE)", m[1], m[1], m[1])}
	}
	return usageError{msg}
}

// numberKind says what a numeric flag takes, for a value Go's flag package could not
// parse.
func numberKind(f *flag.Flag) string {
	if f == nil {
		return "a number"
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return "a number"
	}
	switch g.Get().(type) {
	case int, int64, uint, uint64:
		return "a whole number"
	case float64:
		return "a number"
	case interface{ Seconds() float64 }:
		return "a duration (1.5s, 2m)"
	}
	return "a number"
}

// commandOf names the command of a flag set for a message: "vpbench run", or "vpbench"
// for the default mode.
func commandOf(fs *flag.FlagSet) string {
	if n := fs.Name(); n != "" {
		return n
	}
	return "vpbench"
}

// commandNames are every command's name, in help's order, the default mode left out.
func commandNames() []string {
	var names []string
	for _, c := range commands() {
		if c.name != "" {
			names = append(names, c.name)
		}
	}
	return names
}

// unknownCommand is the error for a first word that names no command nor an existing
// file and does not look like a scenario's file name (no extension, no folder):
// `vpbench rn x.lua`. It lists every command and proposes the nearest; nil when word
// may be a scenario file (vpbench then reports the file it cannot open).
func unknownCommand(word string) error {
	if word == "" || strings.HasPrefix(word, "-") || strings.ContainsAny(word, `./\`) {
		return nil
	}
	if _, err := os.Stat(word); err == nil {
		return nil // a scenario file without an extension
	}
	msg := fmt.Sprintf("unknown command %q", word)
	if c, ok := closest(word, commandNames()); ok {
		msg += fmt.Sprintf(" (did you mean %s?)", c)
	}
	return usagef("%s: the commands are %s; or give a scenario file (vpbench scenario.lua)", msg, strings.Join(commandNames(), ", "))
}
