#!/usr/bin/env bash
# readme_check.sh SOURCE_DIR: the README stays a newcomer's page (at most 250 lines, none over 160 characters)
# and links every page of docs/.
set -euo pipefail
readme=$1/README.md
status=0
lines=$(wc -l < "$readme")
if [ "$lines" -gt 250 ]; then echo "README.md: $lines lines, more than 250"; status=1; fi
awk 'length > 160 { print "README.md:" NR ": " length " characters, more than 160"; bad = 1 } END { exit bad }' "$readme" || status=1
for page in "$1"/docs/*.md; do
  name=docs/$(basename "$page")
  grep -qF "($name" "$readme" || { echo "README.md does not link $name"; status=1; }
done
[ "$status" -eq 0 ] && echo "README.md: $lines lines, docs/ linked"
exit "$status"
