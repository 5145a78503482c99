#!/usr/bin/env bash
# Exact heap bytes per fighter in the arena, and which code holds them.
#
# The arena prints resident memory per fighter, which says how much but
# not what for. This runs it under valgrind's massif and reads the
# snapshot at the heap's peak: every live allocation, by the frames that
# made it (component columns, effect slots, timers, ...), divided by the
# fighters. Byte counts do not depend on the machine or its load, so two
# builds compare exactly. What the whole program holds once (the catalog,
# the context's queues) is counted too, and weighs less per fighter the
# more there are.
#
# Usage: benches/memory.sh [--sites N] [COMBATANTS [WARMUP [SECONDS]]]
#   defaults: 100 000 fighters, 10 s of warm-up, 2 s measured; the 12 sites
#   holding most. About ten seconds at the defaults.
#   ARENA names an arena binary to measure instead of building this
#   checkout's (as in benches/instructions.sh).
# Needs valgrind.
set -euo pipefail
# shellcheck source=benches/arena_common.sh
source "$(dirname "$0")/arena_common.sh"

sites=12
while [[ $# -gt 0 ]]; do
    case "$1" in
        --sites)
            sites=$(count_option --sites "${2:-}" sites)
            shift 2
            ;;
        *) break ;;
    esac
done
combatants=${1:-100000}
warmup=${2:-10}
seconds=${3:-2}

prepare_arena

# Deep enough to reach the code that asked for each allocation through
# the standard library's and hecs' layers; fine enough that a site of a
# tenth of a byte per fighter is still told apart.
valgrind --tool=massif --depth=40 --threshold=0.1 --massif-out-file="$work/massif" \
    "$arena" --combatants "$combatants" --warmup "$warmup" --seconds "$seconds" \
    >"$work/log" 2>&1 \
    || { cat "$work/log" >&2; exit 1; }

# The peak snapshot's tree, one allocation site per leaf, as
# "bytes<TAB>site" (and its total, alone, in another file): the site is
# the three frames nearest the allocation that are the program's own (not
# the standard library's, not closures or iterator plumbing), module
# paths left out. Leaves with the same site are summed.
awk '
    /^heap_tree=peak/ { inside = 1; next }
    inside && /^#/ { exit }
    inside {
        match($0, /^ */); depth = RLENGTH
        line = substr($0, depth + 1)
        children = line; sub(/^n/, "", children); sub(/:.*/, "", children)
        bytes = line; sub(/^n[0-9]+: /, "", bytes); sub(/ .*/, "", bytes)
        frame = line
        sub(/^n[0-9]+: [0-9]+ /, "", frame)
        sub(/^0x[0-9A-Fa-f]+: /, "", frame)
        frames[depth] = frame
        if (depth == 0) { total = bytes; next }
        if (children + 0 > 0) next
        site = ""; taken = 0
        for (d = 1; d <= depth && taken < 3; d++) {
            f = frames[d]
            if (f ~ /\(library\// || f ~ /^UnknownInlinedFun/ || f ~ /^\{closure/ \
                || f ~ /^(fold|for_each|extend_trusted|spec_extend|from_iter|collect|call_once)</) continue
            gsub(/[A-Za-z_][A-Za-z0-9_]*::/, "", f)
            site = site (taken ? " <- " : "") f
            taken++
        }
        if (site == "") site = frame
        held[site] += bytes
    }
    END {
        print total >total_file
        for (s in held) print held[s] "\t" s
    }
' total_file="$work/total" "$work/massif" >"$work/sites"

total=$(cat "$work/total")
[[ -n "$total" ]] || { echo "error: massif recorded no peak snapshot" >&2; exit 1; }
echo "arena, $combatants fighters, $warmup s of warm-up and $seconds s: at the heap's peak"
awk -v t="$total" -v n="$combatants" 'BEGIN { printf "  heap bytes per fighter  %.1f\n", t / n }'
echo "  by the code that allocated them"
# The last stage reads all its input: a `head` there would stop `sort`
# with SIGPIPE, which pipefail turns into this script's failure.
sort -t$'\t' -k1,1 -g -r "$work/sites" \
    | awk -F'\t' -v n="$combatants" -v s="$sites" \
        '++shown <= s { printf "    %8.1f  %s\n", $1 / n, substr($2, 1, 150) }'
