#!/usr/bin/python3
"""The Python SDK's conformance runner.

Runs every case of test/conformance/cases.json (tests/test_conformance.py, one test per
case) against the conformance server whose control URL is in MANETTE_CONFORMANCE_URL, and
with them the SDK's other tests (tests/: unit tests, realtime behaviours, the examples);
writes the JSON report of the cases to MANETTE_CONFORMANCE_REPORT (when set), prints the
other tests' count (``other tests: N passed, M failed``) and, as its last line, the cases'
``N passed, M failed``. Exit status 0 when every case and every other test passed.

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
TESTS = os.path.join(HERE, "tests")
CASES_MODULE = "test_conformance.py"


class Collector:
    """A pytest plugin: the outcome of each test_<case id>, and of the other tests."""

    def __init__(self) -> None:
        self.outcomes: dict = {}
        self.others: dict = {}

    def pytest_runtest_logreport(self, report) -> None:  # noqa: ANN001
        module, _, name = report.nodeid.partition("::")
        failed = report.failed or (report.skipped and report.when in ("setup", "call"))
        if not module.endswith(CASES_MODULE):
            if failed:
                self.others[report.nodeid] = False
            elif report.when == "call" and report.passed:
                self.others.setdefault(report.nodeid, True)
            return
        if not name.startswith("test_"):
            return
        case = name[len("test_"):]
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
    others_ok = sum(1 for ok in collector.others.values() if ok)
    others_failed = [k for k, ok in collector.others.items() if not ok]
    sys.stdout.flush()
    print(f"other tests: {others_ok} passed, {len(others_failed)} failed" + (f" ({', '.join(others_failed)})" if others_failed else ""))
    print(f"{passed} passed, {len(results) - passed} failed", flush=True)
    return 0 if passed == len(results) and not others_failed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
