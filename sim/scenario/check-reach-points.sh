#!/usr/bin/env bash
# The reachability catalogue (sim/scenario/reach_points.cpp) and the marks agree:
# every point name written in impl/ or sim/ sources is in the catalogue,
# every catalogue point is marked somewhere, and every name in
# sim/scenario/coverage_required.txt (or in its comments) is a catalogue point.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 - <<'PY'
import pathlib, re, sys
areas = r"(?:cache|storage|retention|purge|fault|lock|broker|power|probe|request|retry|network|crash|ack|window|volume)"
name = re.compile(r'"(' + areas + r'\.[a-z0-9_]+)"')
catalogue_text = pathlib.Path("sim/scenario/reach_points.cpp").read_text()
catalogue = re.findall(r'^    \{"([a-z0-9_.]+)"', catalogue_text, re.M)
marked = set()
for path in list(pathlib.Path("impl").rglob("*.cpp")) + list(pathlib.Path("sim").rglob("*.cpp")):
    if path.name in ("reach_points.cpp",) or path.name.endswith("_test.cpp"):
        continue
    text = path.read_text()
    # The names inside each QDT_REACHED(...) call, and the table of fault
    # statements storage_gate.cpp marks by index.
    for call in re.finditer(r"QDT_REACHED\((.*?)\);", text, re.S):
        marked.update(m.group(1) for m in name.finditer(call.group(1)))
    marked.update(re.findall(r'"(fault\.push_failed_at_statement_[0-9]+)"', text))
problems = []
problems += [f"marked but not in the catalogue: {n}" for n in sorted(marked - set(catalogue))]
problems += [f"in the catalogue but marked nowhere: {n}" for n in catalogue if n not in marked]
required = pathlib.Path("sim/scenario/coverage_required.txt").read_text()
for line in required.splitlines():
    words = re.findall(r"^#?\s*(" + areas + r"\.[a-z0-9_]+)", line)
    problems += [f"coverage_required.txt names an unknown point: {w}" for w in words if w not in catalogue]
listed = {re.sub(r"#.*", "", l).strip() for l in required.splitlines()} - {""}
excluded = set(re.findall(r"^#\s*(" + areas + r"\.[a-z0-9_]+):", required, re.M))
problems += [f"neither required nor excluded with a reason: {n}" for n in catalogue if n not in listed | excluded]
if problems:
    print("\n".join(problems))
    sys.exit(1)
print(f"ok: {len(catalogue)} points, {len(marked)} marked names, {len(listed)} required, {len(excluded)} excluded with a reason")
PY
