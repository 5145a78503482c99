//! The lane game (`examples/lane`), the framework's acceptance test: a
//! second game built on the core alone. Its trace is snapshotted, it plays
//! the same at any frame step, and it rolls back mid-channel.

#[allow(dead_code)]
#[path = "../examples/lane/game.rs"]
mod game;

use game::{default_script, Lane, GRUNT_A, GRUNT_B, HERO, SHAMAN};
use gaskit::{snapshot, SimDuration, SimTime};

fn secs(s: f64) -> SimTime {
    SimTime::from_secs_f64(s).unwrap()
}

fn fight(step: SimDuration, end: f64) -> Lane {
    let mut lane = Lane::new(7, default_script()).unwrap();
    lane.run(secs(end), step);
    lane
}

#[test]
fn the_first_ten_seconds() {
    let lane = fight(SimDuration::from_millis(50), 10.0);
    insta::assert_snapshot!(lane.compact_trace());
}

#[test]
fn the_fight_ends_with_the_wave_dead_and_the_hero_standing() {
    let lane = fight(SimDuration::from_millis(50), 22.0);
    for creep in [GRUNT_A, GRUNT_B, SHAMAN] {
        assert_eq!(lane.vitals(creep).0, 0.0, "{}", lane.roster[creep].0);
    }
    assert!(lane.vitals(HERO).0 > 0.0);
    let trace = lane.text_trace();
    for line in [
        // The shaman interrupts the first drain with a hex...
        "   5.500  hero  end GA_Drain (cancelled by Status.Stunned)",
        // ... so the bolt ordered during the stun is refused.
        "   6.000  hero  fail GA_Bolt: You cannot do that right now. [Status.Stunned]",
        // The second drain ends the moment its target dies.
        "  15.000  hero  end GA_Drain (target gained Status.Dead)",
        "  16.000  shaman  effect+ GE_Dead",
    ] {
        assert!(trace.contains(line), "missing `{line}` in:\n{trace}");
    }
}

#[test]
fn the_fight_is_the_same_at_any_frame_step() {
    let reference = fight(SimDuration::from_millis(50), 22.0).text_trace();
    for step in [16_667, 7_000, 250_000, 22_000_000] {
        let other = fight(SimDuration::from_micros(step), 22.0).text_trace();
        assert_eq!(other, reference, "step {step} µs");
    }
}

#[test]
fn a_rollback_mid_channel_continues_identically() {
    let mut lane = Lane::new(7, default_script()).unwrap();
    let frame = SimDuration::from_millis(50);
    lane.run(secs(5.2), frame);
    let channeling = lane.gas.catalog().tags().get("Status.Channeling").unwrap();
    let hero = lane.entity(HERO);
    assert!(
        lane.world
            .get::<&gaskit::AbilitySystem>(hero)
            .unwrap()
            .has_tag(channeling),
        "saved in the middle of the drain"
    );
    let saved = lane.save();
    lane.run(secs(22.0), frame);
    let first = (
        lane.text_trace(),
        snapshot::checksum::<game::Brain>(&lane.world, &lane.gas),
    );
    lane.restore(&saved).unwrap();
    lane.run(secs(22.0), frame);
    let second = (
        lane.text_trace(),
        snapshot::checksum::<game::Brain>(&lane.world, &lane.gas),
    );
    assert_eq!(first, second);
}

#[test]
fn the_lane_uses_the_core_alone() {
    let catalog = game::catalog().unwrap();
    assert_eq!(catalog.modules().count(), 0, "no game module's content");
    assert!(catalog.warnings().is_empty(), "{:?}", catalog.warnings());
    // Only the lane's own behaviour is missing before the lane registers it.
    let gas = gaskit::Gas::new(catalog);
    assert_eq!(gas.missing_behaviours(), ["Channel"]);
    for file in ["examples/lane/game.rs", "examples/lane/main.rs"] {
        let source = std::fs::read_to_string(file).unwrap();
        assert!(
            !source.contains("gaskit::combat"),
            "{file} uses the combat layer"
        );
    }
}
