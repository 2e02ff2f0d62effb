package runstore

import (
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"time"
)

// Steps is completedSteps: the records of the steps and actions that
// ended, numbered in order (a record's Step is its place, 1-based). A
// loop's list grows by one record per action for the whole run, and the
// records of one action differ only in their time: a StepRecord is 128
// bytes, which made the list most of a long loop's live memory (1.3 MB at
// 10,000 actions, with the copies its growth and Progress's callers
// made). So the list keeps each distinct record once, as a kind, and per
// step only its time and kind: 24 bytes. Its records are read with Len,
// At and All.
//
// A copy of a Steps shares its records with the original: appends past
// either's end do not show in the other, and a record replaced (a step
// run again after failing) is replaced in a copy of the list. Clone is
// so O(1).
type Steps struct {
	at []stepAt
	// kinds finds a record's kind to share; nil in a copy, which makes
	// its own when it appends.
	kinds map[stepKind]*stepKind
}

// stepAt is one record: its time (the seconds and nanoseconds of
// time.Unix, in the kind's location) and its kind. A time's monotonic
// reading is not kept; NewStepRecord and a log's records have none.
type stepAt struct {
	sec  int64
	nsec int32
	kind *stepKind
}

// stepKind is what records share: all but the step's number and time.
type stepKind struct {
	rec StepRecord
	loc *time.Location
}

// Len is how many records the list holds.
func (s Steps) Len() int { return len(s.at) }

// At is record i (0-based): step i+1.
func (s Steps) At(i int) StepRecord {
	r := s.at[i].kind.rec
	r.Step = i + 1
	r.Timestamp = s.time(i)
	return r
}

// time is record i's Timestamp.
func (s Steps) time(i int) time.Time {
	a := s.at[i]
	return time.Unix(a.sec, int64(a.nsec)).In(a.kind.loc)
}

// All yields the records in order.
func (s Steps) All() iter.Seq[StepRecord] {
	return func(yield func(StepRecord) bool) {
		for i := range s.at {
			if !yield(s.At(i)) {
				return
			}
		}
	}
}

// Records is the list as a slice, a copy: for a reader that keeps it.
func (s Steps) Records() []StepRecord {
	return slices.Collect(s.All())
}

// String prints the records, as fmt prints a slice of them.
func (s Steps) String() string { return fmt.Sprint(s.Records()) }

// NewSteps is the list of recs, numbered by their place.
func NewSteps(recs ...StepRecord) Steps {
	var s Steps
	for _, r := range recs {
		s.add(r)
	}
	return s
}

// add appends r as the next step, whatever its Step says.
func (s *Steps) add(r StepRecord) { s.at = append(s.at, s.stamp(r)) }

// set replaces record i with r, in a copy of the list: copies share it.
// It happens once per retry of a failed step.
func (s *Steps) set(i int, r StepRecord) {
	s.at = slices.Clone(s.at)
	s.at[i] = s.stamp(r)
}

// stamp is r's entry, its kind shared with the records like it.
func (s *Steps) stamp(r StepRecord) stepAt {
	k := stepKind{rec: r, loc: r.Timestamp.Location()}
	k.rec.Step, k.rec.Timestamp = 0, time.Time{}
	p, ok := s.kinds[k]
	if !ok {
		if s.kinds == nil {
			s.kinds = map[stepKind]*stepKind{}
		}
		// A copy: k itself stays on the stack for the lookups that
		// find their kind.
		kind := k
		p = &kind
		s.kinds[k] = p
	}
	return stepAt{sec: r.Timestamp.Unix(), nsec: int32(r.Timestamp.Nanosecond()), kind: p}
}

// failed is the place of id's failed record, -1 without one.
func (s Steps) failed(id string) int {
	return slices.IndexFunc(s.at, func(a stepAt) bool { return a.kind.rec.ID == id && !a.kind.rec.Done() })
}

// has reports whether id has a record that ended it for good.
func (s Steps) has(id string) bool {
	return slices.ContainsFunc(s.at, func(a stepAt) bool { return a.kind.rec.ID == id && a.kind.rec.Done() })
}

// done reports whether record i ended its step for good (StepRecord.Done).
func (s Steps) done(i int) bool { return s.at[i].kind.rec.Done() }

// clone is a copy that may append and replace without changing s.
func (s Steps) clone() Steps { return Steps{at: slices.Clip(s.at)} }

// MarshalJSON writes the list as the array of its records, [] when
// empty, as skill-state.yaml writes it.
func (s Steps) MarshalJSON() ([]byte, error) {
	recs := s.Records()
	if recs == nil {
		recs = []StepRecord{}
	}
	return json.Marshal(recs)
}

// UnmarshalJSON reads the array MarshalJSON writes.
func (s *Steps) UnmarshalJSON(data []byte) error {
	var recs []StepRecord
	if err := json.Unmarshal(data, &recs); err != nil {
		return err
	}
	*s = NewSteps(recs...)
	return nil
}

// UnmarshalYAML reads skill-state.yaml's completedSteps (yaml.v3's
// unmarshaler of a decode function, which needs no import of it).
func (s *Steps) UnmarshalYAML(decode func(any) error) error {
	var recs []StepRecord
	if err := decode(&recs); err != nil {
		return err
	}
	*s = NewSteps(recs...)
	return nil
}

// JSONSchemaAlias gives the schema of the list (skillkit schema
// progress): an array of records, as it is written.
func (Steps) JSONSchemaAlias() any { return []StepRecord{} }
