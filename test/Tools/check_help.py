"""Checks a tool's --help text (standard input): the options it lists are
exactly the expected ones (the tool's own and LLVM's generic --help,
--help-list, --version: no option of LLVM's or MLIR's libraries), each of the
tool's own says its default, and the text has at most MAX lines.

usage: check_help.py MAX OPTION... < help.txt"""
import re
import sys

limit = int(sys.argv[1])
expected = set(sys.argv[2:])
generic = {"help", "help-list", "version"}
text = sys.stdin.read()
lines = text.splitlines()
listed = {}
for line in lines:
    m = re.match(r"^  --?([a-z0-9-]+)[= ]?.* - (.*)$", line)
    if m:
        listed[m.group(1)] = m.group(2)
errors = []
if set(listed) != expected | generic:
    errors.append("missing: %s; not expected: %s" % (
        sorted((expected | generic) - set(listed)),
        sorted(set(listed) - expected - generic)))
for name in sorted(expected & set(listed)):
    if "default" not in listed[name] and "required" not in listed[name]:
        errors.append("--%s does not say its default: %s" % (name, listed[name]))
if len(lines) > limit:
    errors.append("%d lines, more than %d" % (len(lines), limit))
if errors:
    sys.exit("\n".join(errors))
print("%d options, %d lines" % (len(listed), len(lines)))
