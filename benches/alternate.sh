#!/usr/bin/env bash
# Wall time per attack of arena builds or settings, taken alternately.
#
# The machines this runs on are shared: one run's wall time moves by a
# tenth from one minute to the next, so two builds (or two settings of
# one build) compare only when their runs interleave. Each round runs
# every variant once, starting one further along the list than the round
# before and, every other round, in reverse, so that no variant always
# runs right after the same one. At the end, each variant's nanoseconds
# per attack are listed sorted with their median, and each variant after
# the first is set against the first by the median of their per-round
# ratios: a slow minute slows both runs of a round, so the ratio holds
# where the absolute figures drift.
#
# Usage: benches/alternate.sh [--rounds N] [--combatants N] [--seconds S]
#                             [--warmup S] VARIANT...
#   A VARIANT is LABEL=SPEC, where SPEC is an arena binary, settings of
#   the environment for the default binary, or both, separated by
#   spaces (quote the variant):
#     old=/tmp/old/target/release/examples/arena
#     huge=GLIBC_TUNABLES=glibc.malloc.hugetlb=1
#     'old-huge=GLIBC_TUNABLES=glibc.malloc.hugetlb=1 /tmp/old/arena'
#   The default binary is ARENA, or this checkout's release build (built
#   first). Defaults: 6 rounds of 100 000 fighters, 100 simulated s
#   measured after 20 s of warm-up (about 3 s a run). Extra arena flags
#   go in ARENA_FLAGS (e.g. ARENA_FLAGS="--prefetch never").
set -euo pipefail
# shellcheck source=benches/arena_common.sh
source "$(dirname "$0")/arena_common.sh"

rounds=6
combatants=100000
seconds=100
warmup=20
# Prints $2 if it is a number of seconds (digits, maybe a fraction), or
# fails naming option $1.
seconds_option() { # option value
    [[ "${2:-}" =~ ^[0-9]+(\.[0-9]+)?$ ]] \
        || { echo "error: $1 needs a number of seconds, got '${2:-}'" >&2; exit 2; }
    echo "$2"
}
while [[ $# -gt 0 ]]; do
    case "$1" in
        --rounds) rounds=$(count_option --rounds "${2:-}" rounds); shift 2 ;;
        --combatants) combatants=$(count_option --combatants "${2:-}" fighters); shift 2 ;;
        --seconds) seconds=$(seconds_option --seconds "${2:-}"); shift 2 ;;
        --warmup) warmup=$(seconds_option --warmup "${2:-}"); shift 2 ;;
        --*) echo "error: unknown option '$1'" >&2; exit 2 ;;
        *) break ;;
    esac
done
if [[ $# -eq 0 ]]; then
    echo "error: no variants to compare (LABEL=SPEC, see the header of $0)" >&2
    exit 2
fi

# Each variant as its label and the words `env` runs it with: its
# settings, then its binary (the default one when it names none).
labels=()
commands=()
default_arena=
for variant in "$@"; do
    label=${variant%%=*}
    if [[ "$variant" != *=* || -z "$label" || "$label" == *[[:space:]]* ]]; then
        echo "error: variant '$variant' is not LABEL=SPEC" >&2
        exit 2
    fi
    read -ra words <<<"${variant#*=}"
    if [[ ${#words[@]} -eq 0 || "${words[-1]}" == *=* ]]; then
        default_arena=${default_arena:-$(find_arena)}
        words+=("$default_arena")
    elif [[ ! -x "${words[-1]}" ]]; then
        echo "error: variant '$label': ${words[-1]} is not an executable" >&2
        exit 2
    fi
    labels+=("$label")
    commands+=("${words[*]}")
done

# One run of variant $1: its nanoseconds per attack.
run() { # index
    local words log ns
    read -ra words <<<"${commands[$1]}"
    # shellcheck disable=SC2086
    log=$(env "${words[@]}" --combatants "$combatants" --seconds "$seconds" \
        --warmup "$warmup" ${ARENA_FLAGS:-} 2>&1) \
        || { echo "error: variant '${labels[$1]}' failed:" >&2; echo "$log" >&2; exit 1; }
    ns=$(awk '/per resolved attack/ { print $4 }' <<<"$log")
    [[ "$ns" =~ ^[0-9]+$ ]] \
        || { echo "error: variant '${labels[$1]}' printed no time per attack:" >&2; echo "$log" >&2; exit 1; }
    echo "$ns"
}

count=${#labels[@]}
# results[round * count + variant]: that run's nanoseconds per attack.
results=()
for ((round = 0; round < rounds; round++)); do
    for ((step = 0; step < count; step++)); do
        at=$(((step + round) % count))
        if ((round % 2 == 1)); then
            at=$((count - 1 - at))
        fi
        results[round * count + at]=$(run "$at")
    done
done

echo "arena, $combatants fighters, $seconds s after $warmup s of warm-up, $rounds rounds: ns per attack"
width=0
for label in "${labels[@]}"; do
    ((${#label} > width)) && width=${#label}
done
for ((v = 0; v < count; v++)); do
    times=()
    ratios=()
    for ((round = 0; round < rounds; round++)); do
        times+=("${results[round * count + v]}")
        ratios+=("${results[round * count + v]} ${results[round * count]}")
    done
    printf '  %-*s  ' "$width" "${labels[v]}"
    printf '%s\n' "${times[@]}" | sort -n | awk -v first="$v" '
        { t[NR] = $1; line = line sprintf("%6d", $1) }
        END {
            m = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
            printf "%s   median %g", line, m
            if (first == 0) print ""
        }'
    if ((v > 0)); then
        printf '%s\n' "${ratios[@]}" | awk '{ print $1 / $2 }' | sort -g | awk -v base="${labels[0]}" '
            { r[NR] = $1 }
            END {
                m = (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
                printf "   %.3f of %s (rounds %.3f-%.3f)\n", m, base, r[1], r[NR]
            }'
    fi
done
