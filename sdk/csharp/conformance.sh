#!/usr/bin/env bash
# The C# SDK's conformance run: builds what it needs (build.sh, into sdk/csharp/build/), then
# runs every case of test/conformance/cases.json against the conformance server.
# Env: MANETTE_CONFORMANCE_URL (the server's control URL), MANETTE_CONFORMANCE_REPORT (where
# the JSON report goes). The last stdout line is "N passed, M failed"; exit 0 when all passed.
# Usage (from the repository root): bash sdk/csharp/conformance.sh [case ids...]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bash "$here/build.sh" >&2
exec mono --debug "$here/build/Conformance.exe" --cases "$root/test/conformance/cases.json" "$@"
