#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count leaf results in TAP/KTAP files.

usage: tapcount.py FILE...   prints "PASSED FAILED SKIPPED" (TODO counts as
                             skipped) and, on stderr,
                             one line per failed test.
A result line is a leaf unless the result line just before it is nested
deeper (KTAP prints a suite's children before the suite's own line). A file
whose top-level plan promises more results than it holds counts the missing
ones as failures, so a crashed test binary or guest cannot pass.
"""
import re
import sys

RESULT = re.compile(r'^(\s*)(ok|not ok)\s+(\d+)\s*(?:-\s*)?(.*)$')
PLAN = re.compile(r'^(\s*)1\.\.(\d+)')


def count(path):
    passed = failed = skipped = 0
    prev_indent = None
    top_plan = None
    top_seen = 0
    try:
        lines = open(path, errors='replace').read().splitlines()
    except OSError:
        print(f'{path}: missing', file=sys.stderr)
        return 0, 1, 0
    for line in lines:
        # kernel console prefixes such as "[   12.3] " are not indentation
        line = re.sub(r'^\[\s*\d+\.\d+\]\s?', '', line)
        m = PLAN.match(line)
        if m and not m.group(1) and top_plan is None:
            top_plan = int(m.group(2))
            continue
        m = RESULT.match(line)
        if not m:
            continue
        indent = len(m.group(1).expandtabs(8))
        if indent == 0:
            top_seen += 1
        leaf = prev_indent is None or prev_indent <= indent
        prev_indent = indent
        if not leaf:
            continue
        desc = m.group(4)
        # SKIP and TODO (a known gap, reported but not a failure per TAP)
        # both count as skipped
        if re.search(r'#\s*(SKIP|TODO)', desc, re.I):
            skipped += 1
        elif m.group(2) == 'ok':
            passed += 1
        else:
            failed += 1
            print(f'{path}: not ok {m.group(3)} {desc}', file=sys.stderr)
    if top_plan is None and passed + failed + skipped == 0:
        print(f'{path}: no results', file=sys.stderr)
        failed += 1
    elif top_plan is not None and top_seen < top_plan:
        print(f'{path}: {top_plan - top_seen} planned result(s) missing',
              file=sys.stderr)
        failed += top_plan - top_seen
    return passed, failed, skipped


def main():
    tp = tf = ts = 0
    for path in sys.argv[1:]:
        p, f, s = count(path)
        tp, tf, ts = tp + p, tf + f, ts + s
    print(tp, tf, ts)


if __name__ == '__main__':
    main()
