#!/bin/sh
# A fake agent command for the tests: it records what it was given and
# answers as FAKE_AGENT_MODE says.
cat > "$PWD/prompt.txt"
printf 'request=%s\nworkdir=%s\nrun=%s\ninput_target=%s\n' \
  "$SKILLKIT_REQUEST" "$SKILL_WORKDIR" "$SKILL_RUN_ID" "$SKILL_INPUT_TARGET" > "$PWD/env.txt"
case "$FAKE_AGENT_MODE" in
ok)
  echo "I looked at the files."
  echo '```json'
  echo '{"stateUpdates": {"status": "draft"}}'
  echo '```'
  echo 'Final answer: {"stateUpdates": {"status": "running", "context.count": 2}}'
  ;;
fail)
  echo "partial output"
  echo "model overloaded" >&2
  exit 7
  ;;
prose)
  echo "I did it, everything is fine."
  ;;
hang)
  sleep 30
  ;;
esac
