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
    let mut lane = Lane::new(game::SEED, default_script()).unwrap();
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
        // The bolt's execution: 20 + 1.5 × 28 SpellPower − 2 Armor.
        "   2.500  grunt-b  Health 70 -> 10",
        // The low-health observer's game record, at the crossing.
        "   2.500  grunt-b  Lane.Record.Wounded 10",
        // The shaman interrupts the first drain with a hex...
        "   5.500  hero  end GA_Drain (cancelled by Status.Stunned)",
        // ... whose teardown reads the pulse count from the instance state...
        "   5.500  hero  Lane.Record.Drained -> shaman 2",
        // ... so the bolt ordered during the stun is refused, saying why.
        "   6.000  hero  fail GA_Bolt: You cannot do that right now. [Status.Stunned]",
        // Against 6 Armor: 56.
        "   9.000  shaman  Health 64 -> 8",
        // The second drain ends the moment its target dies.
        "  15.500  hero  end GA_Drain (target gained Status.Dead)",
        // The last bolt crits: 56 × 1.5.
        "  16.000  shaman  cue GameplayCue.Lane.Bolt execute 84",
        "  16.000  shaman  effect+ GE_Dead",
    ] {
        assert!(trace.contains(line), "missing `{line}` in:\n{trace}");
    }
}

#[test]
fn the_creeps_ask_before_they_act_so_nothing_of_theirs_is_refused() {
    let lane = fight(SimDuration::from_millis(50), 22.0);
    let trace = lane.text_trace();
    let refusals: Vec<&str> = trace.lines().filter(|l| l.contains(" fail ")).collect();
    // Only the player's order that could not be obeyed; no creep tried
    // anything it could not do, stunned or on cooldown.
    assert_eq!(
        refusals,
        ["   6.000  hero  fail GA_Bolt: You cannot do that right now. [Status.Stunned]"]
    );
    // The stunned shaman (7.5 to 9.5) swung at neither.
    assert!(!trace.contains("   8.000  shaman  activate GA_Claw"));
}

#[test]
fn the_cue_observer_sees_every_cue_in_trace_order_with_its_magnitude() {
    let lane = fight(SimDuration::from_millis(50), 22.0);
    let cues = lane.cues.lock().unwrap().clone();
    let in_trace: Vec<String> = lane
        .text_trace()
        .lines()
        .filter(|l| l.contains(" cue "))
        .map(str::to_owned)
        .collect();
    assert_eq!(cues.len(), in_trace.len(), "{cues:#?}\n{in_trace:#?}");
    assert_eq!(
        cues.last().map(String::as_str),
        Some("  16.000  GameplayCue.Lane.Death on shaman")
    );
    assert!(
        cues.contains(&"  16.000  GameplayCue.Lane.Bolt on shaman (84) [Damage.Critical]".into()),
        "{cues:#?}"
    );
    assert!(
        cues.contains(&"   2.500  GameplayCue.Lane.Bolt on grunt-b (60)".into()),
        "{cues:#?}"
    );
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
    let frame = SimDuration::from_millis(50);
    let mut lane = Lane::new(game::SEED, default_script()).unwrap();
    lane.run(secs(5.2), frame);
    let hero = lane.entity(HERO);
    let drain = lane.gas.catalog().abilities().get("GA_Drain").unwrap();
    let pulses = |lane: &Lane| {
        let system = lane.world.get::<&gaskit::AbilitySystem>(hero).unwrap();
        let instance = system.active_instance(drain)?;
        system.instance_state::<game::ChannelState>(instance)
    };
    assert_eq!(
        pulses(&lane),
        Some(game::ChannelState { pulses: 1 }),
        "saved in the middle of the drain, one pulse in"
    );
    let saved = lane.save();
    lane.gas.trace_mut().clear();
    lane.run(secs(22.0), frame);
    let first = (
        lane.text_trace(),
        snapshot::checksum::<game::Brain>(&lane.world, &lane.gas),
    );

    // A fresh lane takes everything, the pulse count included, from the save.
    let mut other = Lane::new(game::SEED, default_script()).unwrap();
    other.restore(&saved).unwrap();
    assert_eq!(pulses(&other), Some(game::ChannelState { pulses: 1 }));
    other.gas.trace_mut().clear();
    other.run(secs(22.0), frame);
    let second = (
        other.text_trace(),
        snapshot::checksum::<game::Brain>(&other.world, &other.gas),
    );
    assert_eq!(first, second);
    assert!(first
        .0
        .contains("   5.500  hero  Lane.Record.Drained -> shaman 2"));
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
