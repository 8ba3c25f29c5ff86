#!/usr/bin/env python3
"""Checks every project include against the matrix in docs/layering.md.

Usage: check-include-direction.py ROOT        check the tree at ROOT
       check-include-direction.py --self-test  show that a wrong-way include fails

A source's folder is the directory it sits in (sim/world/world.cpp is in
sim/world); an include "a/b/c.h" names folder a/b. The source may include
its own folder and the folders its row allows. Tests and benchmarks may also
reach above their folder, so they are not checked. A folder missing from the
matrix is an error too: a new folder needs a row.
"""
import pathlib
import re
import sys
import tempfile

SOURCE_SUFFIXES = {".h", ".cpp", ".in"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
CHECKED_ROOTS = ("model", "impl", "properties", "reports", "sim")


def read_matrix(doc):
    text = doc.read_text()
    start = text.index("<!-- layering-matrix -->")
    end = text.index("<!-- /layering-matrix -->")
    matrix = {}
    for line in text[start:end].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 or not cells[0].startswith("`"):
            continue
        folder = cells[0].strip("`")
        allowed = set(re.findall(r"`([^`]+)`", cells[1]))
        matrix[folder] = allowed | {folder}
    if not matrix:
        raise SystemExit(f"{doc}: no matrix rows between the layering-matrix markers")
    return matrix


def is_exempt(path):
    stem = path.name.split(".")[0]
    return stem.endswith("_test") or stem.endswith("_bench") or "testdata" in path.parts or "corpus" in path.parts


def check(root):
    root = pathlib.Path(root)
    matrix = read_matrix(root / "docs" / "layering.md")
    problems = []
    checked = 0
    for top in CHECKED_ROOTS:
        for path in sorted((root / top).rglob("*")):
            if path.suffix not in SOURCE_SUFFIXES or not path.is_file() or is_exempt(path.relative_to(root)):
                continue
            folder = path.parent.relative_to(root).as_posix()
            if folder not in matrix:
                problems.append(f"{path.relative_to(root)}: folder {folder} has no row in docs/layering.md")
                continue
            for included in INCLUDE.findall(path.read_text(errors="replace")):
                if "/" not in included:
                    continue  # a generated header of the build folder
                target = included.rsplit("/", 1)[0]
                if not (root / included).exists():
                    continue  # not ours (a system or library header with a path)
                checked += 1
                if target not in matrix[folder]:
                    problems.append(f"{path.relative_to(root)}: includes {included}: {folder} may not include {target}")
    return checked, problems


def self_test():
    """A tree with one wrong-way include must fail, and the same tree without it pass."""
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        (root / "docs").mkdir()
        (root / "docs" / "layering.md").write_text(
            "<!-- layering-matrix -->\n| folder | may include |\n|---|---|\n"
            "| `impl` | — |\n| `sim/base` | `impl` |\n| `sim/world` | `sim/base`, `impl` |\n"
            "<!-- /layering-matrix -->\n")
        for folder, name, includes in [("impl", "port.h", []), ("sim/base", "rng.h", ["impl/port.h"]),
                                       ("sim/world", "world.cpp", ["sim/base/rng.h", "impl/port.h"])]:
            (root / folder).mkdir(parents=True, exist_ok=True)
            (root / folder / name).write_text("".join(f'#include "{i}"\n' for i in includes))
        checked, problems = check(root)
        if problems or checked != 3:
            return f"a clean tree was refused ({checked} includes checked): {problems}"
        (root / "sim/base/rng.h").write_text('#include "sim/world/world.cpp"\n')
        _, problems = check(root)
        if len(problems) != 1 or "sim/base may not include sim/world" not in problems[0]:
            return f"a wrong-way include was not reported as one: {problems}"
        (root / "sim/alloc").mkdir()
        (root / "sim/alloc/heap.h").write_text("")
        _, problems = check(root)
        if not any("has no row" in p for p in problems):
            return f"a folder without a row went unnoticed: {problems}"
    return None


def main():
    if sys.argv[1:] == ["--self-test"]:
        failure = self_test()
        if failure:
            print(f"self-test failed: {failure}", file=sys.stderr)
            return 1
        print("self-test: a wrong-way include and a folder without a row are refused")
        return 0
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    checked, problems = check(sys.argv[1])
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"{len(problems)} include(s) against docs/layering.md", file=sys.stderr)
        return 1
    print(f"{checked} includes follow docs/layering.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
