#!/usr/bin/env bash
# `swift format lint` with the repository's .swift-format: fails on a finding of any rule the
# configuration enables (the rules the tree already keeps: no force-unwrapped IUO declarations,
# `///` doc comments, no parentheses around conditions, shorthand type names, ...).
#
# Layout is not enforced: the tree is not laid out by swift format's pretty printer, and making it
# so would rewrite most files. Its findings (Indentation, AddLines, RemoveLine, Spacing, LineLength,
# TrailingComma, TrailingWhitespace) are dropped here; `lineLength` and `indentation` in
# .swift-format state the house layout (150 columns, four spaces) for `swift format format` on new files.
#
# The whole tree takes about 15 s (5 s of CPU, --parallel) on the shared two-core machine; run by
# scripts/test.sh before the build.
#   SWIFT=swift scripts/lint.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}

LAYOUT='\[(Indentation|AddLines|RemoveLine|Spacing|LineLength|TrailingComma|TrailingWhitespace)\]'
status=0
output=$($SWIFT format lint --recursive --parallel \
  Package.swift Sources Tests/*Tests Tests/StorageTestSupport Tests/VaultAppTestSupport Fuzz/Package.swift Fuzz/Sources Benchmarks/Package.swift Benchmarks/Benchmarks 2>&1) || status=$?
findings=$(grep -E ': (warning|error): ' <<<"$output" | grep -vE ": warning: $LAYOUT" || true)
if [ -n "$findings" ]; then
  echo "lint: swift format findings (rules enabled in .swift-format):" >&2
  echo "$findings" >&2
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "lint: swift format lint failed (exit $status):" >&2
  echo "$output" | grep -vE ": warning: $LAYOUT" | head -20 >&2
  exit 1
fi
echo "lint: swift format: no findings"
