#!/bin/sh
# A stand-in for a model, for the example: it reads the prompt, and for the
# report step leaves review.md. skillkit runs it in the run's work dir.
prompt=$(cat)
case "$prompt" in
*"Write the review"*)
  printf '# Review\n\nReviewed by a stand-in.\n' > review.md ;;
esac
echo "done"
