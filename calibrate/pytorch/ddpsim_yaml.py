"""A small YAML writer for ddpsim's model files and calibration profiles.

The exporter runs in the user's own PyTorch environment, which need not have PyYAML; what ddpsim
reads is plain enough to write by hand: block mappings and sequences, flow mappings and lists on
one line, double-quoted strings, and numbers with the shortest text that reads back the same.
"""

import json
import math
import os
import tempfile


def scalar(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        if math.isnan(value):
            raise ValueError("NaN cannot be written to a ddpsim file")
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    raise TypeError("cannot write %r" % (value,))


def flow(value):
    """A value on one line: [a, b] and {k: v} in flow style."""
    if isinstance(value, dict):
        return "{" + ", ".join("%s: %s" % (k, flow(v)) for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(flow(v) for v in value) + "]"
    return scalar(value)


class Block:
    """Builds a document line by line: mappings in block style, leaves in flow style."""

    def __init__(self):
        self.lines = []

    def comment(self, text, indent=0):
        for line in text.splitlines():
            self.lines.append(" " * indent + ("# " + line if line else "#"))

    def key(self, key, value, indent=0, comment=None):
        line = " " * indent + "%s: %s" % (key, flow(value))
        if comment:
            line += "  # " + comment
        self.lines.append(line)

    def open(self, key, indent=0):
        self.lines.append(" " * indent + "%s:" % key)

    def item(self, mapping, indent=0, nested=()):
        """One `- ` entry of a block sequence: a mapping whose keys in `nested` hold lists of
        flow mappings written one per line; every other value in flow style."""
        first = True
        for k, v in mapping.items():
            prefix = " " * indent + ("- " if first else "  ")
            first = False
            if k in nested and v:
                self.lines.append(prefix + "%s:" % k)
                for entry in v:
                    self.lines.append(" " * (indent + 4) + "- " + flow(entry))
            else:
                self.lines.append(prefix + "%s: %s" % (k, flow(v)))

    def text(self):
        return "\n".join(self.lines) + "\n"


def write_atomic(path, text):
    """Writes `text` to a temporary file next to `path`, then renames it over `path`."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        # mkstemp creates the file 0600; a model file or profile is meant to be shared, so it
        # gets the mode any new file gets (0666 less the umask), as `open(path, "w")` would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
