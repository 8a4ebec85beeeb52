#!/usr/bin/env python3
"""README's and docs' output blocks are what the program prints.

A fenced block preceded by a marker line is checked (or, with --update, rewritten):

    <!-- ddpsim-output -->                the block holds `$ COMMAND` lines (a trailing `\\`
                                          continues one), each followed by its output
    <!-- ddpsim-output: COMMAND -->       the whole block is COMMAND's output

Each command runs with bash in one scratch folder shared by every block, in file order (a
block may read what an earlier one wrote under out/). The folder links the repository's
scenarios/, calibrate/, tests/, docs/ and reports/, so paths print exactly as the page shows
them; `build/sim/ddpsim` is the binary given with --ddpsim. README.md's commands run as written,
with the caller's PATH, as a new user runs them after `.ci/setup` (which puts nothing on PATH: a
bare `ddpsim` there fails the check); in docs/ pages `ddpsim` is that binary too and `python3` is
--python. Only what must differ between builds is normalised: the source commit
(`commit <40 hex>[-dirty]`). Output is the command's stdout, trailing blanks dropped.

    tests/readme_blocks.py --ddpsim build/sim/ddpsim              check (exit 1 on a difference)
    tests/readme_blocks.py --ddpsim build/sim/ddpsim --update     rewrite the blocks in place
    tests/readme_blocks.py ... --only llama                       the blocks whose command matches

Blocks whose command runs `python3` skip (with the reason) where --python cannot import torch.
"""
import argparse
import difflib
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

SOURCE = pathlib.Path(__file__).resolve().parent.parent
MARKER = re.compile(r'^<!-- ddpsim-output(?::\s*(.*?))?\s*-->\s*$')
COMMIT = re.compile(r'\b(commit|"source_commit": ")[0-9a-f]{40}(-dirty)?')
LINKED = ['scenarios', 'calibrate', 'tests', 'docs', 'reports', 'kernels']


class Block:
    """One marked fenced block: where it is and what it runs."""

    def __init__(self, page, start, end, marker_command, lines):
        self.page = page          # pathlib.Path
        self.start = start        # index of the opening fence line
        self.end = end            # index of the closing fence line
        self.marker_command = marker_command
        self.lines = lines        # the lines between the fences

    def steps(self):
        """[(shown command lines, command, expected output lines)]."""
        if self.marker_command is not None:
            return [([], self.marker_command, list(self.lines))]
        steps = []
        i = 0
        while i < len(self.lines):
            line = self.lines[i]
            if not line.startswith('$ '):
                raise SystemExit(f'{self.where()}: a marked block without a command in its marker '
                                 f'must start with a `$ COMMAND` line, found {line!r}')
            shown = [line]
            while shown[-1].endswith('\\') and i + 1 < len(self.lines):
                i += 1
                shown.append(self.lines[i])
            command = ' '.join(s.rstrip('\\').strip() for s in shown)[2:]
            i += 1
            output = []
            while i < len(self.lines) and not self.lines[i].startswith('$ '):
                output.append(self.lines[i])
                i += 1
            steps.append((shown, command, output))
        return steps

    def where(self):
        return f'{os.path.relpath(self.page, SOURCE)}:{self.start + 1}'


def find_blocks(page):
    lines = page.read_text().split('\n')
    blocks = []
    for i, line in enumerate(lines):
        m = MARKER.match(line)
        if not m:
            continue
        if i + 1 >= len(lines) or not lines[i + 1].startswith('```'):
            raise SystemExit(f'{os.path.relpath(page, SOURCE)}:{i + 1}: an ddpsim-output marker must be '
                             'followed directly by a fenced block')
        end = next((j for j in range(i + 2, len(lines)) if lines[j].startswith('```')), None)
        if end is None:
            raise SystemExit(f'{os.path.relpath(page, SOURCE)}:{i + 2}: unclosed fenced block')
        inner = next((j for j in range(i + 2, end) if MARKER.match(lines[j])), None)
        if inner is not None:
            raise SystemExit(f'{os.path.relpath(page, SOURCE)}:{inner + 1}: a marker inside the block '
                             f'opened at line {i + 2} (is that block missing its closing fence?)')
        blocks.append(Block(page, i + 1, end, m.group(1), lines[i + 2:end]))
    return lines, blocks


def normalise(lines):
    out = [COMMIT.sub(lambda m: m.group(1) + '<commit>', l.rstrip()) for l in lines]
    while out and out[-1] == '':
        out.pop()
    return out


def scratch_folder(ddpsim, python):
    root = pathlib.Path(tempfile.mkdtemp(prefix='ddpsim-readme-'))
    for name in LINKED:
        (root / name).symlink_to(SOURCE / name)
    (root / 'build' / 'sim').mkdir(parents=True)
    (root / 'build' / 'sim' / 'ddpsim').symlink_to(ddpsim)
    (root / 'bin').mkdir()
    (root / 'bin' / 'ddpsim').symlink_to(ddpsim)
    (root / 'bin' / 'python3').symlink_to(python)
    return root


def has_torch(python):
    r = subprocess.run([python, '-c', 'import torch, torchvision'], capture_output=True)
    return r.returncode == 0


def run(command, root, timeout, as_written=False):
    env = dict(os.environ)
    if not as_written:
        env['PATH'] = f'{root / "bin"}:{env.get("PATH", "")}'
    r = subprocess.run(['bash', '-o', 'pipefail', '-c', command], cwd=root, env=env,
                       capture_output=True, text=True, timeout=timeout)
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--ddpsim', required=True, help='the ddpsim binary to run')
    ap.add_argument('--python', default='/usr/bin/python3',
                    help='interpreter for `python3` commands (default /usr/bin/python3)')
    ap.add_argument('--update', action='store_true', help='rewrite the blocks with the real output')
    ap.add_argument('--only', help='run only blocks whose command contains this text')
    ap.add_argument('--timeout', type=float, default=600, help='seconds per command')
    ap.add_argument('pages', nargs='*', help='pages to check (default: README.md, docs/*.md)')
    args = ap.parse_args()

    ddpsim = pathlib.Path(args.ddpsim).resolve()
    if not ddpsim.is_file():
        sys.exit(f'error: --ddpsim {args.ddpsim}: no such file')
    pages = [pathlib.Path(p).resolve() for p in args.pages] or \
        [SOURCE / 'README.md'] + sorted((SOURCE / 'docs').glob('*.md'))
    torch = has_torch(args.python)
    root = scratch_folder(ddpsim, args.python)
    failures, checked, skipped, updated = [], 0, [], []
    try:
        for page in pages:
            lines, blocks = find_blocks(page)
            new_lines = list(lines)
            # Rewrite from the last block up so that earlier indices stay valid.
            replacements = []
            for block in blocks:
                steps = block.steps()
                if args.only and not any(args.only in c for _, c, _ in steps):
                    continue
                if not torch and any(re.search(r'(^|[\s;&|])python3\s', c) for _, c, _ in steps):
                    skipped.append(f'{block.where()}: skipped, {args.python} cannot import torch')
                    continue
                body = []
                for shown, command, expected in steps:
                    r = run(command, root, args.timeout, as_written=page.name == 'README.md'
                            and page.parent == SOURCE)
                    actual = r.stdout.rstrip('\n').split('\n') if r.stdout else []
                    if r.returncode != 0:
                        failures.append(f'{block.where()}: `{command}` exited {r.returncode}:\n'
                                        f'{r.stderr[-2000:]}')
                    checked += 1
                    # A failed command leaves its block as it is, also with --update.
                    same = r.returncode != 0 or normalise(actual) == normalise(expected)
                    if not same:
                        diff = '\n'.join(difflib.unified_diff(
                            normalise(expected), normalise(actual), 'page', 'program', lineterm=''))
                        if not args.update:
                            failures.append(f'{block.where()}: `{command}` prints other lines '
                                            f'than the page shows:\n{diff}')
                        else:
                            updated.append(f'{block.where()}: `{command}`')
                    # An unchanged block keeps its text (its commit hash included): no churn.
                    body += shown + (expected if same else [l.rstrip() for l in actual])
                replacements.append((block, body))
            if args.update and replacements:
                for block, body in reversed(replacements):
                    new_lines[block.start + 1:block.end] = body
                if new_lines != lines:
                    page.write_text('\n'.join(new_lines))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    for s in skipped:
        print(s)
    for u in updated:
        print(f'updated {u}')
    for f in failures:
        print(f'FAIL {f}\n')
    print(f'{checked} commands in marked blocks run, {len(failures)} failed, '
          f'{len(skipped)} blocks skipped' + (f', {len(updated)} updated' if args.update else '') +
          ('' if args.update or not failures else
           '\nrefresh with: tests/readme_blocks.py --ddpsim build/sim/ddpsim --update'))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
