#!/usr/bin/env bash
# The C# SDK's unit tests (NUnit 2.6, Debian's nunit-console): JSON, the file session store,
# a proxy's non-JSON answer. With MANETTE_CONFORMANCE_URL set, the conformance cases run too
# (fixture ConformanceTests), one NUnit test per case. Usage: bash sdk/csharp/test.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bash "$here/build.sh" >&2
cd "$here/build"
exec nunit-console -nologo -noshadow Manette.Tests.dll -xml="$here/build/TestResult.xml" "$@"
