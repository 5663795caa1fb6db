"""Where the bundled rlsolve binary is, and how to run it."""

import os
import subprocess
import sys

_EXE = "rlsolve.exe" if os.name == "nt" else "rlsolve"


def binary_path():
    """The rlsolve binary this package runs.

    RLSOLVE_BINARY names another one (a binary built from a checkout, for
    the package's own tests); otherwise it is the one the wheel installed
    beside this file.
    """
    override = os.environ.get("RLSOLVE_BINARY")
    if override:
        return override
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", _EXE)
    if not os.path.isfile(path):
        raise FileNotFoundError(
            "the rlsolve binary is not at %s: install rlsolve from its platform wheel, "
            "or set RLSOLVE_BINARY to a binary built with `go build ./cmd/rlsolve`" % path
        )
    return path


def run(args, stdin=None, cwd=None):
    """Runs rlsolve with args, stdin (text) on its standard input.

    Returns (exit code, stdout, stderr). Nothing is written to disk.
    """
    proc = subprocess.run(
        [binary_path()] + list(args),
        input=(stdin or "").encode("utf-8"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=_env(),
    )
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")


def _env():
    # The report is read by a program: no colour codes in it.
    env = dict(os.environ)
    env["NO_COLOR"] = "1"
    return env


def exec_binary(argv):
    """Replaces this process by rlsolve (POSIX), so that its exit status and
    signals are the command's own; on Windows, runs it and returns its status."""
    path = binary_path()
    if os.name == "nt":
        return subprocess.call([path] + list(argv))
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(path, [path] + list(argv))
    return 127  # not reached
