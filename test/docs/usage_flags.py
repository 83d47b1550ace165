"""Checks that docs/usage.md documents every option a tool's --help lists
(standard input): the flag reference is written by hand, and this test
fails when a flag is added to a tool and not to the reference.

usage: usage_flags.py TOOL USAGE_MD < help.txt"""
import re
import sys

tool, usage = sys.argv[1], sys.argv[2]
generic = {"help", "help-list", "version"}
listed = []
for line in sys.stdin.read().splitlines():
    m = re.match(r"^  --?([a-z0-9-]+)[= ]?.* - ", line)
    if m and m.group(1) not in generic:
        listed.append(m.group(1))
with open(usage, encoding="utf-8") as f:
    text = f.read()
missing = [o for o in listed
           if not re.search(r"(?<![\w-])--?%s(?![\w-])" % re.escape(o), text)]
for o in missing:
    print(f"{tool}: --{o} is in --help but not in docs/usage.md")
if missing or not listed:
    sys.exit(1)
print(f"{tool}: {len(listed)} options, all in docs/usage.md")
