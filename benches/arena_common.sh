# Sourced by the scripts that measure the arena (`instructions.sh` and
# `memory.sh` under valgrind, `alternate.sh` by the clock): what they
# share in reading their options and finding the binary to measure.

# Prints the count given to option $1 ($2), or fails with a message
# naming the option and what it counts ($3) when $2 is not a positive
# whole number.
count_option() { # option value what
    [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] \
        || { echo "error: $1 needs a count of $3, got '${2:-}'" >&2; exit 2; }
    echo "$2"
}

# Prints the arena binary to run: ARENA, or this checkout's release
# build (built first, into CARGO_TARGET_DIR when set). Call it before
# changing directory, so a relative ARENA is the caller's. Fails when the
# build does: called as `arena=$(find_arena)`, where `set -e` does not
# reach, it must say so itself, or an older binary would be measured.
find_arena() {
    if [[ -n "${ARENA:-}" ]]; then
        [[ -x "$ARENA" ]] || { echo "error: ARENA=$ARENA is not an executable" >&2; exit 2; }
        realpath -m "$ARENA"
    else
        local root target
        root=$(realpath -m "$(dirname "${BASH_SOURCE[0]}")/..")
        target=$(realpath -m "${CARGO_TARGET_DIR:-$root/target}")
        if ! (cd "$root" && cargo build --release --example arena >&2); then
            echo "error: building the arena failed; nothing measured" >&2
            return 2
        fi
        echo "$target/release/examples/arena"
    fi
}

# Checks that valgrind is there, changes to the checkout's root, and sets
# `arena` to the binary to measure (see `find_arena`) and `work` to a
# scratch directory removed on exit.
prepare_arena() {
    command -v valgrind >/dev/null || { echo "error: valgrind is not installed" >&2; exit 2; }
    arena=$(find_arena)
    cd "$(dirname "${BASH_SOURCE[0]}")/.."
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
}
