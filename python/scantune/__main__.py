"""python -m scantune devices | show ...: the CLI's inspection commands."""

import os
import shutil
import subprocess
import sys

from . import _loader

COMMANDS = ("devices", "show")


def find_cli():
    """$SCANTUNE_CLI, then `scantune` on PATH, then the build folder's tuner/scantune
    next to the library's runtime/ folder."""
    env = os.environ.get("SCANTUNE_CLI")
    if env:
        return env
    found = shutil.which("scantune")
    if found:
        return found
    lib = _loader.candidates()[0]
    if os.path.isabs(lib):
        here = os.path.dirname(os.path.realpath(lib))
        for cand in (os.path.join(here, "..", "tuner", "scantune"),
                     os.path.join(here, "..", "bin", "scantune")):
            if os.access(cand, os.X_OK):
                return os.path.normpath(cand)
    return None


def main(argv):
    if not argv or argv[0] not in COMMANDS:
        print(f"usage: python -m scantune {{{'|'.join(COMMANDS)}}} [args...]\n"
              "  runs the scantune CLI's inspection commands", file=sys.stderr)
        return 2
    cli = find_cli()
    if cli is None:
        print("python -m scantune: the scantune CLI was not found (set SCANTUNE_CLI to "
              "its path, put it on PATH, or build it with -DSCANTUNE_BUILD_CLI=ON)",
              file=sys.stderr)
        return 1
    return subprocess.call([cli, *argv])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
