#!/usr/bin/env bash
# Exact instructions (and, with --cache, lines read and written from beyond
# a 2 MiB last level) per resolved attack in the arena's steady state.
#
# Wall time on a shared machine moves by a third from one hour to the next;
# instruction counts do not. The arena runs twice under callgrind with the
# same seed and warm-up, measuring S1 and then S2 simulated seconds; the
# difference of the two totals over the difference of their attacks is
# the cost of the attacks between, with start-up, warm-up and teardown
# cancelled out.
#
# Usage: benches/instructions.sh [--cache] [--functions N] [--callers PATTERN]
#                                [COMBATANTS [WARMUP [S1 [S2]]]]
#   defaults: 1000 fighters, 20 s of warm-up, 20 and 80 measured seconds.
#   --functions N also prints the N functions that cost the most per
#   attack (their own instructions, with what was inlined into them;
#   with --cache, also the N that miss the last level most), differenced
#   the same way: the profile of an attack by function, from one command.
#   --callers PATTERN also prints how many times an attack calls each
#   function whose name matches PATTERN (an awk regular expression, e.g.
#   'query_one_mut|Fetch>::prepare'), from each caller, differenced the
#   same way: how many component lookups an attack makes, and where.
#   Extra arena flags go in ARENA_FLAGS (e.g. ARENA_FLAGS="--prefetch never").
#   ARENA names an arena binary to measure instead of building this
#   checkout's (another commit's build, to compare two in one sitting:
#   ARENA=/path/to/target/release/examples/arena).
# Needs valgrind. Takes about a minute at 1 000 fighters; at 100 000 use
# smaller spans (e.g. `--cache 100000 20 1 3`).
set -euo pipefail
# shellcheck source=benches/arena_common.sh
source "$(dirname "$0")/arena_common.sh"

cache=()
functions=0
callers=
while [[ $# -gt 0 ]]; do
    case "$1" in
        --cache)
            cache=(--cache-sim=yes --D1=49152,12,64 --LL=2097152,16,64)
            shift
            ;;
        --functions)
            functions=$(count_option --functions "${2:-}" functions)
            shift 2
            ;;
        --callers)
            [[ -n "${2:-}" ]] || { echo "error: --callers needs a pattern of function names" >&2; exit 2; }
            callers=$2
            shift 2
            ;;
        *) break ;;
    esac
done
combatants=${1:-1000}
warmup=${2:-20}
s1=${3:-20}
s2=${4:-80}

prepare_arena

run() { # seconds -> "attacks Ir DLmr DLmw"
    local out="$work/cg.$1"
    # shellcheck disable=SC2086
    valgrind --tool=callgrind "${cache[@]}" --callgrind-out-file="$out" \
        "$arena" --combatants "$combatants" --warmup "$warmup" --seconds "$1" \
        ${ARENA_FLAGS:-} >"$work/log.$1" 2>&1 \
        || { cat "$work/log.$1" >&2; exit 1; }
    local attacks
    attacks=$(awk '/resolved attacks/ {print $3}' "$work/log.$1")
    # The profile's totals, picked out by the names on its `events:` line.
    awk -v a="$attacks" '
        /^events:/ { for (i = 2; i <= NF; i++) col[$i] = i }
        /^summary:/ { print a, $col["Ir"], ("DLmr" in col ? $col["DLmr"] : 0), ("DLmw" in col ? $col["DLmw"] : 0) }
    ' "$out"
}

read -r a1 i1 r1 w1 < <(run "$s1")
read -r a2 i2 r2 w2 < <(run "$s2")
attacks=$((a2 - a1))
if (( attacks <= 0 )); then
    echo "error: no attacks between ${s1} s and ${s2} s" >&2
    exit 1
fi
echo "arena, $combatants fighters, $warmup s of warm-up: $attacks attacks between ${s1} s and ${s2} s"
awk -v i="$((i2 - i1))" -v n="$attacks" 'BEGIN { printf "  instructions per attack  %.0f\n", i / n }'
if (( ${#cache[@]} )); then
    awk -v r="$((r2 - r1))" -v w="$((w2 - w1))" -v n="$attacks" \
        'BEGIN { printf "  last-level lines per attack  %.1f read, %.1f written\n", r / n, w / n }'
fi

# One event's cost by function in a profile, as "cost<TAB>function": the
# function's own cost, summed over the files callgrind attributes it to
# (code inlined into it from elsewhere comes under those files' names).
by_function() { # event profile
    callgrind_annotate --auto=no --threshold=100 --show-percs=no \
        --show="$1" --sort="$1" "$2" | awk '
        /^-+$/ { rule++; next }   # the table of functions follows the sixth rule
        rule >= 6 && /^ *[0-9,]+  / {
            cost = $1; gsub(",", "", cost)
            name = $0
            sub(/^ *[0-9,]+  /, "", name)
            sub(/ \[[^]]*\]$/, "", name)   # the object file
            sub(/^[^:]*:/, "", name)       # the source file
            total[name] += cost
        }
        END { for (n in total) printf "%d\t%s\n", total[n], n }'
}

# The N functions whose cost of `event` grew most from the S1 run to the
# S2 run, per attack between (those that round to nothing left out). The
# last stage reads all its input: a `head` there would stop `sort` with
# SIGPIPE, which pipefail turns into this script's failure.
top_functions() { # event heading
    echo "  $2"
    awk -F'\t' -v n="$attacks" '
        FNR == NR { before[$2] = $1; next }
        { printf "%.1f\t%s\n", ($1 - before[$2]) / n, $2 }
    ' <(by_function "$1" "$work/cg.$s1") <(by_function "$1" "$work/cg.$s2") \
        | sort -t$'\t' -k1,1 -g -r \
        | awk -F'\t' -v n="$functions" '$1 >= 0.05 && ++shown <= n { printf "    %8s  %s\n", $1, substr($2, 1, 110) }'
}

if (( functions > 0 )); then
    top_functions Ir "instructions per attack, by function (own, with what was inlined)"
    if (( ${#cache[@]} )); then
        top_functions DLmr "last-level lines read per attack, by function"
        top_functions DLmw "last-level lines written per attack, by function"
    fi
fi

# The calls in a profile into the functions whose names match `pattern`,
# as "calls<TAB>caller<TAB>callee". Callgrind spells a function's name
# out once, as "(id) name", and names it by "(id)" alone after that. The
# pattern goes through the environment, where awk leaves its backslashes
# alone.
calls_into() { # pattern profile
    PATTERN="$1" awk '
        function named(text,   id) {
            if (!match(text, /^\([0-9]+\)/)) return text
            id = substr(text, 2, RLENGTH - 2)
            if (length(text) > RLENGTH) names[id] = substr(text, RLENGTH + 2)
            return (id in names) ? names[id] : text
        }
        /^fn=/ { caller = named(substr($0, 4)); next }
        /^cfn=/ { callee = named(substr($0, 5)); next }
        /^calls=/ && callee ~ ENVIRON["PATTERN"] {
            split(substr($0, 7), count, " ")
            calls[caller "\t" callee] += count[1]
        }
        END { for (pair in calls) printf "%.0f\t%s\n", calls[pair], pair }
    ' "$2"
}

# Calls per attack between the S1 and S2 runs into the functions matching
# `pattern`: from each caller, the most first, then into each function
# in all. What rounds to nothing is left out.
caller_counts() { # pattern
    local per_attack="$work/calls"
    awk -F'\t' -v n="$attacks" '
        FNR == NR { before[$2 "\t" $3] = $1; next }
        { calls = ($1 - before[$2 "\t" $3]) / n }
        calls >= 0.005 { printf "%.2f\t%s\t%s\n", calls, $2, $3 }
    ' <(calls_into "$1" "$work/cg.$s1") <(calls_into "$1" "$work/cg.$s2") \
        | sort -t$'\t' -k1,1 -g -r >"$per_attack"
    echo "  calls per attack into functions matching '$1', by caller"
    awk -F'\t' '{ printf "    %8s  %s  ->  %s\n", $1, substr($2, 1, 90), substr($3, 1, 90) }' "$per_attack"
    echo "  calls per attack into each, in all"
    awk -F'\t' '{ total[$3] += $1 } END { for (f in total) printf "%.2f\t%s\n", total[f], f }' "$per_attack" \
        | sort -t$'\t' -k1,1 -g -r \
        | awk -F'\t' '{ printf "    %8s  %s\n", $1, substr($2, 1, 110) }'
}

if [[ -n "$callers" ]]; then
    caller_counts "$callers"
fi
