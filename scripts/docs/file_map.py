#!/usr/bin/env python3
"""Prints docs/ARCHITECTURE.md's "File map" section: every source file of
every crate, one line each, with its module's first sentence (its `//!`
docs), so the map says what the code says.

Usage: scripts/docs/file_map.py > /tmp/map.md, then paste it over the
section (`crates/ufo-arch/tests/file_map.rs` checks that every file is
listed and every listed file exists).
"""

import glob
import os
import re


def first_sentence(path):
    lines = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            s = line.strip()
            if not s.startswith("//!"):
                if lines or s:
                    break
                continue
            t = s[3:].strip()
            if not t:
                if lines:
                    break
                continue
            if not lines and t.startswith("#"):
                t = t.lstrip("#").strip()
            lines.append(t)
    text = " ".join(lines)
    text = re.sub(r"\[(`[^`]+`)\](\([^)]*\))?", r"\1", text)
    m = re.search(r"^(.+?\.)(\s|$)", text)
    first = m.group(1) if m else text
    if len(first) > 170:
        first = first[:167].rsplit(" ", 1)[0] + "…"
    return first


def main():
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    os.chdir(root)
    crates = sorted(d for d in os.listdir("crates") if os.path.isdir(f"crates/{d}/src"))
    print("## File map\n")
    print("Every source file, one line each, with its module's first sentence (its `//!` docs;")
    print("`scripts/docs/file_map.py` writes this section). `crates/ufo-arch/tests/file_map.rs`")
    print("fails when a file is missing here or a listed one no longer exists.\n")
    for c in crates:
        print(f"### {c}\n")
        for f in sorted(glob.glob(f"crates/{c}/src/**/*.rs", recursive=True)):
            print(f"- `{f}`: {first_sentence(f)}")
        print()


if __name__ == "__main__":
    main()
