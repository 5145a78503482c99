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
