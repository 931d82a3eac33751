"""Print the packages whose version differs between a lock file and a `pip freeze` listing.

Usage: python .ci/lock_diff.py requirements.lock build/latest-versions.txt
(`make test-latest` calls it, so the log of a scheduled run names what moved.)
"""

import re
import sys


def pins(path: str) -> dict[str, str]:
    found = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            match = re.match(r"^([A-Za-z0-9_.\-]+)==([^\s;\\]+)", line)
            if match:
                found[re.sub(r"[-_.]+", "-", match[1]).lower()] = match[2]
    return found


def main(lock: str, latest: str) -> None:
    old, new = pins(lock), pins(latest)
    moved = [(name, old.get(name, "-"), new.get(name, "-"))
             for name in sorted(set(old) | set(new)) if old.get(name) != new.get(name)]
    for name, before, after in moved:
        print(f"  {name}: {before} -> {after}")
    print(f"  ({len(moved)} of {len(set(old) | set(new))} packages differ)")


if __name__ == "__main__":
    main(*sys.argv[1:3])
