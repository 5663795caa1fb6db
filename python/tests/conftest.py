"""Shared setup: the repository's root, and an rlsolve binary to run (the
installed wheel's, RLSOLVE_BINARY, or one built here with Go)."""

import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def pytest_configure(config):
    try:
        import rlsolve  # noqa: F401  the installed wheel
    except ImportError:
        sys.path.insert(0, str(ROOT / "python"))  # the package from this checkout
    if os.environ.get("RLSOLVE_BINARY"):
        return
    try:
        import rlsolve

        rlsolve.binary_path()
        return  # the installed wheel's binary
    except (ImportError, FileNotFoundError):
        pass
    go = shutil.which("go")
    if go is None:
        return  # the tests that need it skip, saying why
    out = pathlib.Path(tempfile.mkdtemp(prefix="rlsolve-pytest-")) / "rlsolve"
    subprocess.run([go, "build", "-o", str(out), "./cmd/rlsolve"], cwd=ROOT, check=True)
    os.environ["RLSOLVE_BINARY"] = str(out)


@pytest.fixture
def rlsolve_module():
    """The rlsolve package with a binary to run, or a skip saying why."""
    try:
        import rlsolve

        rlsolve.binary_path()
    except ImportError:
        pytest.skip("the rlsolve package is not importable: install the wheel (scripts/wheel.sh) or put python/ on PYTHONPATH")
    except FileNotFoundError as e:
        pytest.skip(str(e))
    return rlsolve


def require_hydra():
    """Skips a test that needs hydra-core where it is missing, saying why;
    with RLSOLVE_REQUIRE_HYDRA set (CI) that is a failure instead."""
    try:
        import hydra  # noqa: F401
    except ImportError:
        if os.environ.get("RLSOLVE_REQUIRE_HYDRA"):
            pytest.fail("RLSOLVE_REQUIRE_HYDRA is set but hydra-core is not importable")
        pytest.skip("hydra-core is not installed (pip install hydra-core omegaconf; CI sets RLSOLVE_REQUIRE_HYDRA=1)")
