package runstore

// Level is what an event is a transition of: the run, a phase, an action
// or a step. The log says it by which of Phase, Action and Step an event
// names, so the bytes on disk carry no field for it and old logs read the
// same.
type Level int

// Levels of events.
const (
	LevelRun Level = iota
	LevelPhase
	LevelAction
	LevelStep
)

// Level is the event's scope: a step's event names its step (and its
// phase or action), a phase's its phase, an action's its action, and the
// run's none of them.
func (e *Event) Level() Level {
	switch {
	case e.Step != "":
		return LevelStep
	case e.Phase != "":
		return LevelPhase
	case e.Action != "":
		return LevelAction
	}
	return LevelRun
}

// Idle is the worker lifecycle's state before a unit's first loading
// (seeds/001): the unit's first event goes from it, so that the record
// holds the state without a line of its own, which a loop of many units
// would pay for at every iteration.
const Idle State = "idle"

// Opens reports whether the event is the first of its run, phase, action
// or step: a transition from nothing, or from idle.
func (e *Event) Opens() bool { return e.From == "" || e.From == Idle }
