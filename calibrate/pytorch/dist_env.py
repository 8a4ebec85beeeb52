"""What every rank of a torch.distributed measurement shares: joining the process group, the
threads it computes with, and what the machine was doing (load, host, CPU) while it measured.

A rank is started by the launcher (ground_truth.py) or by hand, one process per rank:

    RANK=0 WORLD_SIZE=2 MASTER_ADDR=10.0.0.1 MASTER_PORT=29500 python3 ddpsim_torch.py ...

(--rank, --world-size, --master override the environment). torchrun is not needed: on Debian's
Python 3.11 it crashes, and one process per network namespace cannot be started by it anyway.
"""

import os
import platform
import socket

BACKENDS = ("gloo", "nccl", "mpi")
DEVICES = ("cpu", "cuda")


class DistError(Exception):
    """A mistake in the arguments or the environment: one line, exit 2."""


def add_arguments(parser):
    parser.add_argument("--backend", choices=BACKENDS, default="gloo",
                        help="torch.distributed backend (default gloo; nccl with --device cuda)")
    parser.add_argument("--device", choices=DEVICES, default="cpu",
                        help="where tensors live (default cpu)")
    parser.add_argument("--rank", type=int, help="this process's rank (default $RANK)")
    parser.add_argument("--world-size", type=int, help="ranks in all (default $WORLD_SIZE)")
    parser.add_argument("--master", metavar="HOST:PORT",
                        help="rank 0's address (default $MASTER_ADDR:$MASTER_PORT)")
    parser.add_argument("--threads", type=int, default=0,
                        help="torch.set_num_threads per rank (default: the cores / local ranks, "
                             "at least 1; $DDPSIM_LOCAL_RANKS says how many ranks share the "
                             "machine)")
    parser.add_argument("--host-label", help="the name this rank prints as its host (default "
                                             "$DDPSIM_HOST_LABEL, else the host name)")


def _env_int(name):
    value = os.environ.get(name)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise DistError("$%s=%s: expected an integer" % (name, value))


def init(a):
    """Joins the process group; returns (rank, world size, device). Sets the compute threads."""
    import torch
    import torch.distributed as dist
    rank = a.rank if a.rank is not None else _env_int("RANK")
    world = a.world_size if a.world_size is not None else _env_int("WORLD_SIZE")
    if rank is None or world is None:
        raise DistError("give --rank and --world-size (or $RANK and $WORLD_SIZE)")
    if world < 1 or not 0 <= rank < world:
        raise DistError("--rank %d of --world-size %d: need 0 <= rank < world size" % (rank, world))
    master = a.master or "%s:%s" % (os.environ.get("MASTER_ADDR", "127.0.0.1"),
                                    os.environ.get("MASTER_PORT", "29500"))
    if ":" not in master:
        raise DistError("--master %s: expected HOST:PORT" % master)
    if a.backend == "nccl" and a.device != "cuda":
        raise DistError("--backend nccl needs --device cuda")
    if a.device == "cuda" and not torch.cuda.is_available():
        raise DistError("--device cuda: this PyTorch sees no CUDA device")
    if not dist.is_available() or (a.backend == "gloo" and not dist.is_gloo_available()) or \
            (a.backend == "nccl" and not dist.is_nccl_available()) or \
            (a.backend == "mpi" and not dist.is_mpi_available()):
        raise DistError("--backend %s: this PyTorch was built without it" % a.backend)
    threads = a.threads or max(1, (os.cpu_count() or 1) // max(1, _env_int(
        "DDPSIM_LOCAL_RANKS") or 1))
    torch.set_num_threads(threads)
    device = torch.device("cpu")
    if a.device == "cuda":
        local = _env_int("LOCAL_RANK") or 0
        torch.cuda.set_device(local % torch.cuda.device_count())
        device = torch.device("cuda", torch.cuda.current_device())
    dist.init_process_group(a.backend, init_method="tcp://" + master, rank=rank,
                            world_size=world)
    return rank, world, device


def load_average():
    """The 1-minute load average (0 where /proc/loadavg is missing)."""
    try:
        with open("/proc/loadavg") as f:
            return float(f.read().split()[0])
    except OSError:
        return 0.0


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def host_label(a):
    return a.host_label or os.environ.get("DDPSIM_HOST_LABEL") or socket.gethostname()


def device_name(device):
    """The name a rank line prints: the GPU's, or 'cpu (<model>, N threads)'."""
    import torch
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    return "cpu (%s, %d threads)" % (cpu_model(), torch.get_num_threads())


def gather_strings(text, world):
    """Every rank's `text`, in rank order (an all_gather_object)."""
    import torch.distributed as dist
    out = [None] * world
    dist.all_gather_object(out, text)
    return out
