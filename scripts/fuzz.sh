#!/usr/bin/env bash
# libFuzzer on the track, EMV and JSON-request parsers, each for a bounded time.
#
# The targets' bodies are the vault's FuzzHarness module (the Fuzz/ executables hold only their
# entry points); `make test` builds them and replays every committed corpus once without sanitizers.
# Builds the Fuzz/ package with the fuzzer and address sanitizers, replays every committed input
# of Fuzz/Corpus/<target>/ (seeds and earlier crashes: the regression check), then fuzzes each
# target. New interesting inputs go to a work corpus under the scratch path, never into the
# committed one. A crash is minimised and saved as Fuzz/Corpus/<target>/crash-<sha1> (commit it,
# and add a test to Tests/VaultTests/Capture/FuzzRegressionTests.swift); the script then exits 1.
#
# Run time: the first build compiles every module of the vault and its dependencies with ASan and
# coverage, about 15 minutes on two cores (later builds are incremental: seconds). Then each target
# replays its committed corpus (under a second) and fuzzes for FUZZ_SECONDS (60 s by default), plus up
# to 60 s of minimisation if it crashes: `make fuzz` takes about 3.5 minutes after the build.
# Needs only the Swift toolchain (libFuzzer, the ASan runtime, llvm-nm and llvm-symbolizer ship with
# it) and the vault's own build dependencies (scripts/install-deps.sh).
#
# Environment:
#   FUZZ_SECONDS              fuzzing time per target (default 60)
#   FUZZ_SECONDS_<Target>     per-target override, e.g. FUZZ_SECONDS_JSONRequestFuzzer=120
#   FUZZ_TARGETS              targets to run (default: TrackFuzzer EMVFuzzer JSONRequestFuzzer)
#   FUZZ_CONFIGURATION        release (default) or debug
#   FUZZ_SCRATCH_PATH         SwiftPM scratch path (default Fuzz/.build)
#   FUZZ_REPLAY_ONLY=1        only build and replay the committed corpora (quick regression check)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

SECONDS_DEFAULT=${FUZZ_SECONDS:-60}
TARGETS=${FUZZ_TARGETS:-"TrackFuzzer EMVFuzzer JSONRequestFuzzer"}
CONFIGURATION=${FUZZ_CONFIGURATION:-release}
SCRATCH=${FUZZ_SCRATCH_PATH:-$ROOT/Fuzz/.build}
REPLAY_ONLY=${FUZZ_REPLAY_ONLY:-0}

max_len() {
  case "$1" in
    TrackFuzzer) echo 5000 ;;        # past MagneticStripe.maximumInputLength (4096)
    EMVFuzzer) echo 8200 ;;          # past BERTLV's 8 KiB of TLV bytes
    *) echo 8192 ;;
  esac
}

# The fuzz package depends on ../ by path; start from the main package's pins (copied once:
# SwiftPM rewrites the copy, and replacing it on every run may trigger a rebuild of the slow sanitizer build).
if [ -f Package.resolved ] && [ ! -f Fuzz/Package.resolved ]; then cp Package.resolved Fuzz/Package.resolved; fi

echo "== building fuzzers ($CONFIGURATION, fuzzer + address sanitizers)"
# SwiftPM turns `--sanitize=fuzzer --sanitize=address` into `-fsanitize=fuzzer -fsanitize=address` for
# clang (both apply) but into `-sanitize=address -sanitize=fuzzer` for swiftc, where the last `-sanitize=`
# wins: the Swift code of every module (the vault's parsers included) came out with coverage and no
# ASan, and any other order leaves it blind. One combined `-sanitize=fuzzer,address`, appended after
# SwiftPM's own flags to every Swift compile and link (the path dependency's modules too), gives both;
# `-sanitize=fuzzer` brings swiftc's default coverage (edge, inline 8-bit counters, PC table,
# comparisons, stack depth). `scripts/fuzz.sh` checks the result before fuzzing (`check_instrumented`).
BUILD=(swift build --package-path Fuzz --scratch-path "$SCRATCH" -c "$CONFIGURATION"
  --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address)
set +e
"${BUILD[@]}" 2>&1 | grep --line-buffered -v "Cannot export local symbol"
build_status=${PIPESTATUS[0]}
set -e
[ "$build_status" -eq 0 ] || { echo "fuzz: the build failed" >&2; exit 1; }
BIN=$("${BUILD[@]}" --show-bin-path)

# The Swift modules under test must carry both libFuzzer's coverage counters and ASan's checks; a
# module compiled without either would fuzz blind (libFuzzer's own "INITED cov:" counts the fuzz
# targets and C code too, so it cannot tell).
NM=$(dirname "$(command -v swift)")/llvm-nm
[ -x "$NM" ] || NM=nm
check_instrumented() {
  local module=$1 objects
  objects=("$BIN/$module.build/"*.o)
  [ -f "${objects[0]}" ] || { echo "fuzz: no objects for $module in $BIN" >&2; return 1; }
  local symbols
  symbols=$("$NM" --undefined-only "${objects[@]}" 2>/dev/null)
  grep -q "__sanitizer_cov_8bit_counters_init" <<<"$symbols" || { echo "fuzz: $module has no coverage instrumentation" >&2; return 1; }
  grep -q "__asan_" <<<"$symbols" || { echo "fuzz: $module has no AddressSanitizer instrumentation" >&2; return 1; }
}
for module in Vault Payments Scheduler FuzzHarness $TARGETS; do
  check_instrumented "$module" || { echo "fuzz: the build is not instrumented; see the BUILD flags in $0" >&2; exit 1; }
done
echo "== instrumented: Vault Payments Scheduler FuzzHarness $TARGETS (coverage + ASan)"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:symbolize=1}
SYMBOLIZER=$(dirname "$(command -v swift)")/llvm-symbolizer
[ -x "$SYMBOLIZER" ] && export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-$SYMBOLIZER}
# The Swift runtime's own backtracer reads freed memory and trips ASan; libFuzzer and ASan report instead.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
RESULTS=()
FAILED=0

for target in $TARGETS; do
  corpus=Fuzz/Corpus/$target
  dict=Fuzz/Dictionaries/$target.dict
  work=$SCRATCH/fuzz-work/$target
  logs=$SCRATCH/fuzz-logs
  mkdir -p "$work" "$logs" "$corpus"
  seconds_var="FUZZ_SECONDS_$target"
  seconds=${!seconds_var:-$SECONDS_DEFAULT}
  common=(-max_len="$(max_len "$target")" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1)
  [ -f "$dict" ] && common+=(-dict="$dict")

  echo "== $target: replaying $(find "$corpus" -type f | wc -l | tr -d ' ') committed inputs"
  if ! "$BIN/$target" "${common[@]}" -runs=0 "$corpus" >"$logs/$target-replay.log" 2>&1; then
    echo "fuzz: $target crashes on a committed input:" >&2
    grep -E "ERROR|Fatal error|Test unit written|SUMMARY|#[0-9]+ in " "$logs/$target-replay.log" | head -40 >&2
    RESULTS+=("$target replay FAILED")
    FAILED=1
    continue
  fi
  if ! grep -q "INITED cov:" "$logs/$target-replay.log"; then
    echo "fuzz: $target has no coverage instrumentation; fuzzing it would prove nothing" >&2
    RESULTS+=("$target NOT INSTRUMENTED")
    FAILED=1
    continue
  fi
  [ "$REPLAY_ONLY" = 1 ] && { RESULTS+=("$target replay ok"); continue; }

  echo "== $target: fuzzing for ${seconds}s (log: $logs/$target.log)"
  artifacts=$SCRATCH/fuzz-artifacts/$target
  mkdir -p "$artifacts"
  status=0
  "$BIN/$target" "${common[@]}" -max_total_time="$seconds" -artifact_prefix="$artifacts/" \
    "$work" "$corpus" >"$logs/$target.log" 2>&1 || status=$?
  final_stat() { grep -E "^stat::$1:" "$logs/$target.log" | awk '{print $2}' | tail -1 || true; }
  # cov/ft at start (after loading the corpora) -> at the end: they must grow on a fresh work corpus.
  progress() { grep -oE "$1: [0-9]+" "$logs/$target.log" | sed -n "$2" | awk '{print $2}' || true; }
  coverage="$(progress cov 1p)->$(progress cov '$p')"
  features="$(progress ft 1p)->$(progress ft '$p')"
  summary="$target ${seconds}s execs=$(final_stat number_of_executed_units) exec/s=$(final_stat average_exec_per_sec) cov=$coverage ft=$features new=$(final_stat new_units_added) work-corpus=$(find "$work" -type f | wc -l | tr -d ' ') rss=$(final_stat peak_rss_mb)MB"
  if [ "$status" -eq 0 ]; then
    RESULTS+=("$summary crashes=0")
    continue
  fi

  FAILED=1
  crash=$(ls -t "$artifacts"/* 2>/dev/null | head -1 || true)
  echo "fuzz: $target found a failure (exit $status):" >&2
  grep -E "ERROR|Fatal error|SUMMARY|#[0-9]+ 0x.* in " "$logs/$target.log" | head -40 >&2
  if [ -n "$crash" ]; then
    minimized=$artifacts/minimized-$(basename "$crash")
    "$BIN/$target" "${common[@]}" -minimize_crash=1 -max_total_time=60 -exact_artifact_path="$minimized" "$crash" \
      >"$logs/$target-minimize.log" 2>&1 || true
    [ -s "$minimized" ] || minimized=$crash
    saved=$corpus/crash-$(sha1sum "$minimized" | cut -d' ' -f1)
    cp "$minimized" "$saved"
    echo "fuzz: minimised input saved as $saved ($(wc -c <"$saved" | tr -d ' ') bytes); commit it and add a regression test" >&2
    RESULTS+=("$summary CRASH -> $saved")
  else
    RESULTS+=("$summary FAILED (exit $status, no artifact)")
  fi
done

echo
echo "== fuzz summary"
printf '%s\n' "${RESULTS[@]}"
exit "$FAILED"
