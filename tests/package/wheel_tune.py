"""Runs inside wheel_test.sh's mount namespace, with the wheel installed in a fresh virtual
environment: the system's copies of the libraries the wheel carries cannot be loaded, by path or
by name, yet `import cutune` works and a real CPU tune measures and decides, with the wheel's own
copies.
    wheel_tune.py SPEC STORE LIBRARY...
LIBRARY: a system library's path (/usr/lib/x86_64-linux-gnu/libpq.so.5.15, ...) that the namespace
covers with an empty file."""
import ctypes
import sys
from pathlib import Path

spec, store, libraries = sys.argv[1], sys.argv[2], sys.argv[3:]
assert any("/libpq.so" in library for library in libraries), f"libpq is not hidden: {libraries}"
refusals = []
for library in libraries:
    for name in (library, Path(library).name):
        try:
            ctypes.CDLL(name)
        except OSError as error:
            refusals.append(str(error))
        else:
            sys.exit(f"wheel_tune: {name} still loads from the system")
example = next(refusal for refusal in refusals if "libpq" in refusal)
print(f"wheel_tune: none of {len(libraries)} system libraries loads here, by path or name "
      f"({example})")

import cutune  # noqa: E402  (only once the system's libraries are shown to be missing)

package = Path(cutune.__file__).resolve().parent
assert "site-packages" in package.parts, f"cutune imported from {package}, not the installed wheel"
result = cutune.tune(spec, problem="m=64,n=64,k=64", budget=6, seed=5, db=store, effort="quick",
                     warm_start=False, progress=False)
report, decision = result
assert report["outcomes"].get("ok", 0) >= 1, f"no config ran: {report['outcomes']}"
assert report["best"]["time_ms"] > 0
assert decision is not None and decision["config"] == report["best"]["config"]
found = cutune.Runtime(db=store).lookup(spec, "m=64,n=64,k=64")
assert found["config"] == decision["config"], found

# The libraries this process mapped: the wheel's copies (cutune.libs/), never a system one of
# the hidden names (those files are empty here, so they could not have been mapped anyway).
mapped = {line.split()[-1] for line in open("/proc/self/maps") if ".so" in line}
grafted = sorted(Path(p).name for p in mapped if f"{package.name}.libs" in p)
assert grafted, f"no library of the wheel's own was loaded: {sorted(mapped)}"
print(f"wheel_tune: {report['evaluated']} configs measured ({report['outcomes']}), winner "
      f"{decision['config']}; the wheel's own libraries loaded: {', '.join(grafted)}")
