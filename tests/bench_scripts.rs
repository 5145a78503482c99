//! The measuring scripts in `benches/`: what they make of the arena's
//! output, checked against a stand-in arena that prints a time per attack
//! its environment chooses and logs each run.
#![cfg(unix)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A scratch directory holding a stand-in arena (`arena`) that prints
/// `FAKE_NS` ns per attack and appends `FAKE_LABEL` to `log`.
struct StandIn {
    dir: PathBuf,
}

impl StandIn {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("gaskit-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let arena = dir.join("arena");
        let log = dir.join("log");
        fs::write(
            &arena,
            format!(
                "#!/bin/sh\necho \"$FAKE_LABEL\" >> '{}'\n\
                 [ -n \"$FAKE_NS\" ] && echo \"  per resolved attack     $FAKE_NS ns all-in\"\n\
                 exit 0\n",
                log.display()
            ),
        )
        .unwrap();
        fs::set_permissions(&arena, fs::Permissions::from_mode(0o755)).unwrap();
        Self { dir }
    }

    fn arena(&self) -> PathBuf {
        self.dir.join("arena")
    }

    /// The labels of the runs, in the order they ran.
    fn runs(&self) -> Vec<String> {
        fs::read_to_string(self.dir.join("log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    fn alternate(&self, args: &[&str]) -> Output {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/alternate.sh");
        Command::new("bash")
            .arg(script)
            .args(args)
            .env("ARENA", self.arena())
            .output()
            .expect("bash runs")
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// Every variant runs once a round, the rounds start with different
/// variants, and each later variant is set against the first.
#[test]
fn alternate_runs_each_variant_once_a_round_and_compares_it_with_the_first() {
    let stand_in = StandIn::new("alternate");
    let explicit = format!("b=FAKE_LABEL=b FAKE_NS=50 {}", stand_in.arena().display());
    let out = stand_in.alternate(&[
        "--rounds",
        "4",
        "--seconds",
        "1",
        "a=FAKE_LABEL=a FAKE_NS=100",
        &explicit,
        "c=FAKE_LABEL=c FAKE_NS=120",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].contains("1 s after 20 s of warm-up, 4 rounds"),
        "{stdout}"
    );
    let row = |label: &str| {
        lines
            .iter()
            .find(|l| l.trim_start().starts_with(&format!("{label} ")))
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .unwrap_or_else(|| panic!("no row for {label}: {stdout}"))
    };
    assert_eq!(row("a"), ["a", "100", "100", "100", "100", "median", "100"]);
    assert_eq!(
        row("b")[..8],
        ["b", "50", "50", "50", "50", "median", "50", "0.500"]
    );
    assert_eq!(row("c")[7..9], ["1.200", "of"]);

    let runs = stand_in.runs();
    assert_eq!(runs.len(), 12, "{runs:?}");
    let rounds: Vec<&[String]> = runs.chunks(3).collect();
    for round in &rounds {
        let mut labels = round.to_vec();
        labels.sort();
        assert_eq!(labels, ["a", "b", "c"], "{runs:?}");
    }
    let firsts: std::collections::BTreeSet<&str> =
        rounds.iter().map(|round| round[0].as_str()).collect();
    assert!(firsts.len() > 1, "every round started alike: {runs:?}");
}

/// Bad input stops the script before any run, naming what is wrong; a
/// run that prints no time per attack fails it, naming the variant.
#[test]
fn alternate_refuses_bad_variants_and_runs_without_a_time() {
    let stand_in = StandIn::new("alternate-errors");
    let refused = |args: &[&str], says: &str| {
        let out = stand_in.alternate(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    };
    refused(&["plain"], "variant 'plain' is not LABEL=SPEC");
    refused(
        &["x=/no/such/arena"],
        "variant 'x': /no/such/arena is not an executable",
    );
    refused(&["--rounds", "0", "a=FAKE_NS=1"], "--rounds needs a count");
    refused(
        &["--seconds", "soon", "a=FAKE_NS=1"],
        "--seconds needs a number",
    );
    refused(&[], "no variants");
    assert!(stand_in.runs().is_empty(), "nothing ran");

    let out = stand_in.alternate(&["--rounds", "1", "silent=FAKE_LABEL=silent"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("variant 'silent' printed no time per attack"));
}

/// A stand-in `valgrind` for `instructions.sh`: it runs nothing, but
/// writes the callgrind profile of a run of `--seconds S` (100 attacks a
/// second, 1 000 instructions each) and prints the arena's attack count.
/// In the profile, function names are compressed as callgrind does
/// (spelled out once, then named by number), and the calls are: 500 from
/// `setup` into `query_one_mut` whatever the length (start-up, which the
/// differencing cancels), 2 an attack from `apply_effect_inner`, one every
/// other attack from `poll`, and 3 an attack into a function the pattern
/// below does not match.
const FAKE_VALGRIND: &str = r#"#!/bin/sh
out=; secs=; prev=
for arg in "$@"; do
    case "$arg" in --callgrind-out-file=*) out="${arg#*=}" ;; esac
    [ "$prev" = "--seconds" ] && secs=$arg
    prev=$arg
done
attacks=$((secs * 100))
cat > "$out" <<PROFILE
events: Ir
fn=(1) setup
cfn=(2) hecs::world::World::query_one_mut
calls=500 0
0 10
fn=(3) gaskit::gas::Gas::apply_effect_inner
cfn=(2)
calls=$((attacks * 2)) 0
0 10
cfn=(4) gaskit::combat::movement::position_exclusive
calls=$((attacks * 3)) 0
0 5
fn=(5) gaskit::combat::auto_attack::AutoAttack::poll
cfn=(2)
calls=$((attacks / 2)) 0
0 10
summary: $((attacks * 1000))
PROFILE
echo "  resolved attacks        $attacks (100 per wall second)"
"#;

/// `instructions.sh --callers`: calls an attack makes into the matching
/// functions, by caller, then in all, differenced between the two runs
/// (what start-up calls cancels) and read through callgrind's name
/// compression; a missing pattern is refused.
#[test]
fn instructions_counts_the_calls_an_attack_makes_by_caller() {
    let stand_in = StandIn::new("instructions-callers");
    let bin = stand_in.dir.join("bin");
    fs::create_dir_all(&bin).unwrap();
    let valgrind = bin.join("valgrind");
    fs::write(&valgrind, FAKE_VALGRIND).unwrap();
    fs::set_permissions(&valgrind, fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/instructions.sh");
    let run = |args: &[&str]| {
        Command::new("bash")
            .arg(&script)
            .args(args)
            .env("ARENA", stand_in.arena())
            .env("PATH", &path)
            .output()
            .expect("bash runs")
    };

    let out = run(&["--callers", "query_one_mut", "1000", "0", "1", "3"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = stdout.lines().map(str::trim).collect();
    let expected = [
        "arena, 1000 fighters, 0 s of warm-up: 200 attacks between 1 s and 3 s",
        "instructions per attack  1000",
        "calls per attack into functions matching 'query_one_mut', by caller",
        "2.00  gaskit::gas::Gas::apply_effect_inner  ->  hecs::world::World::query_one_mut",
        "0.50  gaskit::combat::auto_attack::AutoAttack::poll  ->  hecs::world::World::query_one_mut",
        "calls per attack into each, in all",
        "2.50  hecs::world::World::query_one_mut",
    ];
    assert_eq!(lines, expected, "{stdout}");

    let out = run(&["--callers"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("--callers needs a pattern of function names"));
}
