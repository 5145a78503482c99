//! Determinism: the same seed and the same timed inputs give a byte-identical
//! trace and final state, across runs, across frame schedules, and across a
//! snapshot, a serialization round trip and a restore into a fresh world.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use gaskit::combat::CombatComponents;
use gaskit::scenario::{Scenario, ScenarioRun};
use gaskit::snapshot::{self, Snapshot};
use gaskit::{Catalog, SimDuration, SimTime};
use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn scenarios() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir("tests/scenarios")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    paths.sort();
    assert!(
        paths.len() >= 10,
        "the scenario suite is in tests/scenarios"
    );
    paths
}

fn start(path: &Path, catalog: &Arc<Catalog>) -> ScenarioRun {
    let text = std::fs::read_to_string(path).unwrap();
    let scenario = Scenario::parse(&text, &path.display().to_string(), catalog)
        .unwrap_or_else(|e| panic!("{e}"));
    ScenarioRun::new(catalog.clone(), scenario).unwrap()
}

/// Frame lengths, one per call.
type Schedule = Box<dyn FnMut() -> SimDuration>;

/// Steps the run to the scenario's end, each frame as long as `next` says.
fn run_with(run: &mut ScenarioRun, mut next: impl FnMut() -> SimDuration) {
    let end = SimTime::ZERO + run.scenario().duration;
    while run.gas.now() < end {
        let to = (run.gas.now() + next().max(SimDuration::from_micros(1))).min(end);
        run.advance_to(to);
    }
}

/// What must come out identical: the whole trace (text and JSON lines, so
/// every field counts) and the checksum of the final state.
fn outcome(run: &ScenarioRun) -> (String, String, u64) {
    (
        run.text_trace(),
        run.jsonl_trace(),
        snapshot::checksum::<CombatComponents>(&run.world, &run.gas),
    )
}

#[test]
fn every_scenario_is_identical_under_every_frame_schedule() {
    let catalog = Arc::new(gaskit::combat::default_catalog());
    for path in scenarios() {
        let mut reference = start(&path, &catalog);
        reference.run(None);
        let expected = outcome(&reference);
        assert!(!expected.0.is_empty(), "{} records a trace", path.display());

        let seconds = |s: f64| SimDuration::from_secs_f64(s).unwrap();
        let duration = reference.scenario().duration;
        let mut jitter = ChaCha8Rng::seed_from_u64(17);
        let schedules: Vec<(&str, Schedule)> = vec![
            ("the same schedule again", Box::new(move || seconds(0.05))),
            ("1/20 s", Box::new(move || seconds(1.0 / 20.0))),
            ("1/60 s", Box::new(move || seconds(1.0 / 60.0))),
            ("1/144 s", Box::new(move || seconds(1.0 / 144.0))),
            (
                "jittered 1 µs to 0.25 s",
                Box::new(move || {
                    SimDuration::from_micros(1 + u64::from(jitter.next_u32()) % 250_000)
                }),
            ),
            ("one single step", Box::new(move || duration)),
        ];
        for (name, next) in schedules {
            let mut other = start(&path, &catalog);
            run_with(&mut other, next);
            let got = outcome(&other);
            assert_eq!(
                got.0,
                expected.0,
                "{}: text trace at {name}",
                path.display()
            );
            assert_eq!(
                got.1,
                expected.1,
                "{}: JSON trace at {name}",
                path.display()
            );
            assert_eq!(
                got.2,
                expected.2,
                "{}: final state at {name}",
                path.display()
            );
        }
    }
}

#[test]
fn cutting_a_scenario_anywhere_saving_and_restoring_changes_nothing() {
    let catalog = Arc::new(gaskit::combat::default_catalog());
    let mut cuts = ChaCha8Rng::seed_from_u64(5);
    for path in scenarios() {
        let mut reference = start(&path, &catalog);
        reference.run(None);
        let expected = outcome(&reference);
        let duration = reference.scenario().duration.as_micros();

        for _ in 0..3 {
            let cut = SimTime::from_micros(u64::from(cuts.next_u32()) % duration);
            let mut first = start(&path, &catalog);
            first.advance_to(cut);
            let saved = first.save();
            // Through the serialized form, as a replay file would travel.
            let text = saved.state.to_ron().unwrap();
            let state = Snapshot::<CombatComponents>::from_ron(&text).unwrap();
            assert_eq!(state.checksum(), saved.state.checksum());
            assert_eq!(
                state.checksum(),
                snapshot::checksum::<CombatComponents>(&first.world, &first.gas)
            );

            // A fresh world and context, restored and continued.
            let mut second = start(&path, &catalog);
            second.gas.trace_mut().clear();
            let mut restored = saved.clone();
            restored.state = state;
            second.restore(&restored).unwrap();
            assert_eq!(
                snapshot::checksum::<CombatComponents>(&second.world, &second.gas),
                saved.state.checksum(),
                "{}: restored state at {cut:?}",
                path.display()
            );
            second.run(None);

            let mut events = first.gas.trace().events().to_vec();
            events.extend_from_slice(second.gas.trace().events());
            let stitched = gaskit::render_text(first.fighters.as_slice(), &catalog, &events);
            assert_eq!(
                stitched,
                expected.0,
                "{}: trace cut at {cut:?}",
                path.display()
            );
            assert_eq!(
                snapshot::checksum::<CombatComponents>(&second.world, &second.gas),
                expected.2,
                "{}: final state cut at {cut:?}",
                path.display()
            );
        }
    }
}

#[test]
fn rolling_back_within_one_context_rewinds_the_trace_too() {
    let catalog = Arc::new(gaskit::combat::default_catalog());
    let path = &scenarios()[0];
    let mut reference = start(path, &catalog);
    reference.run(None);
    let expected = outcome(&reference);

    let mut run = start(path, &catalog);
    run.advance_to(SimTime::from_secs_f64(2.0).unwrap());
    let saved = run.save();
    let events_at_save = run.gas.trace().events().len();
    run.advance_to(SimTime::from_secs_f64(6.0).unwrap());
    assert!(run.gas.trace().events().len() > events_at_save);
    run.restore(&saved).unwrap();
    assert_eq!(run.gas.trace().events().len(), events_at_save);
    run.run(None);
    assert_eq!(outcome(&run), expected);
}

#[test]
fn a_snapshot_from_another_catalog_or_a_damaged_file_is_refused() {
    let catalog = Arc::new(gaskit::combat::default_catalog());
    let path = &scenarios()[0];
    let mut run = start(path, &catalog);
    run.advance_to(SimTime::from_secs_f64(3.0).unwrap());
    let saved = Snapshot::<CombatComponents>::save(&run.world, &run.gas);
    let before = snapshot::checksum::<CombatComponents>(&run.world, &run.gas);

    // Another catalog: one extra tag renumbers ids.
    let mut builder = gaskit::combat::default_catalog_builder();
    builder.tags().add_source("extra.tags", "Aaa.Extra\n");
    let other = Arc::new(builder.build().unwrap());
    assert_ne!(other.fingerprint(), catalog.fingerprint());
    let mut foreign = start(path, &other);
    let foreign_before = snapshot::checksum::<CombatComponents>(&foreign.world, &foreign.gas);
    let error = saved
        .restore(&mut foreign.world, &mut foreign.gas)
        .unwrap_err();
    assert!(
        matches!(error, snapshot::SnapshotError::ForeignCatalog { .. }),
        "{error}"
    );
    assert_eq!(
        snapshot::checksum::<CombatComponents>(&foreign.world, &foreign.gas),
        foreign_before
    );

    // A flipped digit in the file: refused by the checksum.
    let text = saved.to_ron().unwrap();
    let at = text.find("now:").expect("the clock is saved") + 5;
    let mut damaged = text.clone().into_bytes();
    damaged[at] = if damaged[at] == b'1' { b'2' } else { b'1' };
    let damaged = String::from_utf8(damaged).unwrap();
    let error = Snapshot::<CombatComponents>::from_ron(&damaged).unwrap_err();
    assert!(error.to_string().contains("checksum"), "{error}");
    // Truncated: refused by the parser, with its reason.
    let error = Snapshot::<CombatComponents>::from_ron(&text[..text.len() / 2]).unwrap_err();
    assert!(error.to_string().starts_with("damaged snapshot"), "{error}");
    assert_eq!(
        snapshot::checksum::<CombatComponents>(&run.world, &run.gas),
        before
    );
}

#[test]
fn prefetching_changes_nothing_a_run_produces() {
    // Fighters in step fill each instant's bucket with dozens of timers, so
    // the timer loop prefetches before nearly every one it runs.
    use gaskit::arena::{Arena, ArenaConfig};
    use gaskit::Prefetch;
    let run = |prefetch: Prefetch| {
        let mut arena = Arena::new(ArenaConfig {
            combatants: 240,
            trace: true,
            ..ArenaConfig::default()
        })
        .unwrap();
        arena.gas.set_prefetch(prefetch);
        arena.run_for(SimDuration::from_secs(30), SimDuration::from_millis(50));
        let text = gaskit::render_text(
            &arena.world,
            arena.gas.catalog(),
            arena.gas.trace().events(),
        );
        let state = snapshot::checksum::<CombatComponents>(&arena.world, &arena.gas);
        (arena.attacks_resolved(), text, state)
    };
    let (attacks, text, state) = run(Prefetch::Never);
    assert!(attacks > 2_000, "the fight ran: {attacks} attacks");
    let prefetched = run(Prefetch::Always);
    assert_eq!(prefetched.0, attacks);
    assert!(prefetched.1 == text, "the same trace");
    assert_eq!(prefetched.2, state, "the same final state");
}

#[test]
fn a_restore_leaves_the_game_s_own_entities_alone_and_refuses_to_overwrite_them() {
    use gaskit::arena::{Arena, ArenaConfig};
    /// A component only the game knows.
    #[derive(Debug, PartialEq)]
    struct Tree(u32);

    let mut arena = Arena::new(ArenaConfig {
        combatants: 8,
        ..ArenaConfig::default()
    })
    .unwrap();
    let frame = SimDuration::from_millis(50);
    arena.run_for(SimDuration::from_secs(3), frame);
    let tree = arena.world.spawn((Tree(7),));
    let saved = Snapshot::<CombatComponents>::save(&arena.world, &arena.gas);
    assert_eq!(
        saved.checksum(),
        snapshot::checksum::<CombatComponents>(&arena.world, &arena.gas)
    );

    arena.run_for(SimDuration::from_secs(2), frame);
    saved.restore(&mut arena.world, &mut arena.gas).unwrap();
    assert_eq!(
        *arena.world.get::<&Tree>(tree).unwrap(),
        Tree(7),
        "the game's entity survived"
    );
    assert_eq!(
        snapshot::checksum::<CombatComponents>(&arena.world, &arena.gas),
        saved.checksum()
    );

    // A fighter despawned after the save, and its slot reused by a game
    // entity: restoring would have to destroy it, so the restore refuses.
    let fighter = arena.entities[3];
    arena.gas.despawn(&mut arena.world, fighter);
    let squatter = arena.world.spawn((Tree(9),));
    assert_eq!(squatter.id(), fighter.id(), "hecs reuses the slot");
    let before = snapshot::checksum::<CombatComponents>(&arena.world, &arena.gas);
    let error = saved.restore(&mut arena.world, &mut arena.gas).unwrap_err();
    assert_eq!(error, snapshot::SnapshotError::HandleInUse(fighter));
    assert_eq!(
        snapshot::checksum::<CombatComponents>(&arena.world, &arena.gas),
        before,
        "nothing changed"
    );
    assert!(arena.world.contains(squatter));
}

/// A run whose trace records nothing reaches the same states as one
/// recording everything, checked at a thousand instants: with nothing
/// recorded, effects nobody watches (the attack cooldowns) begin and end by
/// their short path, which must leave exactly what the long path leaves.
#[test]
fn every_scenario_reaches_the_same_states_with_nothing_recorded() {
    let catalog = Arc::new(gaskit::combat::default_catalog());
    for path in scenarios() {
        let mut recorded = start(&path, &catalog);
        recorded
            .gas
            .trace_mut()
            .set_filter(gaskit::TraceFilter::ALL);
        let mut quiet = start(&path, &catalog);
        quiet.gas.trace_mut().set_filter(gaskit::TraceFilter::NONE);
        // The spawns at time zero were recorded as the scenario asked.
        let spawned = quiet.gas.trace().events().len();
        let end = SimTime::ZERO + recorded.scenario().duration;
        let frame = SimDuration::from_micros((end.as_micros() / 1000).max(1));
        while recorded.gas.now() < end {
            let to = (recorded.gas.now() + frame).min(end);
            recorded.advance_to(to);
            quiet.advance_to(to);
            assert_eq!(
                snapshot::checksum::<CombatComponents>(&quiet.world, &quiet.gas),
                snapshot::checksum::<CombatComponents>(&recorded.world, &recorded.gas),
                "{} at {to:?}",
                path.display()
            );
        }
        assert_eq!(quiet.gas.trace().events().len(), spawned);
        assert!(recorded.gas.trace().events().len() > spawned);
    }
}
