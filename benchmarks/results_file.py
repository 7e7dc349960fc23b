"""The dated results file each benchmark writes: RESULTS/NAME-DATE.md."""
import contextlib
import datetime
import io
import os
import platform
import sys

from llama_tools import cpu_model


def machine_and_command(name, arguments=None):
    """The lines that say where and how a run was made: the CPU, its cores, the platform, the
    command (`arguments`, by default the driver's own: a driver whose script passes it more than
    the user typed names the user's)."""
    arguments = sys.argv[1:] if arguments is None else arguments
    return (f"machine: {cpu_model()}, {os.cpu_count()} cores, {platform.platform()}\n"
            f"command: benchmarks/{name} {' '.join(arguments)}\n")


def write(folder, name, text):
    """Writes `text` to FOLDER/NAME-DATE.md (the time in UTC) and says where."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{name}-{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%dT%H%M%SZ}.md")
    with open(path, "w", encoding="utf-8") as out:
        out.write(text)
    print(f"\nresults: {path}")
    return path


FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


@contextlib.contextmanager
def recorded(name, folder=FOLDER, arguments=None):
    """What the benchmark prints inside, shown as it comes and, once it ends without an error,
    written as its results file with the machine and the command (`arguments`: see
    machine_and_command)."""
    printed = io.StringIO()

    class Both(io.TextIOBase):
        def write(self, text):
            sys.__stdout__.write(text)
            sys.__stdout__.flush()
            return printed.write(text)

    sys.stdout = Both()
    try:
        yield
    finally:
        sys.stdout = sys.__stdout__
    write(folder, name, f"# {name}\n\n{machine_and_command(name, arguments)}\n```\n{printed.getvalue()}```\n")
