#!/usr/bin/env bash
# Builds the C# SDK with Debian's Mono (mcs) into sdk/csharp/build/:
#   Manette.dll            the core library (sources: src/Manette/*.cs)
#   NetstandardCheck.exe   checks that Manette.dll uses only types of .NET Standard 2.0
#   Manette.Tests.dll      NUnit 2.6 tests (JSON, session, client without a server; the conformance cases)
#   Conformance.exe        the conformance runner (conformance.sh runs it)
#   Morpion.exe            the console example (examples/Morpion)
#   com.manette.sdk/       the Unity package, self-contained (unity/ with the core copied in)
# Usage: bash sdk/csharp/build.sh   (from anywhere)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/build"
mkdir -p "$out"
MCS="mcs -langversion:7 -nowarn:1591,0219,4014 -warnaserror-"
NUNIT_DIR="${NUNIT_DIR:-/usr/lib/cli/nunit.framework-2.6.3}"

# The core: what netstandard2.0 offers of the base class library (System.Net.Http is part of it).
$MCS -target:library -r:System.Net.Http.dll -out:"$out/Manette.dll" "$here"/src/Manette/*.cs

# The check that no type outside .NET Standard 2.0 is used (against Mono's netstandard facade).
$MCS -target:exe -out:"$out/NetstandardCheck.exe" "$here/tools/NetstandardCheck.cs"
ikdasm /usr/lib/mono/4.5/Facades/netstandard.dll | sed -n 's/^\.class extern forwarder //p' > "$out/netstandard2.0-types.txt"
mono "$out/NetstandardCheck.exe" "$out/Manette.dll" "$out/netstandard2.0-types.txt"
# ... and the check itself refuses a library that uses a type .NET Standard 2.0 lacks.
$MCS -target:library -out:"$out/NotNetstandard.dll" "$here/tools/NotNetstandard.cs"
if mono "$out/NetstandardCheck.exe" "$out/NotNetstandard.dll" "$out/netstandard2.0-types.txt" >/dev/null 2>&1; then
  echo "NetstandardCheck accepted a library using System.Runtime.Remoting: the check is broken" >&2
  exit 1
fi

$MCS -target:exe -r:"$out/Manette.dll" -r:System.Net.Http.dll -out:"$out/Conformance.exe" "$here"/conformance/*.cs
if [ -f "$NUNIT_DIR/nunit.framework.dll" ]; then
  $MCS -target:library -r:"$out/Manette.dll" -r:System.Net.Http.dll -r:"$NUNIT_DIR/nunit.framework.dll" \
    -out:"$out/Manette.Tests.dll" "$here"/tests/*.cs "$here/conformance/Cases.cs" "$here/conformance/Program.cs"
  cp "$NUNIT_DIR/nunit.framework.dll" "$out/"
else
  echo "NUnit 2.6 not found in $NUNIT_DIR (apt-get install libnunit-cil-dev): the NUnit tests are not built" >&2
fi
$MCS -target:exe -r:"$out/Manette.dll" -out:"$out/Morpion.exe" "$here"/examples/Morpion/*.cs
# The Unity package as one self-contained folder (Runtime/Core copied, not linked), for
# Unity's "Add package from disk" where the repository's symbolic link is not kept.
rm -rf "$out/com.manette.sdk"
cp -RL "$here/unity" "$out/com.manette.sdk"
echo "built into $out"
