#!/usr/bin/env python3
"""Prints the slowest tests of one or more ctest JUnit files (ctest --output-junit FILE).

    .ci/slowest_tests.py [-n 10] LABEL=FILE [LABEL=FILE ...]

One table over all files, slowest first, each row labelled with its suite, so a test that grows
shows up at the end of every CI log. A file that does not exist (a suite that was skipped) is
left out with a note.
"""
import argparse
import os
import sys
import xml.etree.ElementTree as ET


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('-n', type=int, default=10, help='how many tests to print (default 10)')
    ap.add_argument('files', nargs='+', metavar='LABEL=FILE')
    args = ap.parse_args()
    rows, total = [], {}
    for spec in args.files:
        label, _, path = spec.partition('=')
        if not path:
            label, path = os.path.basename(spec), spec
        if not os.path.exists(path):
            print(f'{label}: {path} not written (suite not run)')
            continue
        for case in ET.parse(path).getroot().iter('testcase'):
            seconds = float(case.get('time') or 0)
            rows.append((seconds, label, case.get('name', '?'), case.get('status', '')))
            total[label] = total.get(label, 0.0) + seconds
    rows.sort(key=lambda r: -r[0])
    print(f'== the {min(args.n, len(rows))} slowest tests '
          '(seconds of wall time each; tests run two at a time)')
    for seconds, label, name, status in rows[:args.n]:
        print(f'{seconds:9.1f}  {label:<6} {name}' + (f'  [{status}]' if status not in ('', 'run') else ''))
    for label, seconds in total.items():
        print(f'{label}: {seconds:.0f} s of test time in all')
    return 0


if __name__ == '__main__':
    sys.exit(main())
