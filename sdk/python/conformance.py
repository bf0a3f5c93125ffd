#!/usr/bin/python3
"""The Python SDK's conformance runner.

Runs every case of test/conformance/cases.json (tests/test_conformance.py, one test per
case) against the conformance server whose control URL is in MANETTE_CONFORMANCE_URL,
writes the JSON report to MANETTE_CONFORMANCE_REPORT (when set) and prints, as its last
line, ``N passed, M failed``. Exit status 0 when every case passed.

    node bin/run-ts.js test/conformance/server.ts     # prints {"control": "http://127.0.0.1:PORT"}
    MANETTE_CONFORMANCE_URL=http://127.0.0.1:PORT /usr/bin/python3 sdk/python/conformance.py
"""
from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CASES = os.path.join(REPO, "test", "conformance", "cases.json")
TESTS = os.path.join(HERE, "tests", "test_conformance.py")


class Collector:
    """A pytest plugin: the outcome of each test_<case id>."""

    def __init__(self) -> None:
        self.outcomes: dict = {}

    def pytest_runtest_logreport(self, report) -> None:  # noqa: ANN001
        name = report.nodeid.split("::")[-1]
        if not name.startswith("test_"):
            return
        case = name[len("test_"):]
        failed = report.failed or (report.skipped and report.when in ("setup", "call"))
        if failed:
            text = str(report.longrepr) if report.longrepr else report.outcome
            # The assertion's line, not the whole traceback.
            lines = [l for l in text.splitlines() if l.startswith("E ")] or text.splitlines()[-3:]
            msg = f"{report.when}: " + " ".join(l[1:].strip() if l.startswith("E ") else l.strip() for l in lines)[:2000]
            self.outcomes.setdefault(case, msg)
        elif report.when == "call" and report.passed:
            self.outcomes.setdefault(case, None)


def main(argv: list) -> int:
    sys.dont_write_bytecode = True
    import pytest

    if not os.environ.get("MANETTE_CONFORMANCE_URL"):
        print("MANETTE_CONFORMANCE_URL is not set (the control URL printed by test/conformance/server.ts)", file=sys.stderr)
    with open(CASES, encoding="utf-8") as f:
        cases = [c["id"] for c in json.load(f)["cases"]]
    collector = Collector()
    pytest.main([TESTS, "-p", "no:cacheprovider", "-q", "-rfEs", "--rootdir", HERE, *argv], plugins=[collector])
    results = []
    for case in cases:
        if case not in collector.outcomes:
            results.append({"case": case, "ok": False, "message": "not run: no test for this case, or it was deselected"})
        elif collector.outcomes[case] is None:
            results.append({"case": case, "ok": True})
        else:
            results.append({"case": case, "ok": False, "message": collector.outcomes[case]})
    report = {"sdk": "python", "results": results}
    path = os.environ.get("MANETTE_CONFORMANCE_REPORT")
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(report, f, ensure_ascii=False, indent=2)
    passed = sum(1 for r in results if r["ok"])
    sys.stdout.flush()
    print(f"{passed} passed, {len(results) - passed} failed", flush=True)
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
