"""Network namespaces for the ground-truth runs: N ranks, each in its own namespace, joined by
veth links shaped to one rate with tc, and always removed afterwards.

Two ranks get one veth pair (a point-to-point link); more ranks get a bridge in a namespace of
its own with one veth per rank. Every link is shaped on both ends (htb at the given rate, so
each direction is limited as a NIC of that rate would be). Addresses (10.77.0.0/24) exist only
inside the namespaces; nothing outside them is touched. Names carry the launcher's pid
(`ddpsim-gt-<pid>-<i>`), so `remove_stale()` can delete what a killed launcher left behind
without touching a running one's.

Needs root and `ip`/`tc` (iproute2); `available()` says why not where they are missing.
"""

import os
import re
import shutil
import subprocess

PREFIX = "ddpsim-gt-"
SUBNET = "10.77.0."


def _run(args, check=True):
    r = subprocess.run(args, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(args), (r.stderr or r.stdout).strip()))
    return r


def available():
    """'' when namespaces can be made here, else why not."""
    if os.geteuid() != 0:
        return "network namespaces need root (running as uid %d)" % os.geteuid()
    for tool in ("ip", "tc"):
        if shutil.which(tool) is None:
            return "'%s' (iproute2) is not installed" % tool
    probe = "%sprobe-%d" % (PREFIX, os.getpid())
    r = _run(["ip", "netns", "add", probe], check=False)
    if r.returncode != 0:
        return "ip netns add failed: %s" % r.stderr.strip()
    _run(["ip", "netns", "del", probe], check=False)
    return ""


def existing():
    r = _run(["ip", "netns", "list"], check=False)
    return [line.split()[0] for line in r.stdout.splitlines() if line.startswith(PREFIX)]


def remove_stale():
    """Deletes ddpsim namespaces whose launcher process is gone."""
    removed = []
    for name in existing():
        m = re.match(re.escape(PREFIX) + r"(?:probe-)?(\d+)", name)
        if m and not os.path.exists("/proc/%s" % m.group(1)):
            _run(["ip", "netns", "del", name], check=False)
            removed.append(name)
    return removed


def rate_text(bits_per_second):
    return "%dkbit" % max(1, int(bits_per_second // 1000))


class Network:
    """N namespaces joined at `bits_per_second`; use as a context manager."""

    def __init__(self, ranks, bits_per_second):
        self.ranks = ranks
        self.rate = bits_per_second
        self.tag = "%s%d" % (PREFIX, os.getpid())
        self.names = ["%s-%d" % (self.tag, i) for i in range(ranks)]
        self.addresses = ["%s%d" % (SUBNET, i + 1) for i in range(ranks)]
        self.created = []

    def _ns(self, name):
        _run(["ip", "netns", "add", name])
        self.created.append(name)
        _run(["ip", "-n", name, "link", "set", "lo", "up"])

    def _shape(self, ns, dev):
        # htb, not tbf: a rate with a quantum, no burst to tune; GSO packets pass whole.
        _run(["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", dev, "root", "handle",
              "1:", "htb", "default", "10"])
        _run(["ip", "netns", "exec", ns, "tc", "class", "add", "dev", dev, "parent", "1:",
              "classid", "1:10", "htb", "rate", rate_text(self.rate), "ceil",
              rate_text(self.rate)])

    def __enter__(self):
        try:
            self.create()
        except BaseException:
            self.remove()
            raise
        return self

    def __exit__(self, *exc):
        self.remove()

    def create(self):
        for name in self.names:
            self._ns(name)
        if self.ranks == 2:
            a, b = self.names
            _run(["ip", "link", "add", "gt0", "netns", a, "type", "veth", "peer", "name", "gt0",
                  "netns", b])
            for ns, addr in zip(self.names, self.addresses):
                _run(["ip", "-n", ns, "addr", "add", addr + "/24", "dev", "gt0"])
                _run(["ip", "-n", ns, "link", "set", "gt0", "up"])
                self._shape(ns, "gt0")
            return
        bridge = self.tag + "-br"
        self._ns(bridge)
        _run(["ip", "-n", bridge, "link", "add", "br0", "type", "bridge"])
        _run(["ip", "-n", bridge, "link", "set", "br0", "up"])
        for i, (ns, addr) in enumerate(zip(self.names, self.addresses)):
            port = "p%d" % i
            _run(["ip", "link", "add", "gt0", "netns", ns, "type", "veth", "peer", "name", port,
                  "netns", bridge])
            _run(["ip", "-n", bridge, "link", "set", port, "master", "br0"])
            _run(["ip", "-n", bridge, "link", "set", port, "up"])
            _run(["ip", "-n", ns, "addr", "add", addr + "/24", "dev", "gt0"])
            _run(["ip", "-n", ns, "link", "set", "gt0", "up"])
            self._shape(ns, "gt0")
            self._shape(bridge, port)

    def remove(self):
        for name in reversed(self.created):
            _run(["ip", "netns", "del", name], check=False)
        self.created = []

    def prefix(self, rank):
        """The command prefix that runs a program in rank's namespace."""
        return ["ip", "netns", "exec", self.names[rank]]
