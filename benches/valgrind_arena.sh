# Sourced by the scripts that measure the arena under valgrind
# (`instructions.sh`, `memory.sh`): what they share in reading their
# options and finding the binary to measure.

# Prints the count given to option $1 ($2), or fails with a message
# naming the option and what it counts ($3) when $2 is not a positive
# whole number.
count_option() { # option value what
    [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] \
        || { echo "error: $1 needs a count of $3, got '${2:-}'" >&2; exit 2; }
    echo "$2"
}

# Checks that valgrind is there, changes to the checkout's root, and sets
# `arena` to the binary to measure (ARENA, or this checkout's release
# build, built first) and `work` to a scratch directory removed on exit.
prepare_arena() {
    command -v valgrind >/dev/null || { echo "error: valgrind is not installed" >&2; exit 2; }
    # Resolved before the change of directory below, so a relative path
    # is the caller's.
    arena=${ARENA:+$(realpath -m "$ARENA")}
    cd "$(dirname "${BASH_SOURCE[0]}")/.."
    if [[ -n "$arena" ]]; then
        [[ -x "$arena" ]] || { echo "error: ARENA=$ARENA is not an executable" >&2; exit 2; }
    else
        cargo build --release --example arena >&2
        arena=target/release/examples/arena
    fi
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
}
