#!/usr/bin/env bash
# The instruction-budget guard (`make budget`; `make test` runs it): counts the instructions one
# operation costs in the debug build and fails when any costs more than 10 % over its committed
# budget in Benchmarks/instruction-budgets.json.
#
#   scripts/instruction-budget.sh [--operations "register retrieve ..."] [--update] [--repeat R]
#                                 [--add-allocation-loop K]
#
# The workload (Sources/instruction-budget, built by `swift build`) performs N of one operation on
# a fresh SQLite vault and exits. It runs under `valgrind --tool=callgrind` at the two counts of the
# budget file per operation; (Ir(large) - Ir(small)) / (large - small) is the operation's cost, so
# start-up, opening, migrating and the prepared records cancel. Callgrind counts the same
# instructions for the same binary and input however busy the machine is, once what varies from run
# to run is pinned: hashing seeds (SWIFT_DETERMINISTIC_HASHING=1) and one malloc arena for every
# thread (GLIBC_TUNABLES=glibc.malloc.arena_max=1), since the Swift runtime's metadata caches hash
# addresses (address randomization makes no difference: valgrind lays out the client's memory
# itself). What still varies is left out of the count: the probes
# of those caches (`MetadataCacheKey::operator==` and the caches' `Snapshot::find`, about 2 % of the
# total), whose lengths depend on where the heap put the metadata, which depends on how the threads
# (SQLite's writer and checkpointer, the task pool) interleaved; they varied by up to 2 million
# instructions a run, 1-6 % of an operation. SQLite's background checkpoint never runs: the
# workload empties the write-ahead log itself before it gets that long.
#
#   --operations LIST        only these operations (default: every one in the budget file)
#   --update                 write the measured counts into the budget file (commit and date too)
#   --repeat R               count each operation R times and print the spread (default 1)
#   --add-allocation-loop K  the workload allocates and frees K small arrays per operation: the
#                            demonstration that the guard fails when an operation grows
#
# Exit status: 0 within budget (or updated), 1 an operation over budget, 2 anything else (no
# binary, valgrind missing, a workload that failed). Valgrind runs BUDGET_JOBS (default 2) at once.
# Valgrind 3.19 (Debian 12) cannot read the DWARF 5 debug information of Swift 6's debug build, so
# a copy of the binary without it (objcopy --strip-debug; the same code) is what runs.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
budgets=Benchmarks/instruction-budgets.json
tolerance=1.10

operations=""
update=false
repeat=1
allocation_loop=0
while [ $# -gt 0 ]; do
  case $1 in
    --operations) operations=$2; shift 2 ;;
    --update) update=true; shift ;;
    --repeat) repeat=$2; shift 2 ;;
    --add-allocation-loop) allocation_loop=$2; shift 2 ;;
    *) echo "instruction-budget.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if $update && [ "$allocation_loop" != 0 ]; then
  echo "instruction-budget.sh: --update with --add-allocation-loop would commit the extra work as the budget" >&2
  exit 2
fi

fail() { echo "instruction-budget.sh: $*" >&2; exit 2; }
command -v valgrind >/dev/null || fail "valgrind is missing (scripts/install-deps.sh installs it)"
command -v objcopy >/dev/null || fail "objcopy is missing (binutils; scripts/install-deps.sh installs it)"
command -v callgrind_annotate >/dev/null || fail "callgrind_annotate is missing (valgrind; scripts/install-deps.sh installs it)"
binary="$($SWIFT build --show-bin-path)/instruction-budget"
[ -x "$binary" ] || fail "$binary is missing: run \`swift build\` first (\`make budget\` does)"

read -r small large < <(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["counts"]; print(c["small"], c["large"])' "$budgets")
# counts_of OPERATION: its two counts, "SMALL LARGE": the file's "counts", or the operation's own
# under "countsByOperation" (an operation so cheap that start-up's variation would swamp 50 of it).
counts_of() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d.get("countsByOperation",{}).get(sys.argv[2],d["counts"]); print(c["small"], c["large"])' "$budgets" "$1"
}
[ -n "$operations" ] || operations=$(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["operations"]))' "$budgets")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
objcopy --strip-debug "$binary" "$work/instruction-budget"

# count OPERATION N TAG: runs the workload under callgrind; writes the counted instructions (the
# total less the metadata-cache probes), the total and the probes into $work/TAG.ir.
count() {
  local operation=$1 n=$2 tag=$3
  if ! TMPDIR=$work SWIFT_DETERMINISTIC_HASHING=1 GLIBC_TUNABLES=glibc.malloc.arena_max=1 \
    valgrind --tool=callgrind --callgrind-out-file="$work/$tag.out" --dump-line=no --dump-instr=no \
    "$work/instruction-budget" "$operation" --count "$n" --prepared "$((n > large ? n : large))" --add-allocation-loop "$allocation_loop" \
    >"$work/$tag.log" 2>&1; then
    echo "the $operation workload (N=$n) failed under valgrind:" >&2
    grep -v '^==' "$work/$tag.log" | tail -20 >&2
    return 1
  fi
  callgrind_annotate --threshold=100 --inclusive=no "$work/$tag.out" | python3 -c '
import re, sys
total = probes = 0
for line in sys.stdin:
    match = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)", line)
    if not match:
        continue
    cost, function = int(match.group(1).replace(",", "")), match.group(2)
    if "PROGRAM TOTALS" in function:
        total = cost
    elif "MetadataCacheKey::operator==" in function or ("ConcurrentReadableHashMap" in function and "Snapshot::find" in function):
        probes += cost
if total == 0:
    sys.exit("no PROGRAM TOTALS in the callgrind output")
print(total - probes, total, probes)
' >"$work/$tag.ir"
  rm -f "$work/$tag.out"
}

# Every (operation, repetition, size) run, BUDGET_JOBS at a time.
jobs=()
for operation in $operations; do
  read -r operation_small operation_large < <(counts_of "$operation")
  for ((run = 1; run <= repeat; run++)); do
    jobs+=("$operation $operation_small $operation.$run.small" "$operation $operation_large $operation.$run.large")
  done
done
started=$SECONDS
pids=()
for job in "${jobs[@]}"; do
  # shellcheck disable=SC2086
  count $job &
  pids+=($!)
  if [ ${#pids[@]} -ge "${BUDGET_JOBS:-2}" ]; then
    if ! wait "${pids[0]}"; then
      kill "${pids[@]:1}" 2>/dev/null || true
      fail "a workload failed"
    fi
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do wait "$pid" || fail "a workload failed"; done

SWIFT=$SWIFT python3 - "$budgets" "$work" "$small" "$large" "$repeat" "$tolerance" "$update" "$allocation_loop" "$((SECONDS - started))" $operations <<'EOF'
import datetime, json, os, subprocess, sys, traceback

def fail_with_status_2(kind, value, trace):
    # Status 1 means "over budget"; a broken comparison is anything else.
    traceback.print_exception(kind, value, trace)
    os._exit(2)

sys.excepthook = fail_with_status_2
path, work, small, large, repeat, tolerance, update, loop, seconds = sys.argv[1:10]
operations = sys.argv[10:]
small, large, repeat, tolerance, loop = int(small), int(large), int(repeat), float(tolerance), int(loop)
document = json.load(open(path))

def counts(operation):
    own = document.get("countsByOperation", {}).get(operation)
    return (own["small"], own["large"]) if own else (small, large)

def ir(operation, run, size):
    return int(open(f"{work}/{operation}.{run}.{size}.ir").read().split()[0])  # the counted total

measured = {}
print(f"instructions per operation, debug build: (Ir(N={large}) - Ir(N={small})) / {large - small}"
      + "".join(f"; {o}: N={counts(o)[0]} and {counts(o)[1]}" for o in operations if counts(o) != (small, large))
      + (f", with {loop} extra allocations per operation" if loop else "") + f"; {seconds} s")
print(f"{'operation':<14} {'measured':>12} {'budget':>12} {'ratio':>7}")
over = []
for operation in operations:
    low, high = counts(operation)
    runs = [(ir(operation, run, "large") - ir(operation, run, "small")) / (high - low) for run in range(1, repeat + 1)]
    value = round(sum(runs) / len(runs))
    measured[operation] = value
    budget = document["operations"].get(operation)
    ratio = value / budget if budget else float("inf")
    line = f"{operation:<14} {value:>12,} {budget or 0:>12,} {ratio:>7.3f}"
    if repeat > 1:
        spread = (max(runs) - min(runs)) / min(runs)
        line += f"   runs {', '.join(f'{r:,.0f}' for r in runs)}; spread {spread:.3%}"
        line += "; totals " + ", ".join(f"{ir(operation, run, 'small'):,}/{ir(operation, run, 'large'):,}" for run in range(1, repeat + 1))
    if update == "true":
        pass
    elif ratio > tolerance:
        line += f"   OVER BUDGET (more than {tolerance - 1:.0%} over)"
        over.append(operation)
    elif ratio < 1 / tolerance:
        line += "   well under budget: lower it with --update"
    print(line)

if update == "true":
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    document["operations"].update(measured)
    document["counted"] = {
        "date": datetime.date.today().isoformat(),
        "commit": commit,
        "configuration": "debug",
        "swift": subprocess.run([os.environ.get("SWIFT", "swift"), "--version"], capture_output=True, text=True).stdout.split("\n")[0].strip(),
        "valgrind": subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout.strip(),
    }
    with open(path, "w") as file:
        json.dump(document, file, indent=2)
        file.write("\n")
    print(f"updated {path}")
    sys.exit(0)
if over:
    print(f"over budget: {', '.join(over)}. If the extra work is wanted, raise the budget with --update and say why in "
          "docs/decisions/performance.md (Instruction budgets).")
    sys.exit(1)
EOF
