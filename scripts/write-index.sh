#!/usr/bin/env bash
# Writes DIR/index.html: a link to every report page and file the main job
# (scripts/main.sh) may have written in DIR, those present only. The names
# are the main job's own, never a user's.
set -euo pipefail
dir=$1
entries=(
  "campaign.html|The campaign: every profile, its verdict, failures grouped, coverage"
  "mutants.html|The variants: which the suite catches, with what, how fast"
  "cache-budget.html|The cache-budget sweep: what each budget costs"
  "replay.md|Every checked-in scenario replayed (Markdown)"
  "campaign.json|The campaign's summary (JSON)"
  "mutants.json|The variants' report (JSON)"
  "cache-budget.json|The sweep's points (JSON)"
)
{
  cat <<'HTML'
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>qdt reports</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#222}
h1{font-size:1.5rem}ul{padding-left:1.2rem}li{margin:.4rem 0}a{color:#0645ad}small{color:#555}
</style></head><body>
<h1>qdt reports</h1>
<p>The pages the main job wrote, newest run.</p>
<ul>
HTML
  for entry in "${entries[@]}"; do
    file=${entry%%|*}
    words=${entry#*|}
    [ -f "$dir/$file" ] && echo "<li><a href=\"$file\">$file</a><br><small>$words</small></li>"
  done
  echo "</ul></body></html>"
} >"$dir/index.html.tmp"
mv "$dir/index.html.tmp" "$dir/index.html"
