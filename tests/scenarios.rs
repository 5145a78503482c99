//! Every scenario in `tests/scenarios/` runs to a text-trace snapshot. Each
//! snapshot was reviewed by hand against the times the contract predicts
//! (the header comment of each scenario says what they are).

use std::sync::Arc;

use gaskit::scenario::{Scenario, ScenarioRun};
use gaskit::Catalog;

fn run(path: &std::path::Path, catalog: &Arc<Catalog>) -> ScenarioRun {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let scenario = Scenario::parse(&text, &name, catalog).unwrap_or_else(|e| panic!("{e}"));
    let mut run = ScenarioRun::new(catalog.clone(), scenario).unwrap();
    run.run(None);
    run
}

#[test]
fn scenario_traces() {
    let catalog = Arc::new(gaskit::combat::default_catalog());
    insta::glob!("scenarios/*.ron", |path| {
        insta::assert_snapshot!(run(path, &catalog).text_trace());
    });
}

/// A context whose work budget stops each call after one timer gives the
/// same trace, in frames of five seconds: the runner carries a stopped
/// call on before it applies an input, which it applied early, at the
/// clock the call stopped at.
#[test]
fn a_tight_work_budget_changes_no_trace() {
    let catalog = Arc::new(gaskit::combat::default_catalog());
    for name in [
        "fourth_attacker_rejected.ron",
        "walk_up_then_engage.ron",
        "free_actions_mid_fight.ron",
    ] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/scenarios")
            .join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let scenario = Scenario::parse(&text, name, &catalog).unwrap();
        let mut tight = ScenarioRun::new(catalog.clone(), scenario).unwrap();
        tight.gas.set_work_limits(gaskit::WorkLimits {
            per_instant: 1 << 20,
            per_call: 1,
        });
        // Frames of five seconds: many timers come due before each input.
        tight.run(Some(gaskit::SimDuration::from_secs(5)));
        assert_eq!(
            tight.text_trace(),
            run(&path, &catalog).text_trace(),
            "{name}"
        );
    }
}

#[test]
fn json_lines_follow_the_documented_schema() {
    let catalog = Arc::new(gaskit::combat::default_catalog());
    let mut kinds = std::collections::BTreeSet::new();
    insta::glob!("scenarios/*.ron", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let mut scenario = Scenario::parse(&text, "s", &catalog).unwrap();
        scenario.trace_filter = gaskit::TraceFilter::ALL;
        let mut run = ScenarioRun::new(catalog.clone(), scenario).unwrap();
        run.run(None);
        let jsonl = run.jsonl_trace();
        assert_eq!(jsonl.lines().count(), run.gas.trace().events().len());
        for line in jsonl.lines() {
            let value: serde_json::Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
            let object = value.as_object().expect("one object per line");
            assert!(object["t"].is_number(), "{line}");
            assert!(object["kind"].is_string(), "{line}");
            assert!(object["source"].is_string(), "{line}");
            assert!(
                object["target"].is_string() || object["target"].is_null(),
                "{line}"
            );
            assert!(
                !object["source"].as_str().unwrap().starts_with('#'),
                "names, never ids: {line}"
            );
            kinds.insert(object["kind"].as_str().unwrap().to_owned());
        }
    });
    for kind in [
        "attack",
        "chase",
        "cooldown_stamped",
        "died",
        "respawned",
        "weave_queued",
        "ability_failed",
    ] {
        assert!(kinds.contains(kind), "{kind} missing from {kinds:?}");
    }
}

#[test]
fn a_disabled_trace_records_nothing_and_a_filter_records_only_its_categories() {
    let catalog = Arc::new(gaskit::combat::default_catalog());
    let text = std::fs::read_to_string("tests/scenarios/melee_duel_to_death.ron").unwrap();
    let mut scenario = Scenario::parse(&text, "s", &catalog).unwrap();
    scenario.trace_filter = gaskit::TraceFilter::NONE;
    let mut quiet = ScenarioRun::new(catalog.clone(), scenario.clone()).unwrap();
    quiet.run(None);
    assert!(quiet.gas.trace().events().is_empty());
    scenario.trace_filter = gaskit::combat::MOVEMENT.into();
    let mut moves = ScenarioRun::new(catalog.clone(), scenario).unwrap();
    moves.run(None);
    assert!(moves
        .gas
        .trace()
        .events()
        .iter()
        .all(|e| e.kind.category() == gaskit::combat::MOVEMENT));
}

/// An unknown combatant kind is suggested from the catalog's own kinds, so
/// a game that adds a `Wolf` hears of it (not only of the shipped kinds).
#[test]
fn an_unknown_kind_is_suggested_from_the_catalogs_kinds() {
    let mut builder = gaskit::combat::default_catalog_builder();
    builder.add_source(
        "wolves.ron",
        r#"(kinds: [(name: "Wolf", max_attackers: 2)])"#,
    );
    let catalog = builder.build().unwrap();
    let text = r#"(duration: 5, combatants: [(name: "a", kind: "Wolff")])"#;
    let rendered = Scenario::parse(text, "pack.ron", &catalog)
        .expect_err("an unknown kind")
        .to_string();
    assert!(
        rendered.contains("unknown combatant kind `Wolff`"),
        "{rendered}"
    );
    assert!(rendered.contains("did you mean `Wolf`?"), "{rendered}");
}

/// A finding in a timeline input points at that input, not at the first
/// text like it: `at` also spells part of `combatants` and a comment, and
/// `Stun` appears in an earlier input that is fine.
#[test]
fn a_bad_input_is_located_at_its_own_entry() {
    let catalog = gaskit::combat::default_catalog();
    let text = "\
// Step and stun: at: what a comment says about Stun(\"a\", -1)
(
    duration: 5,
    combatants: [(name: \"a\"), (name: \"b\"), (name: \"a\")],
    timeline: [
        (at: 1, do: Stun(\"a\", 2)),
        (at: -2, do: Disengage(\"a\")),
        (at: 3, do: Stun(\"a\", -1)),
        (at: 4, do: Engage(\"a\", \"zed\")),
    ],
)";
    let rendered = Scenario::parse(text, "bad.ron", &catalog)
        .expect_err("four errors")
        .to_string();
    let findings: Vec<&str> = rendered.split("error: ").skip(1).collect();
    assert_eq!(findings.len(), 4, "{rendered}");
    for (expected, location) in [
        ("combatant `a` is listed twice", "bad.ron:4:52"),
        (
            "input time must be a number of seconds from 0 to",
            "bad.ron:7:10",
        ),
        ("stun seconds must be a duration from 0 to", "bad.ron:8:21"),
        ("unknown combatant `zed`", "bad.ron:9:34"),
    ] {
        assert!(
            findings
                .iter()
                .any(|f| f.starts_with(expected) && f.contains(location)),
            "`{expected}` at {location}, in\n{rendered}"
        );
    }
}

#[test]
fn bad_scenarios_are_located_errors() {
    let catalog = gaskit::combat::default_catalog();
    let cases: &[(&str, &str)] = &[
        ("(duration: 5, combatants: [(name: \"a\")], timeline: [(at: 1, do: Engage(\"a\", \"zed\"))])", "unknown combatant `zed`"),
        ("(duration: 5, combatants: [(name: \"a\", equipment: [(\"Rune Scimitr\", 1)])])", "did you mean `Rune Scimitar`?"),
        ("(duration: 5, combatants: [(name: \"a\"), (name: \"a\")])", "listed twice"),
        ("(duration: 5, combatants: [(name: \"a\", equipment: [(\"Air Rune\", 10)])])", "combatant `a`: `Air Rune` cannot be worn (it has no slot); carry it in `inventory`"),
        ("(duration: -5, combatants: [])", "duration must be"),
        ("(duration: 5, step: 0, combatants: [])", "step must be positive"),
        ("(duration: 5, trace: [\"Combta\"], combatants: [])", "did you mean `Combat`?"),
        ("(duration: 5, combatants: [(name: \"a\", style: \"Status.Dead\")])", "is not a combat style"),
        ("(duration: 5, combatants: [], timeline: [(at: 1, do: Dance(\"a\"))])", "Dance"),
        ("(duration: 5, combatants: [(name: \"a\", spellbook: \"Status.Dead\")])", "`Status.Dead` is not a spellbook of the catalog's"),
        ("(duration: 5, combatants: [(name: \"a\", speed: -100)])", "combatant `a`: speed must be a number ≥ 0, found -100"),
        ("(duration: 5, combatants: [(name: \"a\", position: (inf, 0))])", "combatant `a`: position must be finite"),
        ("(duration: 5, combatants: [(name: \"a\")], timeline: [(at: 1, do: SetStyle(\"a\", \"Status.Dead\"))])", "`Status.Dead` is not a combat style"),
        ("(duration: 5, combatants: [(name: \"a\")], timeline: [(at: 1, do: Move(\"a\", (NaN, 0)))])", "a move's destination must be finite"),
        ("(duration: 5, combatants: [(name: \"a\")], timeline: [(at: 6, do: Disengage(\"a\"))])", "input at 6 s comes after the scenario ends (5 s)"),
        // What a spawn or an input would otherwise drop, clamp or bend,
        // unseen.
        ("(duration: 5, combatants: [(level: 3)])", "combatant #1 has no `name`"),
        ("(duration: 5, combatants: [(name: \"a\", level: 0)])", "combatant `a`: level 0 is not a skill level (1 to 99)"),
        ("(duration: 5, combatants: [(name: \"a\", levels: {\"Skill.Combat.Melee\": 150})])", "combatant `a`: level 150 is not a skill level"),
        ("(duration: 5, combatants: [(name: \"a\", equipment: [(\"Bronze Scimitar\", 0)])])", "combatant `a`: `Bronze Scimitar` is worn 0 times"),
        ("(duration: 5, combatants: [(name: \"a\", equipment: [(\"Bronze Scimitar\", 2)])])", "combatant `a`: `Bronze Scimitar` is worn 2 times; only ammunition stacks in a slot"),
        ("(duration: 5, combatants: [(name: \"a\", level: 50, equipment: [(\"Bronze Scimitar\", 1), (\"Rune Scimitar\", 1)])])", "combatant `a`: `Rune Scimitar` goes in the slot `Bronze Scimitar` is worn in"),
        ("(duration: 5, combatants: [(name: \"a\", level: 1, equipment: [(\"Rune Scimitar\", 1)])])", "combatant `a`: `Rune Scimitar` needs Skill.Combat.Melee level"),
        ("(duration: 5, combatants: [(name: \"a\")], timeline: [(at: 1, do: Stun(\"a\", 1e14))])", "stun seconds must be a duration from 0 to"),
        ("(duration: 5, combatants: [(name: \"a\")], timeline: [(at: 1, do: OpenModal(\"a\", \"Status.Stunned\"))])", "`Status.Stunned` is not a modal (one under `Action.Modal`)"),
    ];
    for (text, expected) in cases {
        let errors = Scenario::parse(text, "bad.ron", &catalog).expect_err(text);
        let rendered = errors.to_string();
        assert!(
            rendered.contains(expected),
            "expected `{expected}` in\n{rendered}"
        );
        assert!(rendered.contains("bad.ron:1:"), "{rendered}");
    }
}

/// A scenario built or edited in code, or compiled against other content,
/// is refused when it names a fighter it does not list or a definition
/// the catalog lacks, with nothing run; it panicked at that input.
#[test]
fn a_scenario_that_does_not_fit_is_refused_before_it_runs() {
    use gaskit::scenario::{Action, ScenarioError};
    let catalog = Arc::new(gaskit::combat::default_catalog());
    let text = r#"(duration: 5.0, combatants: [(name: "alice"), (name: "bob", position: (100, 0))],
                   timeline: [(at: 0.0, do: Engage("alice", "bob"))])"#;
    let scenario = Scenario::parse(text, "pair.ron", &catalog).unwrap();
    assert!(ScenarioRun::new(catalog.clone(), scenario.clone()).is_ok());

    let mut third = scenario.clone();
    let at = gaskit::SimTime::from_secs(1);
    third.timeline.push((at, Action::Engage(0, 2)));
    let error = ScenarioRun::new(catalog.clone(), third).err().unwrap();
    assert!(matches!(error, ScenarioError::Unfit(_)));
    assert_eq!(
        error.to_string(),
        "the scenario does not fit the catalog: the input at 1.000 s: fighter #2, of 2 listed"
    );

    // Edited past what the parser allows: a move to no place, a book that
    // is no book.
    let mut lost = scenario.clone();
    let nowhere = gaskit::combat::Vec2::new(f64::NAN, 0.0);
    lost.timeline.push((at, Action::Move(1, nowhere)));
    let error = ScenarioRun::new(catalog.clone(), lost).err().unwrap();
    assert_eq!(
        error.to_string(),
        "the scenario does not fit the catalog: the input at 1.000 s: a move to (NaN, 0), not a place"
    );
    let mut nameless = scenario.clone();
    nameless.combatants[1].name = String::new();
    let error = ScenarioRun::new(catalog.clone(), nameless).err().unwrap();
    assert_eq!(
        error.to_string(),
        "the scenario does not fit the catalog: a fighter with no name"
    );
    let mut unskilled = scenario.clone();
    unskilled.combatants[0].level = Some(0);
    let error = ScenarioRun::new(catalog.clone(), unskilled).err().unwrap();
    assert_eq!(
        error.to_string(),
        "the scenario does not fit the catalog: fighter `alice`: level 0 is not a skill level (1 to 99)"
    );
    let mut bookless = scenario.clone();
    bookless.combatants[0].spellbook = catalog.tags().get("Status.Stunned");
    let error = ScenarioRun::new(catalog.clone(), bookless).err().unwrap();
    assert!(
        error
            .to_string()
            .contains("fighter `alice`: spellbook tag #"),
        "{error}"
    );

    // Compiled where a trinket exists that the running catalog lacks.
    let mut builder = gaskit::combat::default_catalog_builder();
    builder.add_source("smithy.ron", r#"(items: [(name: "Glass Bead", value: 1)])"#);
    let smithy = builder.build().unwrap();
    let armed = text.replace(
        r#"(name: "alice")"#,
        r#"(name: "alice", inventory: [("Glass Bead", 1)])"#,
    );
    let scenario = Scenario::parse(&armed, "armed.ron", &smithy).unwrap();
    let error = ScenarioRun::new(catalog, scenario).err().unwrap();
    assert!(
        error
            .to_string()
            .starts_with("the scenario does not fit the catalog: fighter `alice`: item #"),
        "{error}"
    );
}

/// A scenario of no length still runs its inputs at 0 (it ran none: the
/// loop ran while the clock was short of the end, which it never was).
#[test]
fn a_scenario_of_no_length_runs_its_inputs_at_zero() {
    let catalog = Arc::new(gaskit::combat::default_catalog());
    let text = r#"(duration: 0, combatants: [(name: "a")], timeline: [(at: 0, do: Stun("a", 5))])"#;
    let scenario = Scenario::parse(text, "instant.ron", &catalog).unwrap();
    let mut run = ScenarioRun::new(catalog.clone(), scenario).unwrap();
    run.run(None);
    let a = run.fighter("a").unwrap();
    let stunned = catalog.tags().get("Status.Stunned").unwrap();
    assert!(run.gas.has_tag(&run.world, a, stunned));
}
