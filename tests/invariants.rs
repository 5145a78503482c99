//! Invariants under random play: many seeds of random fights (engage, cast,
//! style, equip, modals, stuns, food, autocast, disengage, despawn, profile
//! save and reload, snapshot rollback), with `gaskit::invariants::check` and
//! the attack-cooldown window verified after every step.
//!
//! `GASKIT_SOAK=N` multiplies the number of seeds.

use std::collections::HashMap;
use std::sync::Arc;

use gaskit::combat::{self, native, CombatComponents, CombatDefs, CombatRecord, Kinematic, Vec2};
use gaskit::scenario::{Scenario, ScenarioRun, SCENARIO_ABILITIES};
use gaskit::snapshot::Snapshot;
use gaskit::{invariants, EffectSpec, GameplayEvent, SimDuration, SimTime};
use hecs::Entity;
use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn soak() -> u64 {
    std::env::var("GASKIT_SOAK")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1u64)
        .max(1)
}

const ITEMS: &[&str] = &[
    "Bronze Scimitar",
    "Rune Scimitar",
    "Iron Mace",
    "Oak Shortbow",
    "Yew Longbow",
    "Oak Wand",
    "Bronze Arrow",
    "Bronze Full Helm",
    "Leather Body",
    "Wizard Robe",
];
const SPELLS: &[&str] = &["Wind Strike", "Fire Bolt", "Smoke Rush"];
const STYLES: &[&str] = &[
    "Combat.Style.Aggressive",
    "Combat.Style.Defensive",
    "Combat.Style.Controlled",
];

/// A random fight: 3 to 6 fighters close together with random loadouts.
fn random_scenario(rng: &mut ChaCha8Rng) -> String {
    let n = 3 + rng.next_u32() % 4;
    let mut fighters = String::new();
    for i in 0..n {
        let weapon = ["Bronze Scimitar", "Oak Shortbow", "Oak Wand", "Iron Mace"]
            [rng.next_u32() as usize % 4];
        let (level, x, y, speed) = (
            1 + rng.next_u32() % 60,
            rng.next_u32() % 500,
            rng.next_u32() % 500,
            100 + rng.next_u32() % 250,
        );
        // No arrows at all, sometimes: none is worn rather than 0.
        let arrows = match rng.next_u32() % 30 {
            0 => String::new(),
            n => format!(r#", ("Bronze Arrow", {n})"#),
        };
        fighters.push_str(&format!(
            r#"(name: "f{i}", level: {level}, position: ({x}, {y}), speed: {speed},
               equipment: [("{weapon}", 1){arrows}],
               inventory: [("Air Rune", {}), ("Mind Rune", {}), ("Shrimp", 3),
                           ("Rune Scimitar", 1), ("Yew Longbow", 1)]),
            "#,
            rng.next_u32() % 40,
            rng.next_u32() % 40,
        ));
    }
    format!(
        "(seed: {}, duration: 3600.0, trace: [\"Combat\", \"Abilities\"], combatants: [{fighters}])",
        rng.next_u64()
    )
}

/// When each fighter's attack cooldown ends, from the stamps in the trace.
type Windows = HashMap<Entity, SimTime>;

/// Reads the new trace events: an attack cooldown stamped before the last
/// one ended means an attack resolved early.
fn check_windows(run: &ScenarioRun, seen: &mut usize, windows: &mut Windows, seed: u64) {
    let attack = run.runtime.tags()[native::COOLDOWN_COMBAT_ATTACK];
    let events = run.gas.trace().events();
    for event in &events[*seen..] {
        if let Some(&CombatRecord::CooldownStamped {
            entity,
            cooldown,
            duration,
        }) = event.record()
        {
            if cooldown == attack {
                if let Some(&ready) = windows.get(&entity) {
                    assert!(
                        event.time >= ready,
                        "seed {seed}: {entity:?} attacked at {:?}, inside its window until {ready:?}",
                        event.time
                    );
                }
                windows.insert(entity, event.time + duration);
            }
        }
    }
    *seen = events.len();
}

/// A new fighter loaded from a saved profile (a player coming back).
fn rejoin(run: &mut ScenarioRun, profile: &combat::Profile, rng: &mut ChaCha8Rng) -> Entity {
    let catalog = run.gas.catalog_arc().clone();
    let at = Vec2::new(
        f64::from(rng.next_u32() % 900),
        f64::from(rng.next_u32() % 900),
    );
    let entity = run.world.spawn((
        run.gas.new_ability_system(),
        combat::new_combatant(run.runtime.defs(), run.runtime.defs().default_kind()),
        Kinematic::at(at, 200.0),
    ));
    for name in SCENARIO_ABILITIES {
        let ability = catalog.abilities().get(name).unwrap();
        run.gas
            .grant_ability(&mut run.world, entity, ability, 1)
            .unwrap();
    }
    combat::prepare(&run.runtime, &mut run.world, &mut run.gas, entity);
    combat::load_profile(&run.runtime, &mut run.world, &mut run.gas, entity, profile).unwrap();
    entity
}

/// One random input.
fn act(run: &mut ScenarioRun, fighters: &mut Vec<Entity>, rng: &mut ChaCha8Rng) {
    let catalog = run.gas.catalog_arc().clone();
    let combat_defs = catalog.section::<CombatDefs>().unwrap();
    let tags = &combat_defs.tags;
    let pick = |rng: &mut ChaCha8Rng, fighters: &[Entity]| {
        fighters[rng.next_u32() as usize % fighters.len()]
    };
    let a = pick(rng, fighters);
    // Mostly someone else; now and then itself, which must be refused.
    let mut b = pick(rng, fighters);
    if b == a && rng.next_u32() % 4 != 0 {
        b = pick(rng, fighters);
    }
    let spell = combat_defs
        .spell_named(SPELLS[rng.next_u32() as usize % SPELLS.len()])
        .unwrap();
    let event = match rng.next_u32() % 20 {
        // An attack click (walk up, then engage), or the engage alone.
        0..=3 | 15..=17 => Some(
            GameplayEvent::new(tags[native::TRIGGER_QUEUED_INTERACT])
                .target(b)
                .payload(tags[native::TRIGGER_ENGAGE]),
        ),
        18 => Some(GameplayEvent::new(tags[native::TRIGGER_ENGAGE]).target(b)),
        19 => {
            let to = combat::Vec2::new(
                f64::from(rng.next_u32() % 3000),
                f64::from(rng.next_u32() % 3000),
            );
            let runtime = run.runtime.clone();
            combat::move_order(&runtime, &mut run.world, &mut run.gas, a, to).unwrap();
            None
        }
        4 | 5 => Some(
            GameplayEvent::new(tags[native::TRIGGER_CAST])
                .target(b)
                .object(spell.index() as u32),
        ),
        6 => {
            let style = catalog
                .tags()
                .get(STYLES[rng.next_u32() as usize % STYLES.len()])
                .unwrap();
            Some(GameplayEvent::new(tags[native::TRIGGER_SET_STYLE]).payload(style))
        }
        7 => Some(GameplayEvent::new(tags[native::TRIGGER_DISENGAGE])),
        8 => {
            let shrimp = combat_defs.item_named("Shrimp").unwrap();
            Some(GameplayEvent::new(tags[native::TRIGGER_EAT]).object(shrimp.index() as u32))
        }
        9 => {
            let mut event = GameplayEvent::new(tags[native::TRIGGER_AUTOCAST_SET]);
            event.object = (rng.next_u32() % 2 == 0).then_some(spell.index() as u32);
            Some(event)
        }
        10 => {
            let item = combat_defs
                .item_named(ITEMS[rng.next_u32() as usize % ITEMS.len()])
                .unwrap();
            let _ = combat::equip(&run.runtime, &mut run.world, &mut run.gas, a, item);
            None
        }
        11 => {
            // Toggle the bank open or closed.
            let modal = catalog.tags().get("Action.Modal.Banking").unwrap();
            let open = run.gas.has_tag(&run.world, a, modal);
            if open {
                let _ = run.gas.remove_loose_tag(&mut run.world, a, modal);
            } else {
                run.gas.add_loose_tag(&mut run.world, a, modal, false);
            }
            None
        }
        12 => {
            let stun = catalog.effects().get("GE_Stun").unwrap();
            let seconds = f64::from(rng.next_u32() % 30) / 10.0 + 0.1;
            let spec =
                EffectSpec::new(stun).with_set_by_caller(tags[native::STATUS_STUNNED], seconds);
            let _ = run.gas.apply_effect(&mut run.world, a, spec);
            None
        }
        13 if fighters.len() > 2 && rng.next_u32() % 4 == 0 => {
            run.gas.despawn(&mut run.world, a);
            fighters.retain(|&f| f != a);
            None
        }
        14 if rng.next_u32() % 3 == 0 => {
            // Save (a death if in combat), leave, and come back later.
            let runtime = run.runtime.clone();
            if let Some(profile) = combat::save_profile(&runtime, &mut run.world, &mut run.gas, a) {
                run.gas.despawn(&mut run.world, a);
                fighters.retain(|&f| f != a);
                let back = rejoin(run, &profile, rng);
                fighters.push(back);
            }
            None
        }
        _ => None,
    };
    if let Some(event) = event {
        run.gas.send_event(a, event);
    }
}

#[test]
fn random_fights_keep_every_invariant_after_every_step() {
    let catalog = Arc::new(gaskit::combat::default_catalog());
    let seeds = 40 * soak();
    let mut steps = 0u64;
    let mut rollbacks = 0u64;
    let mut attacks = 0usize;
    for seed in 0..seeds {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let text = random_scenario(&mut rng);
        let scenario =
            Scenario::parse(&text, "random.ron", &catalog).unwrap_or_else(|e| panic!("{e}"));
        let mut run = ScenarioRun::new(catalog.clone(), scenario).unwrap();
        let mut fighters: Vec<Entity> = run.fighters.iter().map(|(_, e)| *e).collect();
        let mut windows = Windows::new();
        let mut seen = 0;
        let mut saved: Option<(Snapshot<CombatComponents>, Vec<Entity>, Windows, usize)> = None;
        for step in 0..600 {
            if rng.next_u32() % 12 == 0 {
                act(&mut run, &mut fighters, &mut rng);
            }
            let frame = SimDuration::from_micros(1 + u64::from(rng.next_u32()) % 120_000);
            let to = run.gas.now() + frame;
            run.advance_to(to);
            steps += 1;

            let broken = invariants::check(&run.world, &run.gas);
            assert!(broken.is_empty(), "seed {seed} step {step}: {broken:#?}");
            check_windows(&run, &mut seen, &mut windows, seed);

            // Now and then keep a snapshot, and later roll back to it.
            match rng.next_u32() % 60 {
                0 => {
                    saved = Some((
                        Snapshot::save(&run.world, &run.gas),
                        fighters.clone(),
                        windows.clone(),
                        seen,
                    ))
                }
                1 => {
                    if let Some((snapshot, f, w, s)) = &saved {
                        snapshot.restore(&mut run.world, &mut run.gas).unwrap();
                        (fighters, windows, seen) = (f.clone(), w.clone(), *s);
                        rollbacks += 1;
                        let broken = invariants::check(&run.world, &run.gas);
                        assert!(broken.is_empty(), "seed {seed} after rollback: {broken:#?}");
                    }
                }
                _ => {}
            }
        }
        attacks += run
            .gas
            .trace()
            .events()
            .iter()
            .filter(|e| matches!(e.record(), Some(CombatRecord::Attack { .. })))
            .count();
    }
    println!("{seeds} seeds, {steps} steps checked, {rollbacks} rollbacks, {attacks} attacks");
    assert!(
        attacks as u64 > seeds * 12,
        "the fights fought: {attacks} attacks"
    );
    assert!(rollbacks > 0);
}

#[test]
fn the_checks_report_broken_bookkeeping() {
    use gaskit::arena::{Arena, ArenaConfig};
    let mut arena = Arena::new(ArenaConfig {
        combatants: 8,
        ..ArenaConfig::default()
    })
    .unwrap();
    arena.run_for(SimDuration::from_secs(4), SimDuration::from_millis(50));
    assert_eq!(
        invariants::check(&arena.world, &arena.gas),
        Vec::<String>::new()
    );

    // Game code pushes a stranger into an attacker set by hand.
    let (first, last) = (arena.entities[0], arena.entities[7]);
    arena
        .world
        .get::<&mut combat::Combatant>(first)
        .unwrap()
        .attackers
        .current
        .push(last);
    let broken = invariants::check(&arena.world, &arena.gas);
    assert!(
        broken.iter().any(|b| b.contains("is not attacking it")),
        "{broken:?}"
    );

    // ...and tags a fighter standing still as chasing.
    let chasing = arena.gas.catalog().tags().get("State.Chasing").unwrap();
    let idle = arena.entities[3];
    assert!(!arena.runtime.pawn.is_chase_active(&arena.world, idle));
    arena
        .gas
        .add_loose_tag(&mut arena.world, idle, chasing, false);
    let broken = invariants::check(&arena.world, &arena.gas);
    assert!(
        broken
            .iter()
            .any(|b| b.contains("owns State.Chasing with no chase running")),
        "{broken:?}"
    );
}

#[test]
fn despawning_an_entity_cancels_its_effect_timers() {
    let catalog = Arc::new(gaskit::combat::default_catalog());
    let mut gas = gaskit::Gas::new(catalog.clone());
    let mut world = hecs::World::new();
    let entity = world.spawn((gas.new_ability_system(),));
    let stun = catalog.effects().get("GE_Stun").unwrap();
    let stunned = catalog.tags().get("Status.Stunned").unwrap();
    let spec = EffectSpec::new(stun).with_set_by_caller(stunned, 5.0);
    gas.apply_effect(&mut world, entity, spec).unwrap();
    assert_eq!(gas.pending_timers(), 1, "the stun's expiry");
    assert!(gas.despawn(&mut world, entity));
    assert_eq!(gas.pending_timers(), 0, "nothing left to fire for it");
    assert_eq!(invariants::check(&world, &gas), Vec::<String>::new());
}
