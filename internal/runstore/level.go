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
