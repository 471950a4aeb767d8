package sweep

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Outputs name the figures of a task's row:
//
//   - a key of the `vpbench run --json` report ("real_time_factor", "volume_ml"), or a
//     dotted path into it ("simulation.avg_ms");
//   - "reported.NAME": the last value the script gave NAME with sim:report{ NAME = x };
//   - "reported.*": every name the script reported.

// DefaultOutputs are a study's outputs when it names none.
var DefaultOutputs = []string{"real_time_factor", "steady_real_time_factor", "volume_ml", "wet_columns", "reported.*"}

// ReportedPrefix starts the outputs read from sim:report.
const ReportedPrefix = "reported."

func checkOutputName(o string) error {
	if o == "" {
		return fmt.Errorf("outputs: an empty name")
	}
	if strings.ContainsAny(o, " ,\t\"") {
		return fmt.Errorf("outputs: %q: names have no spaces, commas or quotes", o)
	}
	if o == "reported" || o == ReportedPrefix {
		return fmt.Errorf("outputs: %q: name one report, reported.NAME, or every one, reported.*", o)
	}
	return nil
}

// CheckOutputs checks the study's outputs against the report's keys (known, as dotted
// paths): a name that no report can have is an error naming the outputs line.
func (s *Study) CheckOutputs(known []string) error {
	for _, o := range s.Outputs {
		if strings.HasPrefix(o, ReportedPrefix) {
			continue
		}
		if !slices.Contains(known, o) {
			return s.errf("outputs", "outputs: %q is not a figure of the run's report (have %s; reported.NAME for sim:report's values)", o, strings.Join(known, ", "))
		}
	}
	return nil
}

// Extract picks the outputs from a run's report (its JSON) and the script's reports.
// An output a run does not have (a name never reported) is left out.
func Extract(outputs []string, report json.RawMessage, reported map[string]float64) map[string]float64 {
	out := map[string]float64{}
	var rep map[string]any
	if len(report) > 0 {
		_ = json.Unmarshal(report, &rep) // a report that does not parse has no figures
	}
	for _, o := range outputs {
		if o == ReportedPrefix+"*" {
			for k, v := range reported {
				out[ReportedPrefix+k] = v
			}
			continue
		}
		if name, ok := strings.CutPrefix(o, ReportedPrefix); ok {
			if v, ok := reported[name]; ok {
				out[o] = v
			}
			continue
		}
		var cur any = rep
		for _, part := range strings.Split(o, ".") {
			m, ok := cur.(map[string]any)
			if !ok {
				cur = nil
				break
			}
			cur = m[part]
		}
		switch v := cur.(type) {
		case float64:
			out[o] = v
		case bool:
			out[o] = 0
			if v {
				out[o] = 1
			}
		}
	}
	return out
}

// OutputColumns are the columns of the outputs over results: the study's outputs in
// their order, reported.* expanded to every name any result has, sorted.
func OutputColumns(outputs []string, results []Result) []string {
	var cols []string
	for _, o := range outputs {
		if o != ReportedPrefix+"*" {
			if !slices.Contains(cols, o) {
				cols = append(cols, o)
			}
			continue
		}
		var names []string
		for _, r := range results {
			for k := range r.Reported {
				if n := ReportedPrefix + k; !slices.Contains(names, n) && !slices.Contains(cols, n) {
					names = append(names, n)
				}
			}
		}
		sort.Strings(names)
		cols = append(cols, names...)
	}
	return cols
}
