#!/usr/bin/python3
"""Counts one test step's results for scripts/test.sh.

  test_summary.py lit REPORT.json LABEL      (lit -o REPORT.json)
  test_summary.py ctest JUNIT.xml LABEL      (ctest --output-junit JUNIT.xml)

Prints "P F S" (passed, failed, skipped) on the first line, then one line per
skipped test, "skipped: LABEL: NAME: REASON", and one per failed test,
"failed: LABEL: NAME".

lit: PASS and XFAIL pass; FAIL, XPASS, UNRESOLVED and TIMEOUT fail;
UNSUPPORTED is skipped (the reason is lit's: the features named in REQUIRES:
that are missing, or the UNSUPPORTED: condition that holds).
ctest: a test is skipped when ctest says so because of SKIP_RETURN_CODE or
SKIP_REGULAR_EXPRESSION (gtest_discover_tests sets "[  SKIPPED ]", i.e.
GTEST_SKIP; the reason is GTEST_SKIP's message) or the DISABLED property,
or when a test that passed printed gtest's "[  SKIPPED ]" (a gtest binary run
by add_test without that property, e.g. under mpirun); a
test that could not run for another reason (a missing executable) fails, as
ctest counts it.
"""
import json
import re
import sys
import xml.etree.ElementTree as ET


def one_line(text):
    return " ".join(text.split())


def lit_summary(path, label):
    with open(path) as f:
        tests = json.load(f)["tests"]
    passed, failed, skipped = 0, [], []
    for t in tests:
        code = t["code"]
        if code in ("PASS", "XFAIL", "FLAKYPASS"):
            passed += 1
        elif code == "UNSUPPORTED":
            reason = one_line(t.get("output", "")) or "unsupported"
            skipped.append((t["name"], reason))
        elif code == "EXCLUDED" or code == "SKIPPED":
            # Not selected by this run (--filter, --max-tests): not counted.
            continue
        else:
            failed.append(t["name"] + " (" + code + ")")
    return passed, failed, skipped


def gtest_skip_message(output):
    # gtest prints "<file>:<line>: Skipped" then the message, then a blank
    # line and "[  SKIPPED ] Suite.Test".
    lines = output.splitlines()
    for i, line in enumerate(lines):
        if re.search(r": Skipped$", line):
            message = []
            for rest in lines[i + 1:]:
                if not rest.strip() or rest.startswith("[  SKIPPED ]"):
                    break
                message.append(rest.strip())
            return " ".join(message) or "GTEST_SKIP without a message"
    return None


def ctest_summary(path, label):
    root = ET.parse(path).getroot()
    passed, failed, skipped = 0, [], []
    for case in root.iter("testcase"):
        name = case.get("name")
        status = case.get("status")
        out = case.findtext("system-out") or ""
        if status == "run" and "[  SKIPPED ] " in out:
            # A gtest binary added with add_test (not gtest_discover_tests)
            # and no SKIP_REGULAR_EXPRESSION: judged as that property would.
            skipped.append((name, gtest_skip_message(out) or "GTEST_SKIP"))
        elif status == "run":
            passed += 1
        elif status == "fail":
            failed.append(name)
        elif status == "disabled":
            skipped.append((name, "disabled (ctest DISABLED property)"))
        else:
            node = case.find("skipped")
            why = node.get("message", "") if node is not None else ""
            if why.startswith("SKIP_"):
                reason = gtest_skip_message(out) or one_line(out)[-200:] or why
                skipped.append((name, reason))
            else:
                failed.append(name + " (not run: " + (why or "?") + ")")
    return passed, failed, skipped


def main():
    kind, path, label = sys.argv[1:4]
    summarize = {"lit": lit_summary, "ctest": ctest_summary}[kind]
    passed, failed, skipped = summarize(path, label)
    print(passed, len(failed), len(skipped))
    for name, reason in skipped:
        print("skipped: %s: %s: %s" % (label, name, reason))
    for name in failed:
        print("failed: %s: %s" % (label, name))


if __name__ == "__main__":
    main()
