package sqlstore

// taskTables is the queue: a task is a run waiting for a worker, with the
// state of the specification's state machine (TaskState). task_transitions
// lists the transitions allowed, and a trigger refuses any other, so that
// no client, however buggy, can move a task where the machine does not
// go (a complete task back to working, above all). Both indexes are
// partial, on the states the claim and the recovery look for: the claim's
// pick reads the oldest claimable row off its index however many tasks are
// queued or done (an index on state alone tempted SQLite's planner into
// sorting them all).
const taskTables = `
CREATE TABLE tasks (
	id TEXT PRIMARY KEY,
	skill TEXT NOT NULL,
	inputs TEXT NOT NULL,
	args TEXT NOT NULL,
	state TEXT NOT NULL,
	worker TEXT,
	run_id TEXT,
	heartbeat BIGINT,
	message TEXT,
	claims BIGINT NOT NULL DEFAULT 0,
	created_at BIGINT NOT NULL,
	updated_at BIGINT NOT NULL
);
CREATE INDEX tasks_claimable ON tasks (created_at, id)
	WHERE state IN ('watching', 'fix_proposed', 'exit_requested');
CREATE INDEX tasks_held ON tasks (heartbeat)
	WHERE state IN ('working', 'needs_review', 'review_approved', 'review_failed', 'error');
CREATE TABLE task_transitions (
	from_state TEXT NOT NULL,
	to_state TEXT NOT NULL,
	who TEXT NOT NULL,
	PRIMARY KEY (from_state, to_state)
);
INSERT INTO task_transitions (from_state, to_state, who) VALUES
	('watching', 'working', 'worker'),
	('working', 'needs_review', 'worker'),
	('working', 'error', 'worker'),
	('review_approved', 'working', 'worker'),
	('review_approved', 'needs_review', 'worker'),
	('review_failed', 'needs_review', 'worker'),
	('fix_proposed', 'working', 'worker'),
	('fix_proposed', 'needs_review', 'worker'),
	('working', 'complete', 'worker'),
	('working', 'exited', 'worker'),
	('error', 'exited', 'worker'),
	('exit_requested', 'working', 'worker'),
	('needs_review', 'review_approved', 'conductor'),
	('needs_review', 'review_failed', 'conductor'),
	('needs_review', 'fix_proposed', 'conductor'),
	('needs_review', 'exit_requested', 'conductor'),
	('error', 'fix_proposed', 'conductor'),
	('error', 'exit_requested', 'conductor'),
	('working', 'fix_proposed', 'recovery'),
	('review_approved', 'fix_proposed', 'recovery'),
	('review_failed', 'fix_proposed', 'recovery');
`

// taskTriggerSQLite refuses a transition task_transitions lacks, and a
// task born in another state than watching (or exited: the fallback row
// of a claim that failed).
const taskTriggerSQLite = `
CREATE TRIGGER tasks_transition BEFORE UPDATE OF state ON tasks
WHEN OLD.state <> NEW.state AND NOT EXISTS (
	SELECT 1 FROM task_transitions WHERE from_state = OLD.state AND to_state = NEW.state)
BEGIN SELECT RAISE(ABORT, 'skillkit: task state transition not allowed'); END;
CREATE TRIGGER tasks_birth BEFORE INSERT ON tasks
WHEN NEW.state NOT IN ('watching', 'exited')
BEGIN SELECT RAISE(ABORT, 'skillkit: a task starts in watching'); END;
`

// taskTriggerPostgres is the same rule, and it notifies the channel
// skillkit_tasks of every change of state (taskTriggersNarrowPostgres
// narrows that to the changes a worker waits for): a waiting worker LISTENs
// rather than polls. The notification goes out when the transaction
// commits, never for one rolled back.
const taskTriggerPostgres = `
CREATE FUNCTION skillkit_task_transition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		IF NEW.state NOT IN ('watching', 'exited') THEN
			RAISE EXCEPTION 'skillkit: a task starts in watching' USING ERRCODE = 'check_violation';
		END IF;
	ELSIF NEW.state <> OLD.state AND NOT EXISTS (
		SELECT 1 FROM task_transitions WHERE from_state = OLD.state AND to_state = NEW.state) THEN
		RAISE EXCEPTION 'skillkit: task state transition not allowed' USING ERRCODE = 'check_violation';
	END IF;
	IF TG_OP = 'INSERT' OR NEW.state <> OLD.state THEN
		PERFORM pg_notify('skillkit_tasks', NEW.id || ' ' || NEW.state);
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER tasks_transition BEFORE INSERT OR UPDATE ON tasks
	FOR EACH ROW EXECUTE FUNCTION skillkit_task_transition();
`

// taskReviewSQL adds the task's review mode (ReviewMode) and the
// conductor's approval of a completion review: review_approved →
// complete, which Review takes in the same transaction as needs_review →
// review_approved, so that an approval is final even if no worker is
// left to see it.
const taskReviewSQL = `
ALTER TABLE tasks ADD COLUMN review TEXT NOT NULL DEFAULT '' CHECK (review IN ('', 'completion'));
INSERT INTO task_transitions (from_state, to_state, who) VALUES ('review_approved', 'complete', 'conductor');
`

// taskFinalSQLite keeps a complete or exited task as it ended: no column
// changes and the row cannot be deleted (seeds/003: terminal states are
// absolute, their writes irreversible). The transition trigger only
// guarded the state; a worker or message rewritten by hand would rewrite
// the task's history.
const taskFinalSQLite = `
CREATE TRIGGER tasks_final_update BEFORE UPDATE ON tasks
WHEN OLD.state IN ('complete', 'exited')
BEGIN SELECT RAISE(ABORT, 'skillkit: a complete or exited task is final'); END;
CREATE TRIGGER tasks_final_delete BEFORE DELETE ON tasks
WHEN OLD.state IN ('complete', 'exited')
BEGIN SELECT RAISE(ABORT, 'skillkit: a complete or exited task is final'); END;
`

// taskFinalPostgres is the same rule on PostgreSQL.
const taskFinalPostgres = `
CREATE FUNCTION skillkit_task_final() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF OLD.state IN ('complete', 'exited') THEN
		RAISE EXCEPTION 'skillkit: a complete or exited task is final' USING ERRCODE = 'check_violation';
	END IF;
	IF TG_OP = 'DELETE' THEN
		RETURN OLD;
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER tasks_final BEFORE UPDATE OR DELETE ON tasks
	FOR EACH ROW EXECUTE FUNCTION skillkit_task_final();
`

// taskTriggersNarrowPostgres narrows what the triggers do to what they are
// for. The notifications go only to the changes a worker waits for: a task
// leaving needs_review or error, which only the conductor moves it out of
// (Wait). PostgreSQL serialises the commits of every transaction that
// notifies, behind one lock of the whole cluster held through the commit's
// flush, so a notification at each claim and each move of a worker made
// the queue's commits one at a time: eight claimers claimed no faster than
// one. And the triggers' functions run only where they may refuse: the
// transition's when the state changes, the final rule's on a final row; a
// heartbeat or a task's run ran both, in PL/pgSQL, at every write.
const taskTriggersNarrowPostgres = `
CREATE OR REPLACE FUNCTION skillkit_task_transition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		IF NEW.state NOT IN ('watching', 'exited') THEN
			RAISE EXCEPTION 'skillkit: a task starts in watching' USING ERRCODE = 'check_violation';
		END IF;
	ELSIF NEW.state <> OLD.state AND NOT EXISTS (
		SELECT 1 FROM task_transitions WHERE from_state = OLD.state AND to_state = NEW.state) THEN
		RAISE EXCEPTION 'skillkit: task state transition not allowed' USING ERRCODE = 'check_violation';
	END IF;
	IF TG_OP = 'UPDATE' AND NEW.state <> OLD.state AND OLD.state IN ('needs_review', 'error') THEN
		PERFORM pg_notify('skillkit_tasks', NEW.id || ' ' || NEW.state);
	END IF;
	RETURN NEW;
END $$;
DROP TRIGGER tasks_transition ON tasks;
CREATE TRIGGER tasks_birth BEFORE INSERT ON tasks
	FOR EACH ROW EXECUTE FUNCTION skillkit_task_transition();
CREATE TRIGGER tasks_transition BEFORE UPDATE ON tasks
	FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION skillkit_task_transition();
DROP TRIGGER tasks_final ON tasks;
CREATE TRIGGER tasks_final BEFORE UPDATE OR DELETE ON tasks
	FOR EACH ROW WHEN (OLD.state IN ('complete', 'exited')) EXECUTE FUNCTION skillkit_task_final();
`
