#!/usr/bin/env python3
"""The PyTorch exporter run by an interpreter without torch says so in one line (issue 35: a
pyenv `python3` first on PATH gave a raw ModuleNotFoundError traceback).

`/usr/bin/python3 -S` stands for such an interpreter (no site-packages: no torch):
  - with no other candidate (DDPSIM_TORCH_PYTHONS=""), exit 2 and one stderr line naming this
    interpreter and what to install;
  - with one that has torch (DDPSIM_TORCH_PYTHONS=/usr/bin/python3), a one-line note naming both,
    and the command runs there (exit 0).
Skips (exit 0 with the reason) where /usr/bin/python3 cannot import torch.
"""
import os
import pathlib
import subprocess
import sys

SOURCE = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = SOURCE / 'calibrate' / 'pytorch' / 'ddpsim_torch.py'
PYTHON = '/usr/bin/python3'


def run(candidates):
    env = dict(os.environ, DDPSIM_TORCH_PYTHONS=candidates)
    env.pop('DDPSIM_TORCH_REEXEC', None)
    return subprocess.run([PYTHON, '-S', str(SCRIPT), '--help'], env=env, capture_output=True,
                          text=True, cwd=SOURCE, timeout=300)


def main():
    if subprocess.run([PYTHON, '-c', 'import torch'], capture_output=True).returncode != 0:
        print(f'skipped: {PYTHON} cannot import torch')
        return 0
    failures = []
    none = run('')
    lines = none.stderr.strip().split('\n')
    if none.returncode != 2 or len(lines) != 1 or 'cannot import torch' not in lines[0] or \
            PYTHON not in lines[0] or 'Traceback' in none.stderr:
        failures.append(f'without torch: exit {none.returncode}, stderr:\n{none.stderr}')
    other = run(PYTHON)
    note = other.stderr.strip().split('\n')
    if other.returncode != 0 or 'usage: ddpsim_torch.py' not in other.stdout or \
            len(note) != 1 or f'has no torch; running with {PYTHON}, which has it' not in note[0]:
        failures.append(f'with {PYTHON} beside: exit {other.returncode}, stderr:\n{other.stderr}')
    for f in failures:
        print(f'FAIL {f}')
    print(f'{2 - len(failures)} of 2 checks passed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
