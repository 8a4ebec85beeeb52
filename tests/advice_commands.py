#!/usr/bin/env python3
"""Every command, flag and file ddpsim's output recommends exists in this build.

The program's advice ("measure first ... `ddpsim calibrate --import-torch-trace`", a results.json
`measure` field, an error's "refit with `ddpsim calibrate --fit-platform`") lives in string
literals under sim/. This reads them (comments left out, adjacent literals joined as the compiler
joins them) and, with README.md's command table, checks against the binary given:

  - `ddpsim SUB ...` names a subcommand of `ddpsim --help` (backticked: always; in prose: when
    the word after ddpsim is one), and every --flag after it is in `ddpsim SUB --help`;
  - `ddpsim-calibrate`, the CUDA harness that is not built without CUDA, is recommended nowhere
    but by `ddpsim calibrate` itself (which says how to build it);
  - every docs/, scenarios/, reports/ or calibrate/ path named exists in the source tree.

    tests/advice_commands.py --ddpsim build/sim/ddpsim      exit 1 listing each stale piece
"""
import argparse
import pathlib
import re
import subprocess
import sys

SOURCE = pathlib.Path(__file__).resolve().parent.parent
# The harness may be named where the calibrate command explains it and in the file that says how
# it is found.
HARNESS_ALLOWED = {'sim/cli/calibrate_command.cpp'}
PATH = re.compile(r'(?<![\w/.-])((?:docs|scenarios|reports|calibrate)/[\w./-]*\w\.(?:md|yaml|py|sh))')
FLAG = re.compile(r'--[a-z][a-z0-9-]*')


def string_literals(text):
    """The program's strings in a C++ source, adjacent literals joined, comments skipped."""
    out, current, i, n = [], None, 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            i = text.find('\n', i)
            i = n if i < 0 else i
            continue
        if text.startswith('/*', i):
            end = text.find('*/', i + 2)
            i = n if end < 0 else end + 2
            continue
        if c == "'":  # a character literal, e.g. '"'
            m = re.match(r"'(\\.|[^\\'])*'", text[i:])
            i += len(m.group(0)) if m else 1
            continue
        m = re.match(r'R"([^(]*)\(', text[i:])
        if m:
            delim = ')' + m.group(1) + '"'
            end = text.find(delim, i + len(m.group(0)))
            body = text[i + len(m.group(0)):end]
            current = (current or '') + body
            i = end + len(delim)
            continue
        if c == '"':
            j, body = i + 1, []
            while j < n and text[j] != '"':
                if text[j] == '\\' and j + 1 < n:
                    body.append({'n': '\n', 't': '\t'}.get(text[j + 1], text[j + 1]))
                    j += 2
                else:
                    body.append(text[j])
                    j += 1
            current = (current or '') + ''.join(body)
            i = j + 1
            continue
        if not c.isspace() and current is not None:
            out.append(current)
            current = None
        i += 1
    if current is not None:
        out.append(current)
    return out


def help_flags(ddpsim, sub):
    r = subprocess.run([ddpsim] + ([sub] if sub else []) + ['--help'], capture_output=True,
                       text=True)
    return r.stdout, set(FLAG.findall(r.stdout)) | {'--help'}


def check_text(where, text, ddpsim, subs, flags_of, problems, harness_ok):
    for m in re.finditer(r'`(ddpsim[^`]*)`', text):
        span = m.group(1)
        words = span.split()
        if words[0] == 'ddpsim-calibrate':
            if not harness_ok:
                problems.append(f'{where}: recommends `{span}`, the CUDA harness, which is not '
                                'built without CUDA: name `ddpsim calibrate --model NAME`')
            continue
        if words[0] != 'ddpsim' or len(words) == 1:
            continue
        if words[1].isupper():  # a placeholder: `ddpsim COMMAND --help`
            continue
        if words[1].startswith('-'):
            flags, sub = help_flags(ddpsim, '')[1], ''
        elif words[1] not in subs:
            problems.append(f'{where}: `{span}`: no subcommand {words[1]!r} '
                            f'(ddpsim has {", ".join(sorted(subs))})')
            continue
        else:
            sub, flags = words[1], flags_of(words[1])
        for flag in FLAG.findall(' '.join(words[1:])):
            if flag not in flags:
                problems.append(f'{where}: `{span}`: ddpsim {sub} has no {flag}')
    # Prose: "... then ddpsim calibrate --fit-platform ..." without backticks.
    for m in re.finditer(r'(?<![\w/`-])ddpsim ([a-z][a-z-]*)((?: +--?[a-z][\w-]*(?:[ =][\w./:,=-]+)?)*)',
                         text):
        sub = m.group(1)
        if sub not in subs:
            continue
        for flag in FLAG.findall(m.group(2)):
            if flag not in flags_of(sub):
                problems.append(f'{where}: "ddpsim {sub}{m.group(2)}": ddpsim {sub} has no {flag}')
    if not harness_ok and re.search(r'(?<![/\w-])ddpsim-calibrate\b', text) and \
            '`ddpsim-calibrate`' not in text:
        problems.append(f'{where}: names ddpsim-calibrate, the CUDA harness that is not built '
                        'without CUDA: name `ddpsim calibrate --model NAME`')
    for p in PATH.findall(text):
        if '<' in p or '*' in p:
            continue
        if not (SOURCE / p).exists():
            problems.append(f'{where}: names {p}, which is not in the source tree')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--ddpsim', required=True)
    args = ap.parse_args()
    ddpsim = str(pathlib.Path(args.ddpsim).resolve())
    top, _ = help_flags(ddpsim, '')
    subs = set(re.findall(r'^\s{2}([a-z][a-z-]+)\s', top.split('SUBCOMMANDS:')[-1], re.M))
    if len(subs) < 5:
        sys.exit(f'error: could not read the subcommands from `ddpsim --help`:\n{top}')
    cache = {}

    def flags_of(sub):
        if sub not in cache:
            cache[sub] = help_flags(ddpsim, sub)[1]
        return cache[sub]

    problems, strings = [], 0
    for path in sorted((SOURCE / 'sim').rglob('*')):
        if path.suffix not in ('.cpp', '.h'):
            continue
        rel = str(path.relative_to(SOURCE))
        for s in string_literals(path.read_text()):
            strings += 1
            check_text(rel, s, ddpsim, subs, flags_of, problems, rel in HARNESS_ALLOWED)
    # README's command table and prose: what a new user types.
    readme = (SOURCE / 'README.md').read_text()
    for number, line in enumerate(readme.split('\n'), 1):
        check_text(f'README.md:{number}', line, ddpsim, subs, flags_of, problems, True)
    for p in problems:
        print(f'FAIL {p}')
    print(f'{strings} string literals and README.md checked against {len(subs)} subcommands: '
          f'{len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
