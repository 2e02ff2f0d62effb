#!/bin/sh
# A stand-in for a model, for the example and its test: it keeps each
# prompt in agent-prompts.log (in its working folder, the run's work dir)
# and answers each action with fixed state updates, as an agent must: a
# JSON object holding "stateUpdates", last in the reply.
prompt=$(cat)
printf '=== %s request\n%s\n' "$SKILLKIT_REQUEST" "$prompt" >> agent-prompts.log

case "$prompt" in
*"Action: action-outline"*)
  echo "Three sections will do."
  echo '{"stateUpdates": {"outline": ["Why", "How", "What next"]}}'
  ;;
*"Action: action-draft"*)
  topic=${SKILL_INPUT_TOPIC:-notes}
  printf '# %s\n\n## Why\n\nBecause.\n\n## How\n\nCarefully.\n\n## What next\n\nMore.\n' "$topic" > note.md
  echo "I wrote note.md."
  echo '```json'
  echo '{"stateUpdates": {"draft_file": "note.md"}}'
  echo '```'
  ;;
*"Action: action-review"*)
  if grep -q '^## What next$' note.md; then verdict=ok; else verdict=needs-work; fi
  printf '{"stateUpdates": {"review": {"verdict": "%s", "notes": "every section is there"}, "status": "completed"}}\n' "$verdict"
  ;;
*)
  echo "fake agent: no answer for this prompt" >&2
  exit 1
  ;;
esac
