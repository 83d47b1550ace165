"""Checks the design notes' links: every relative link in docs/design.md
and docs/design/*.md names an existing file and, with an #anchor, an
existing heading of that file (GitHub's anchor rules).

Usage: design_links.py SEQPAR_SRC. Prints each broken link and exits 1, or
a summary line and exits 0.
"""
import glob
import os
import re
import sys

LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchor(heading):
    text = heading.lstrip("#").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path):
    with open(path, encoding="utf-8") as f:
        return {anchor(l) for l in f if re.match(r"#{1,6} ", l)}


def main():
    docs = os.path.join(sys.argv[1], "docs")
    files = [os.path.join(docs, "design.md")] + sorted(
        glob.glob(os.path.join(docs, "design", "*.md")))
    bad, count = [], 0
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:", target):
                continue  # http:, https:, mailto:
            count += 1
            name, _, frag = target.partition("#")
            dest = os.path.normpath(
                os.path.join(os.path.dirname(path), name)) if name else path
            rel = os.path.relpath(path, sys.argv[1])
            if not os.path.exists(dest):
                bad.append(f"{rel}: link to missing file {target}")
            elif frag and dest.endswith(".md") and frag not in anchors(dest):
                bad.append(f"{rel}: link to missing heading {target}")
    for line in bad:
        print(line)
    if bad:
        return 1
    print(f"design notes: {len(files)} files, {count} links: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
