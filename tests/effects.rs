//! Gameplay effects: durations, periods, SetByCaller, stacking, granted
//! tags, requirements, immunity, removal, cues, meta damage and hooks.

use std::sync::{Arc, Mutex};

use gaskit::prelude::*;
use gaskit::{BlockReason, CueEvent, EffectError, EffectKey, Execution, RemovalReason, TraceKind};
use hecs::{Entity, World};

const CONTENT: &str = r#"(
    attributes: [
        (name: "Armor", base: 10),
        (name: "Power", base: 5),
    ],
    effects: [
        (name: "Poison", duration: Duration(Constant(10)), period: (seconds: 1.0),
         modifiers: [(attribute: "Damage", op: Flat, magnitude: Constant(2))],
         granted_tags: ["Status.Poisoned"]),
        (name: "PoisonNow", duration: Duration(Constant(3)), period: (seconds: 1.0, execute_on_application: true),
         modifiers: [(attribute: "Damage", op: Flat, magnitude: Constant(1))]),
        (name: "ArmorBuff", duration: Duration(Constant(5)),
         modifiers: [(attribute: "Armor", op: Flat, magnitude: Scaled([1, 2, 4]))],
         granted_tags: ["Status.Buff.Haste"]),
        (name: "Rage", duration: Duration(Constant(4)),
         modifiers: [(attribute: "Power", op: Flat, magnitude: Constant(1))],
         stacking: (by: Target, limit: 3, duration: Refresh, on_expiry: RemoveOneAndRefresh)),
        (name: "Marked", duration: Duration(Constant(4)),
         stacking: (by: Source, limit: 5, duration: Keep)),
        (name: "Bleed", duration: Duration(Constant(10)), period: (seconds: 2.0),
         modifiers: [(attribute: "Damage", op: Flat, magnitude: Constant(1))],
         stacking: (by: Target, limit: 9, duration: Keep, period: Reset)),
        (name: "Fury", duration: Infinite,
         modifiers: [(attribute: "Armor", op: Mult, magnitude: Constant(2))],
         granted_tags: ["Status.Buff.Haste"],
         ongoing_requirements: (all: ["Status.InCombat"])),
        (name: "MagicWard", duration: Infinite, asset_tags: ["Status.Immune.Magic"],
         immunity: (any: ["Combat.DamageType.Magic"])),
        (name: "Execute", application_requirements: (all: ["Status.Stunned"]),
         modifiers: [(attribute: "Power", op: Flat, magnitude: Constant(100))]),
        (name: "Cleanse", remove_effects_with_tags: ["Status.Poisoned"]),
        (name: "Borrowed", duration: Infinite,
         modifiers: [(attribute: "Armor", op: Flat, magnitude: Attribute(attribute: "Power", from: Source, coefficient: 2))]),
        (name: "Linked", duration: Infinite,
         modifiers: [(attribute: "Armor", op: Flat, magnitude: Attribute(attribute: "Power", from: Source, live: true, coefficient: 2))]),
        (name: "SelfScaled", duration: Infinite,
         modifiers: [(attribute: "Armor", op: Flat, magnitude: Attribute(attribute: "Power", live: true, pre_add: 1, coefficient: 3, post_add: -1))]),
        (name: "Glow", duration: Duration(Constant(1)),
         cues: [(tag: "GameplayCue.Ability.Buff", on: Add), (tag: "GameplayCue.Ability.Buff", on: Remove)]),
        (name: "Bigger", duration: Infinite, modifiers: [(attribute: "MaxHealth", op: Flat, magnitude: Constant(20))]),
        (name: "Smaller", duration: Infinite, modifiers: [(attribute: "MaxHealth", op: Mult, magnitude: Constant(0.5))]),
    ],
)"#;

struct Sim {
    world: World,
    gas: Gas,
    hero: Entity,
    foe: Entity,
}

impl Sim {
    fn new() -> Self {
        let mut builder = gaskit::combat::default_catalog_builder();
        builder.tags().add_source("test.tags", "Status.Poisoned\n");
        builder.add_source("test.ron", CONTENT);
        let catalog = builder.build().unwrap_or_else(|e| panic!("{e}"));
        let gas = Gas::new(catalog);
        let mut world = World::new();
        let hero = world.spawn((gas.new_ability_system(),));
        let foe = world.spawn((gas.new_ability_system(),));
        Sim {
            world,
            gas,
            hero,
            foe,
        }
    }

    fn effect(&self, name: &str) -> gaskit::EffectId {
        self.gas.catalog().effects().get(name).unwrap()
    }

    fn tag(&self, name: &str) -> Tag {
        self.gas.catalog().tags().get(name).unwrap()
    }

    fn spec(&self, name: &str) -> EffectSpec {
        EffectSpec::new(self.effect(name))
    }

    fn apply(&mut self, target: Entity, spec: EffectSpec) -> ApplyOutcome {
        self.gas
            .apply_effect(&mut self.world, target, spec)
            .unwrap()
    }

    fn value(&self, entity: Entity, attribute: &str) -> f64 {
        let id = self.gas.catalog().attributes().get(attribute).unwrap();
        self.world
            .get::<&AbilitySystem>(entity)
            .unwrap()
            .current(id)
    }

    fn has(&self, entity: Entity, tag: &str) -> bool {
        assert!(self.world.get::<&AbilitySystem>(entity).is_ok());
        self.gas.has_tag(&self.world, entity, self.tag(tag))
    }

    fn at(&mut self, secs: f64) {
        self.gas
            .advance_to(&mut self.world, SimTime::from_secs_f64(secs).unwrap());
    }

    fn effect_count(&self, entity: Entity) -> usize {
        self.world
            .get::<&AbilitySystem>(entity)
            .unwrap()
            .effects()
            .effect_count(self.gas.now())
    }

    fn stacks(&self, entity: Entity, key: EffectKey) -> Option<u32> {
        self.world
            .get::<&AbilitySystem>(entity)
            .unwrap()
            .effects()
            .effect(key, self.gas.now())
            .map(|(_, s)| s)
    }

    fn remaining(&self, entity: Entity, tag: &str) -> f64 {
        self.gas
            .time_remaining(&self.world, entity, self.tag(tag))
            .as_secs_f64()
    }
}

fn added(outcome: ApplyOutcome) -> EffectKey {
    match outcome {
        ApplyOutcome::Added(key) => key,
        other => panic!("expected a new active effect, got {other:?}"),
    }
}

// ------------------------------------------------------------- cooldown

#[test]
fn attack_cooldown_lasts_exactly_its_set_by_caller_duration() {
    let mut sim = Sim::new();
    let attack = sim.tag("Cooldown.Combat.Attack");
    let spec = sim
        .spec("GE_Attack_Cooldown")
        .with_set_by_caller(attack, 2.4);
    added(sim.apply(sim.hero, spec));
    assert!(sim.has(sim.hero, "Cooldown.Combat.Attack"));
    assert_eq!(sim.remaining(sim.hero, "Cooldown.Combat.Attack"), 2.4);
    assert_eq!(
        sim.remaining(sim.hero, "Cooldown.Combat"),
        2.4,
        "read parent-aware"
    );
    sim.at(1.4);
    assert_eq!(sim.remaining(sim.hero, "Cooldown.Combat.Attack"), 1.0);
    let (remaining, total) = sim
        .gas
        .time_remaining_and_duration(&sim.world, sim.hero, attack)
        .unwrap();
    assert_eq!((remaining.as_secs_f64(), total.as_secs_f64()), (1.0, 2.4));
    sim.at(2.399_999);
    assert!(
        sim.has(sim.hero, "Cooldown.Combat.Attack"),
        "one microsecond before expiry"
    );
    sim.at(2.4);
    assert_eq!(sim.remaining(sim.hero, "Cooldown.Combat.Attack"), 0.0);
    assert!(!sim.has(sim.hero, "Cooldown.Combat.Attack"));
    assert_eq!(sim.effect_count(sim.hero), 0);
    assert_eq!(sim.gas.pending_timers(), 0);
}

#[test]
fn a_missing_set_by_caller_key_is_an_error_that_names_effect_and_key() {
    let mut sim = Sim::new();
    let spec = sim.spec("GE_Attack_Cooldown");
    let error = sim
        .gas
        .apply_effect(&mut sim.world, sim.hero, spec)
        .unwrap_err();
    assert!(matches!(error, EffectError::MissingSetByCaller { .. }));
    assert_eq!(
        error.to_string(),
        "effect `GE_Attack_Cooldown` needs a SetByCaller value under `Cooldown.Combat.Attack` and the spec has none"
    );
    assert_eq!(sim.effect_count(sim.hero), 0, "nothing applied");

    // Two damage types on one damage spec are ambiguous, not summed.
    let spec = sim
        .spec("GE_Damage")
        .with_set_by_caller(sim.tag("Combat.DamageType.Stab"), 3.0)
        .with_set_by_caller(sim.tag("Combat.DamageType.Slash"), 4.0);
    let error = sim
        .gas
        .apply_effect(&mut sim.world, sim.hero, spec)
        .unwrap_err();
    assert!(matches!(error, EffectError::AmbiguousSetByCaller { .. }));
    assert_eq!(sim.value(sim.hero, "Health"), 40.0);
}

#[test]
fn bad_targets_and_bad_magnitudes_change_nothing() {
    let mut sim = Sim::new();
    let ghost = sim.world.spawn(());
    let stun = sim.tag("Status.Stunned");
    let spec = sim.spec("GE_Stun").with_set_by_caller(stun, 1.0);
    assert_eq!(
        sim.gas.apply_effect(&mut sim.world, ghost, spec.clone()),
        Err(EffectError::NoSuchTarget(ghost))
    );
    sim.world.despawn(sim.foe).unwrap();
    assert_eq!(
        sim.gas.apply_effect(&mut sim.world, sim.foe, spec),
        Err(EffectError::NoSuchTarget(sim.foe))
    );
    for bad in [f64::NAN, f64::INFINITY, -1.0] {
        let spec = sim.spec("GE_Stun").with_set_by_caller(stun, bad);
        assert!(
            sim.gas
                .apply_effect(&mut sim.world, sim.hero, spec)
                .is_err(),
            "{bad}"
        );
    }
    let spec = sim
        .spec("GE_Damage")
        .with_set_by_caller(sim.tag("Combat.DamageType.Stab"), f64::NAN);
    assert!(matches!(
        sim.gas.apply_effect(&mut sim.world, sim.hero, spec),
        Err(EffectError::NotFinite { .. })
    ));
    assert_eq!(sim.value(sim.hero, "Health"), 40.0);
    assert_eq!(sim.effect_count(sim.hero), 0);
}

// ------------------------------------------------------------- periods

fn poison_ticks(steps: &[f64]) -> (Vec<f64>, f64) {
    let mut sim = Sim::new();
    added(sim.apply(sim.hero, sim.spec("Poison")));
    let mut t = 0.0;
    for step in steps {
        t += step;
        sim.at(t);
    }
    let ticks: Vec<f64> = sim
        .gas
        .trace()
        .events()
        .iter()
        .filter(|e| matches!(e.kind, TraceKind::EffectExecuted { .. }))
        .map(|e| e.time.as_secs_f64())
        .collect();
    (ticks, sim.value(sim.hero, "Health"))
}

#[test]
fn periodic_damage_ticks_at_its_own_instants_whatever_the_step() {
    let expected: Vec<f64> = (1..=10).map(f64::from).collect();
    let one_step = poison_ticks(&[12.0]);
    assert_eq!(one_step.0, expected, "a tick due at expiry still executes");
    assert_eq!(one_step.1, 40.0 - 20.0);
    for step in [1.0f64 / 20.0, 1.0 / 60.0, 1.0 / 144.0, 0.7, 3.3] {
        let steps = vec![step; (12.0 / step).ceil() as usize];
        assert_eq!(poison_ticks(&steps), one_step, "step {step}");
    }
    // Jittered steps.
    let jitter: Vec<f64> = (0..400)
        .map(|i| 0.01 + ((i * 7919) % 13) as f64 * 0.004)
        .collect();
    assert_eq!(poison_ticks(&jitter), one_step);
}

#[test]
fn execute_on_application_ticks_at_once() {
    let mut sim = Sim::new();
    added(sim.apply(sim.hero, sim.spec("PoisonNow")));
    assert_eq!(sim.value(sim.hero, "Health"), 39.0);
    sim.at(10.0);
    assert_eq!(
        sim.value(sim.hero, "Health"),
        36.0,
        "ticks at 0, 1, 2 and 3"
    );
}

#[test]
fn advancing_in_one_step_or_many_gives_the_same_trace() {
    let run = |steps: usize| {
        let mut sim = Sim::new();
        let attack = sim.tag("Cooldown.Combat.Attack");
        let stun = sim.tag("Status.Stunned");
        added(sim.apply(sim.hero, sim.spec("Poison")));
        added(
            sim.apply(
                sim.hero,
                sim.spec("GE_Attack_Cooldown")
                    .with_set_by_caller(attack, 2.4),
            ),
        );
        added(sim.apply(sim.foe, sim.spec("GE_Stun").with_set_by_caller(stun, 7.77)));
        sim.apply(sim.hero, sim.spec("Rage"));
        for i in 1..=steps {
            sim.at(10.0 * i as f64 / steps as f64);
        }
        sim.gas.trace().events().to_vec()
    };
    let one = run(1);
    assert!(one.len() > 20);
    assert_eq!(run(600), one);
    assert_eq!(run(7), one);
}

// ------------------------------------------------------------- stacking

#[test]
fn refresh_on_stack_keeps_one_instance_and_restarts_the_clock() {
    let mut sim = Sim::new();
    let in_combat = sim.tag("Status.InCombat");
    let spec = sim.spec("GE_InCombat").with_set_by_caller(in_combat, 20.0);
    let key = added(sim.apply(sim.hero, spec.clone()));
    sim.at(15.0);
    assert_eq!(
        sim.apply(sim.hero, spec.clone()),
        ApplyOutcome::Stacked { key, stacks: 1 }
    );
    assert_eq!(sim.effect_count(sim.hero), 1);
    assert_eq!(sim.remaining(sim.hero, "Status.InCombat"), 20.0);
    sim.at(34.9);
    assert!(
        sim.has(sim.hero, "Status.InCombat"),
        "refreshed at 15 s, so it lasts to 35 s"
    );
    sim.at(35.0);
    assert!(!sim.has(sim.hero, "Status.InCombat"));
    assert_eq!(
        sim.gas.pending_timers(),
        0,
        "the superseded expiry timer was cancelled"
    );
}

#[test]
fn stacks_multiply_magnitudes_up_to_the_limit_and_expire_one_by_one() {
    let mut sim = Sim::new();
    let key = added(sim.apply(sim.hero, sim.spec("Rage")));
    sim.at(1.0);
    sim.apply(sim.hero, sim.spec("Rage"));
    sim.apply(sim.hero, sim.spec("Rage"));
    assert_eq!(
        sim.apply(sim.hero, sim.spec("Rage")),
        ApplyOutcome::Stacked { key, stacks: 3 }
    );
    assert_eq!(sim.value(sim.hero, "Power"), 5.0 + 3.0, "limit 3");
    sim.at(4.999);
    assert_eq!(sim.stacks(sim.hero, key), Some(3));
    sim.at(5.0);
    assert_eq!(
        (sim.stacks(sim.hero, key), sim.value(sim.hero, "Power")),
        (Some(2), 7.0)
    );
    sim.at(9.0);
    assert_eq!(
        (sim.stacks(sim.hero, key), sim.value(sim.hero, "Power")),
        (Some(1), 6.0)
    );
    sim.at(13.0);
    assert_eq!(
        (sim.stacks(sim.hero, key), sim.value(sim.hero, "Power")),
        (None, 5.0)
    );
}

#[test]
fn stacking_by_source_keeps_one_stack_per_source_and_keep_leaves_the_duration() {
    let mut sim = Sim::new();
    let (hero, foe) = (sim.hero, sim.foe);
    let from_hero = added(sim.apply(foe, sim.spec("Marked").with_source(hero)));
    let from_self = added(sim.apply(foe, sim.spec("Marked").with_source(foe)));
    assert_ne!(from_hero, from_self);
    sim.at(3.0);
    assert_eq!(
        sim.apply(foe, sim.spec("Marked").with_source(hero)),
        ApplyOutcome::Stacked {
            key: from_hero,
            stacks: 2
        }
    );
    sim.at(4.0);
    assert_eq!(
        sim.effect_count(foe),
        0,
        "Keep: both expire at 4 s despite the re-application at 3 s"
    );
}

#[test]
fn period_reset_restarts_the_tick_phase() {
    let mut sim = Sim::new();
    added(sim.apply(sim.hero, sim.spec("Bleed")));
    sim.at(1.5);
    sim.apply(sim.hero, sim.spec("Bleed"));
    sim.at(3.4);
    assert_eq!(
        sim.value(sim.hero, "Health"),
        40.0,
        "the 2 s tick moved to 3.5 s"
    );
    sim.at(3.5);
    assert_eq!(sim.value(sim.hero, "Health"), 38.0, "one tick of 2 stacks");
}

// ------------------------------------------------------------- tags and rules

#[test]
fn granted_tags_are_counted_and_leave_with_the_effect() {
    let mut sim = Sim::new();
    let a = added(sim.apply(sim.hero, sim.spec("ArmorBuff").with_level(2)));
    assert_eq!(sim.value(sim.hero, "Armor"), 12.0, "level 2 of the table");
    let b = added(sim.apply(sim.hero, sim.spec("ArmorBuff").with_level(9)));
    assert_eq!(
        sim.value(sim.hero, "Armor"),
        16.0,
        "levels past the table use the last entry"
    );
    let haste = sim.tag("Status.Buff.Haste");
    assert_eq!(
        sim.gas
            .owned_tags(&sim.world, sim.hero)
            .unwrap()
            .count(haste),
        2
    );
    assert!(sim.gas.remove_effect(&mut sim.world, sim.hero, a));
    assert!(
        !sim.gas.remove_effect(&mut sim.world, sim.hero, a),
        "already removed"
    );
    assert!(sim.has(sim.hero, "Status.Buff.Haste"), "b still grants it");
    assert!(sim.gas.remove_effect(&mut sim.world, sim.hero, b));
    assert!(!sim.has(sim.hero, "Status.Buff.Haste"));
    assert_eq!(sim.value(sim.hero, "Armor"), 10.0);
}

#[test]
fn inhibited_effects_stop_modifying_and_resume() {
    let mut sim = Sim::new();
    let in_combat = sim.tag("Status.InCombat");
    let key = added(sim.apply(sim.hero, sim.spec("Fury")));
    let inhibited = |sim: &Sim| {
        sim.world
            .get::<&AbilitySystem>(sim.hero)
            .unwrap()
            .effects()
            .is_inhibited(key, sim.gas.now())
    };
    assert_eq!(inhibited(&sim), Some(true), "not in combat yet");
    assert_eq!(sim.value(sim.hero, "Armor"), 10.0);
    assert!(!sim.has(sim.hero, "Status.Buff.Haste"));

    sim.apply(
        sim.hero,
        sim.spec("GE_InCombat").with_set_by_caller(in_combat, 5.0),
    );
    assert_eq!(inhibited(&sim), Some(false));
    assert_eq!(sim.value(sim.hero, "Armor"), 20.0);
    assert!(sim.has(sim.hero, "Status.Buff.Haste"));

    sim.at(5.0);
    assert_eq!(inhibited(&sim), Some(true), "in-combat expired");
    assert_eq!(sim.value(sim.hero, "Armor"), 10.0);
    assert_eq!(
        sim.effect_count(sim.hero),
        1,
        "still applied while inhibited"
    );

    sim.apply(
        sim.hero,
        sim.spec("GE_InCombat").with_set_by_caller(in_combat, 5.0),
    );
    assert_eq!(sim.value(sim.hero, "Armor"), 20.0, "resumed");
}

#[test]
fn immunity_blocks_and_is_reported() {
    let mut sim = Sim::new();
    let ward = sim.effect("MagicWard");
    added(sim.apply(sim.hero, EffectSpec::new(ward)));
    let magic = sim.tag("Combat.DamageType.Magic");
    let spell = sim
        .spec("GE_Damage")
        .with_set_by_caller(magic, 9.0)
        .with_tag(magic);
    assert_eq!(
        sim.apply(sim.hero, spell),
        ApplyOutcome::Blocked(BlockReason::Immune { by: ward })
    );
    assert_eq!(sim.value(sim.hero, "Health"), 40.0);
    let slash = sim.tag("Combat.DamageType.Slash");
    let sword = sim
        .spec("GE_Damage")
        .with_set_by_caller(slash, 9.0)
        .with_tag(slash);
    assert!(matches!(
        sim.apply(sim.hero, sword),
        ApplyOutcome::Executed(_)
    ));
    assert_eq!(sim.value(sim.hero, "Health"), 31.0);
    assert!(sim.gas.trace().events().iter().any(|e| matches!(
        e.kind,
        TraceKind::EffectBlocked {
            reason: BlockReason::Immune { .. },
            ..
        }
    )));
}

#[test]
fn application_requirements_gate_the_target() {
    let mut sim = Sim::new();
    assert_eq!(
        sim.apply(sim.hero, sim.spec("Execute")),
        ApplyOutcome::Blocked(BlockReason::Requirements)
    );
    assert_eq!(sim.value(sim.hero, "Power"), 5.0);
    let stun = sim.tag("Status.Stunned");
    sim.apply(sim.hero, sim.spec("GE_Stun").with_set_by_caller(stun, 2.0));
    assert!(matches!(
        sim.apply(sim.hero, sim.spec("Execute")),
        ApplyOutcome::Executed(_)
    ));
    assert_eq!(
        sim.value(sim.hero, "Power"),
        105.0,
        "instant: the base changed"
    );
    sim.at(3.0);
    assert_eq!(sim.value(sim.hero, "Power"), 105.0, "and stays");
}

#[test]
fn effects_remove_others_by_tag_and_removal_works_by_tag_definition_and_source() {
    let mut sim = Sim::new();
    let (hero, foe) = (sim.hero, sim.foe);
    added(sim.apply(hero, sim.spec("Poison")));
    sim.apply(hero, sim.spec("Cleanse"));
    assert_eq!(sim.effect_count(hero), 0);
    let cleanse = sim.effect("Cleanse");
    assert!(sim.gas.trace().events().iter().any(|e| matches!(
        e.kind,
        TraceKind::EffectRemoved { reason: RemovalReason::RemovedBy(by), .. } if by == cleanse
    )));

    added(sim.apply(hero, sim.spec("Poison")));
    added(sim.apply(hero, sim.spec("ArmorBuff")));
    added(sim.apply(hero, sim.spec("Marked").with_source(foe)));
    added(sim.apply(hero, sim.spec("Marked").with_source(hero)));
    let haste = sim.tag("Status.Buff.Haste");
    assert_eq!(
        sim.gas.remove_effects_with_tag(&mut sim.world, hero, haste),
        1
    );
    assert_eq!(sim.gas.remove_effects_from(&mut sim.world, hero, foe), 1);
    let marked = sim.effect("Marked");
    assert_eq!(sim.gas.remove_effects_of(&mut sim.world, hero, marked), 1);
    let status = sim.tag("Status");
    assert_eq!(
        sim.gas
            .remove_effects_with_tag(&mut sim.world, hero, status),
        1,
        "parent-aware"
    );
    assert_eq!(sim.effect_count(hero), 0);
    assert_eq!(
        sim.gas.pending_timers(),
        0,
        "every removal cancels its timers"
    );
}

#[test]
fn effects_matching_a_query_are_found() {
    let mut sim = Sim::new();
    let hero = sim.hero;
    let poison = added(sim.apply(hero, sim.spec("Poison")));
    added(sim.apply(hero, sim.spec("ArmorBuff")));
    let query = TagQueryDef::parse(
        r#"(any: ["Status.Poisoned"])"#,
        "q",
        sim.gas.catalog().tags(),
    )
    .unwrap();
    assert_eq!(
        sim.gas
            .effects_matching(&sim.world, hero, &query)
            .as_slice(),
        [poison]
    );
    // An effect's granted and asset tags are read together: a `none`
    // rules out the poison, though its asset tags (none) hold nothing it
    // forbids (it was found, read side by side).
    let ward = added(sim.apply(hero, sim.spec("MagicWard")));
    let unpoisoned = TagQueryDef::parse(
        r#"(none: ["Status.Poisoned"])"#,
        "q",
        sim.gas.catalog().tags(),
    )
    .unwrap();
    let found = sim.gas.effects_matching(&sim.world, hero, &unpoisoned);
    assert!(
        !found.contains(&poison) && found.contains(&ward),
        "{found:?}"
    );
}

// ------------------------------------------------------------- magnitudes

#[test]
fn attribute_magnitudes_snapshot_or_follow_their_source() {
    let mut sim = Sim::new();
    let (hero, foe) = (sim.hero, sim.foe);
    added(sim.apply(hero, sim.spec("Borrowed").with_source(foe)));
    assert_eq!(sim.value(hero, "Armor"), 10.0 + 2.0 * 5.0);
    let linked = added(sim.apply(foe, sim.spec("Linked").with_source(hero)));
    assert_eq!(sim.value(foe, "Armor"), 20.0);

    // Rage raises the hero's Power to 6: the live link follows, the snapshot does not.
    sim.apply(hero, sim.spec("Rage"));
    assert_eq!(sim.value(hero, "Power"), 6.0);
    assert_eq!(sim.value(foe, "Armor"), 22.0, "live from source");
    sim.apply(foe, sim.spec("Rage"));
    assert_eq!(sim.value(hero, "Armor"), 20.0, "snapshot from source");
    sim.at(4.0);
    assert_eq!(sim.value(foe, "Armor"), 20.0, "hero's Rage expired");

    // A despawned source leaves the last value in place.
    sim.apply(hero, sim.spec("Rage"));
    sim.world.despawn(hero).unwrap();
    sim.at(30.0);
    assert_eq!(sim.value(foe, "Armor"), 22.0);
    assert!(sim
        .world
        .get::<&AbilitySystem>(foe)
        .unwrap()
        .effects()
        .effect(linked, sim.gas.now())
        .is_some());
    // A snapshot source that is gone at application is an error, not a 0.
    let spec = sim.spec("Borrowed").with_source(hero);
    assert!(matches!(
        sim.gas.apply_effect(&mut sim.world, foe, spec),
        Err(EffectError::SourceUnavailable { .. })
    ));
}

#[test]
fn live_target_captures_follow_the_target() {
    let mut sim = Sim::new();
    added(sim.apply(sim.hero, sim.spec("SelfScaled")));
    assert_eq!(sim.value(sim.hero, "Armor"), 10.0 + 3.0 * (5.0 + 1.0) - 1.0);
    sim.apply(sim.hero, sim.spec("Rage"));
    assert_eq!(sim.value(sim.hero, "Armor"), 10.0 + 3.0 * (6.0 + 1.0) - 1.0);
}

// ------------------------------------------------------------- meta damage

#[test]
fn damage_drains_health_clamps_and_heals_through_the_same_path() {
    let mut sim = Sim::new();
    let reports = Arc::new(Mutex::new(Vec::new()));
    let sink = reports.clone();
    sim.gas.add_hook(
        move |_: &mut World, _: &mut Gas, target: Entity, execution: &Execution| {
            for meta in &execution.meta {
                sink.lock().unwrap().push((
                    target,
                    meta.is_hit(),
                    meta.is_heal(),
                    meta.reached_zero(),
                    meta.applied(),
                ));
            }
        },
    );
    let stab = sim.tag("Combat.DamageType.Stab");
    let hit = |amount: f64| sim.spec("GE_Damage").with_set_by_caller(stab, amount);
    let (h1, heal, h2, overkill, h0) = (hit(15.0), hit(-100.0), hit(39.0), hit(5.0), hit(0.0));
    let hero = sim.hero;
    sim.apply(hero, h1);
    assert_eq!(sim.value(hero, "Health"), 25.0);
    assert_eq!(
        sim.value(hero, "Damage"),
        0.0,
        "the meta attribute holds nothing afterwards"
    );
    sim.apply(hero, heal);
    assert_eq!(
        sim.value(hero, "Health"),
        40.0,
        "healing clamps at MaxHealth"
    );
    sim.apply(hero, h2);
    sim.apply(hero, overkill);
    assert_eq!(sim.value(hero, "Health"), 0.0, "clamped at 0");
    sim.apply(hero, h0);
    let reports = reports.lock().unwrap();
    assert_eq!(
        *reports,
        vec![
            (hero, true, false, false, 15.0),
            (hero, false, true, false, -15.0),
            (hero, true, false, false, 39.0),
            (hero, true, false, true, 1.0),
            (hero, false, false, false, 0.0),
        ]
    );
}

#[test]
fn hooks_can_apply_more_effects() {
    let mut sim = Sim::new();
    let in_combat = sim.tag("Status.InCombat");
    let refresh = sim.spec("GE_InCombat").with_set_by_caller(in_combat, 20.0);
    sim.gas.add_hook(
        move |world: &mut World, gas: &mut Gas, target: Entity, execution: &Execution| {
            if execution.meta.iter().any(|m| m.is_hit()) {
                gas.apply_effect(world, target, refresh.clone()).unwrap();
            }
        },
    );
    let stab = sim.tag("Combat.DamageType.Stab");
    sim.apply(
        sim.hero,
        sim.spec("GE_Damage").with_set_by_caller(stab, 1.0),
    );
    assert!(sim.has(sim.hero, "Status.InCombat"));
    sim.apply(
        sim.foe,
        sim.spec("GE_Damage").with_set_by_caller(stab, -1.0),
    );
    assert!(!sim.has(sim.foe, "Status.InCombat"), "a heal is not a hit");
}

#[test]
fn max_health_changes_mid_fight_keep_health_absolute_and_clamp_it_down() {
    let mut sim = Sim::new();
    let hero = sim.hero;
    let stab = sim.tag("Combat.DamageType.Stab");
    sim.apply(hero, sim.spec("GE_Damage").with_set_by_caller(stab, 10.0));
    let bigger = added(sim.apply(hero, sim.spec("Bigger")));
    assert_eq!(
        (sim.value(hero, "MaxHealth"), sim.value(hero, "Health")),
        (60.0, 30.0),
        "no free heal"
    );
    sim.gas.remove_effect(&mut sim.world, hero, bigger);
    let smaller = added(sim.apply(hero, sim.spec("Smaller")));
    assert_eq!(
        (sim.value(hero, "MaxHealth"), sim.value(hero, "Health")),
        (20.0, 20.0)
    );
    sim.gas.remove_effect(&mut sim.world, hero, smaller);
    assert_eq!(
        (sim.value(hero, "MaxHealth"), sim.value(hero, "Health")),
        (40.0, 20.0),
        "the loss stays"
    );
}

// ------------------------------------------------------------- cues

#[test]
fn cues_fire_on_add_remove_and_execute() {
    let mut sim = Sim::new();
    added(sim.apply(sim.hero, sim.spec("Glow")));
    sim.at(1.0);
    let cues: Vec<(f64, CueEvent)> = sim
        .gas
        .trace()
        .events()
        .iter()
        .filter_map(|e| match e.kind {
            TraceKind::Cue { event, .. } => Some((e.time.as_secs_f64(), event)),
            _ => None,
        })
        .collect();
    assert_eq!(cues, [(0.0, CueEvent::Add), (1.0, CueEvent::Remove)]);
}

// ------------------------------------------------------------- data errors

#[test]
fn invalid_effect_data_is_reported_with_location() {
    let cases: &[(&str, &str)] = &[
        (
            r#"(name: "X", duration: Duration(Constant(-1)))"#,
            "duration must be a number of seconds",
        ),
        (
            r#"(name: "X", period: (seconds: 1))"#,
            "an instant effect cannot be periodic",
        ),
        (
            r#"(name: "X", duration: Infinite, period: (seconds: 0))"#,
            "period must be at least 0.001 s, found 0",
        ),
        (
            r#"(name: "X", duration: Infinite, period: (seconds: 0.0005))"#,
            "period must be at least 0.001 s, found 0.0005",
        ),
        (
            r#"(name: "X", modifiers: [(attribute: "Helth", op: Flat, magnitude: Constant(1))])"#,
            "unknown attribute `Helth`",
        ),
        (
            r#"(name: "X", granted_tags: ["Status.Dead"])"#,
            "`granted_tags` means nothing",
        ),
        (
            r#"(name: "X", duration: Infinite, modifiers: [(attribute: "Damage", op: Flat, magnitude: Constant(1))])"#,
            "meta attribute `Damage` can only be modified by instant or periodic",
        ),
        (
            r#"(name: "X", duration: Infinite, cues: [(tag: "Status.Dead", on: Add)])"#,
            "must live under GameplayCue.*",
        ),
        (
            r#"(name: "X", modifiers: [(attribute: "Health", op: Flat, magnitude: SetByCaller("Combat.DamageType.Slsh"))])"#,
            "unknown tag `Combat.DamageType.Slsh`",
        ),
        (
            r#"(name: "X", duration: Infinite, stacking: (by: Target, limit: 0))"#,
            "stack limit must be at least 1",
        ),
        (
            r#"(name: "GE_Damage")"#,
            "effect `GE_Damage` is already defined in abilities/effects.ron",
        ),
        (r#"(name: "GE Damage")"#, "invalid effect name `GE Damage`"),
        (
            r#"(name: "X", modifiers: [(attribute: "Health", op: Flat, magnitude: Scaled([]))])"#,
            "needs at least one value",
        ),
    ];
    for (effect, expected) in cases {
        let mut builder = gaskit::combat::default_catalog_builder();
        builder.add_source("fx.ron", &format!("(effects: [\n{effect}\n])"));
        let errors = builder.build().expect_err(effect);
        let text = errors.to_string();
        assert!(text.contains(expected), "expected `{expected}` in:\n{text}");
        assert!(
            errors.0.iter().all(|d| d.file == "fx.ron" && d.line == 2),
            "{text}"
        );
    }
    let mut builder = gaskit::combat::default_catalog_builder();
    builder.add_source("fx.ron", "(effects: [(name: \"X\", modifiers: [(attribute: \"Health\", op: Flat, magnitude: SetByCaller(\"Combat.DamageType.Slsh\"))])])");
    let errors = builder.build().unwrap_err();
    assert_eq!(
        errors.0[0].suggestion.as_deref(),
        Some("Combat.DamageType.Slash")
    );
}

/// Two towers each adding half of the other's Resonance, read live, form
/// a cycle that settles only in the limit: the refresh stops after its
/// eight passes and says so with a `reaction_limit` record, where it
/// stopped unseen (the README promised the values settled).
#[test]
fn a_cycle_of_live_captures_stops_at_its_passes_and_says_so() {
    let mut builder = CatalogBuilder::new();
    builder.add_source(
        "towers.ron",
        r#"(
        attributes: [(name: "Resonance", base: 5)],
        effects: [(name: "GE_Resonance", duration: Infinite,
            modifiers: [(attribute: "Resonance", op: Flat,
                magnitude: Attribute(attribute: "Resonance", from: Source, live: true, coefficient: 0.5))])],
    )"#,
    );
    let mut gas = Gas::new(builder.build().unwrap_or_else(|e| panic!("{e}")));
    gas.trace_mut().set_filter(TraceFilter::ALL);
    let mut world = hecs::World::new();
    let (a, b) = (
        world.spawn((gas.new_ability_system(),)),
        world.spawn((gas.new_ability_system(),)),
    );
    let resonance = gas.catalog().effects().get("GE_Resonance").unwrap();
    gas.apply_effect(&mut world, b, EffectSpec::new(resonance).with_source(a))
        .unwrap();
    let limits = |gas: &Gas| {
        gas.trace()
            .events()
            .iter()
            .filter(|e| matches!(e.kind, TraceKind::ReactionLimit { limit: 8, .. }))
            .count()
    };
    assert_eq!(limits(&gas), 0, "a chain of one settles");
    gas.apply_effect(&mut world, a, EffectSpec::new(resonance).with_source(b))
        .unwrap();
    assert_eq!(limits(&gas), 1, "the cycle stops at its passes");
    let value = |e| {
        let id = gas.catalog().attributes().get("Resonance").unwrap();
        gas.attribute_value(&world, e, id).unwrap()
    };
    assert!(
        value(a) < 10.0 && value(a) > 9.9,
        "near the fixed point: {}",
        value(a)
    );
}
