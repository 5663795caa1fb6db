"""`python -m rlsolve ARGS` and the `rlsolve` console script: the bundled
binary with ARGS, its exit status passed through."""

import sys

from rlsolve._binary import exec_binary


def main():
    return exec_binary(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
