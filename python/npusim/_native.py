"""The C++ module, imported on first use, with a clear error when this interpreter cannot load it (the
module is built for one CPython version: the interpreter CMake found, /usr/bin/python3 by default)."""

import glob
import os
import sys


def module():
    try:
        from . import _npusim
    except ImportError as e:
        here = os.path.dirname(os.path.abspath(__file__))
        built = [os.path.basename(p) for p in glob.glob(os.path.join(here, "_npusim*.so"))]
        raise ImportError("npusim: cannot load its C++ module with this interpreter (%s, Python %d.%d): %s; "
                          "built: %s. Use the interpreter the build was configured for (/usr/bin/python3 by "
                          "default, see docs/python.md)" % (sys.executable, sys.version_info[0], sys.version_info[1],
                                                           e, ", ".join(built) or "none (not built?)")) from None
    return _npusim
