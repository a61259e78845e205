#!/usr/bin/env bash
# Build ARX from a checkout of its public source, and the benchmark drivers ArxBench.java and ArxSafePub.java, with javac.
#
# Usage:  ARX_SRC=/path/to/arx [ARX_BUILD=/scratch/arx-build] benchmarks/vs_arx/build_arx.sh
#
# Nothing is downloaded here.  Fetch the source yourself, outside this repository, once:
#     git clone https://github.com/arx-deidentifier/arx /scratch/arx && git -C /scratch/arx checkout v3.9.2
# ARX ships its dependency jars in lib/ant/, so no Maven is needed: src/main is compiled against them.
# Snapshots without Git LFS/large files may lack three of those jars; the build then falls back to:
#   * lib/ant/pdfbox/pdfbox-app-2.0.1.jar   -> Debian's libpdfbox2-java (/usr/share/java/pdfbox2.jar,
#     fontbox2.jar), needed only to compile ARX's PDF certificates;
#   * lib/ant/mahout/hadoop-core-1.2.1.jar  -> a compile-time stub of the interface
#     org.apache.hadoop.io.Writable, written into the build folder (only ARX's logistic-regression
#     classifier needs Hadoop, and the benchmark never runs it);
#   * poi-ooxml-schemas (Excel import): not needed to compile.
# Output: $ARX_BUILD/classes (ARX), $ARX_BUILD/bench (ArxBench, ArxSafePub), $ARX_BUILD/classpath.txt.
set -euo pipefail
: "${ARX_SRC:?set ARX_SRC to an ARX source checkout (see the header of this script)}"
ARX_BUILD="${ARX_BUILD:-${TMPDIR:-/tmp}/veil-arx-build}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
command -v javac >/dev/null || { echo "build_arx.sh: no javac on PATH (a JDK 11+ is needed)" >&2; exit 3; }
[ -d "$ARX_SRC/src/main/org/deidentifier/arx" ] || { echo "build_arx.sh: $ARX_SRC is not an ARX checkout" >&2; exit 3; }

mkdir -p "$ARX_BUILD"
CP="$(find "$ARX_SRC/lib/ant" -name '*.jar' | sort | tr '\n' ':')"
SOURCES="$ARX_BUILD/sources.txt"
find "$ARX_SRC/src/main" -name '*.java' | sort > "$SOURCES"

if [ ! -f "$ARX_SRC/lib/ant/pdfbox/pdfbox-app-2.0.1.jar" ]; then
    if [ -f /usr/share/java/pdfbox2.jar ]; then
        CP="$CP/usr/share/java/pdfbox2.jar:/usr/share/java/fontbox2.jar:"
        echo "build_arx.sh: pdfbox-app missing from the checkout; using Debian's pdfbox2.jar" >&2
    else
        echo "build_arx.sh: pdfbox-app-2.0.1.jar is missing; install libpdfbox2-java or fetch the jar" >&2
        exit 3
    fi
fi
if [ ! -f "$ARX_SRC/lib/ant/mahout/hadoop-core-1.2.1.jar" ]; then
    STUB="$ARX_BUILD/stub/org/apache/hadoop/io"
    mkdir -p "$STUB"
    cat > "$STUB/Writable.java" <<'JAVA'
package org.apache.hadoop.io;
/** Compile-time stand-in: hadoop-core is absent from this ARX checkout (only its classifier needs it). */
public interface Writable {
    void write(java.io.DataOutput out) throws java.io.IOException;
    void readFields(java.io.DataInput in) throws java.io.IOException;
}
JAVA
    echo "$STUB/Writable.java" >> "$SOURCES"
    echo "build_arx.sh: hadoop-core missing from the checkout; compiling against a stub of Writable" >&2
fi

rm -rf "$ARX_BUILD/classes" "$ARX_BUILD/bench"
mkdir -p "$ARX_BUILD/classes" "$ARX_BUILD/bench"
javac -nowarn -encoding UTF-8 -d "$ARX_BUILD/classes" -cp "$CP" @"$SOURCES" 2>&1 | grep -v '^Note:' >&2 || true
[ -f "$ARX_BUILD/classes/org/deidentifier/arx/ARXAnonymizer.class" ] || { echo "build_arx.sh: ARX did not compile" >&2; exit 1; }
# ARX loads a few resources (risk tables, certificate images) from its class path.
(cd "$ARX_SRC/src/main" && find . -type f ! -name '*.java' -exec cp --parents {} "$ARX_BUILD/classes/" \;)
javac -encoding UTF-8 -d "$ARX_BUILD/bench" -cp "$ARX_BUILD/classes:$CP" "$HERE/ArxBench.java" "$HERE/ArxSafePub.java"
echo "$ARX_BUILD/bench:$ARX_BUILD/classes:$CP" > "$ARX_BUILD/classpath.txt"
# A checkout has its tag; an exported tree may carry an ARX_REVISION file ("v3.9.2 <commit>").
REV="$(git -C "$ARX_SRC" describe --tags --always 2>/dev/null || cat "$ARX_SRC/ARX_REVISION" 2>/dev/null || echo unknown)"
printf "%s\n" "$REV" > "$ARX_BUILD/arx_revision.txt"
echo "build_arx.sh: ARX ($REV) built into $ARX_BUILD"
