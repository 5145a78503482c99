//! The CRADL engagement loop: cadence, the shared attack cooldown read as a
//! level, weaving, standalone casts, chase, range, cancellation, teardown
//! and the attacker ceiling. Every assertion is on exact simulated times.

use gaskit::combat::{
    self, native, AttackOutcome, ChasePhase, CombatDefs, CombatRecord, Combatant, Kinematic,
    Skills, Vec2,
};
use gaskit::prelude::*;
use gaskit::TraceKind;
use hecs::{Entity, World};

const CONTENT: &str = r#"(
    effects: [
        // Test fighters are hard to kill, so cadence runs long.
        (name: "GE_Tank", duration: Infinite,
         modifiers: [(attribute: "MaxHealth", op: Flat, magnitude: Constant(1000000))]),
        (name: "GE_Test_Heal", modifiers: [(attribute: "Damage", op: Flat, magnitude: Constant(-1000000))]),
        (name: "GE_Quick", duration: Duration(Constant(100)),
         modifiers: [(attribute: "AttackSpeed", op: Mult, magnitude: Constant(1.25))]),
        // A haste no content should stack to: 2.4 s / 5e6 rounds to nothing.
        (name: "GE_Frenzy", duration: Infinite,
         modifiers: [(attribute: "AttackSpeed", op: Mult, magnitude: Constant(5000000))]),
    ],
    items: [
        (name: "Test Sword", slot: "Item.Slot.Weapon", attack_bonus: {"Combat.DamageType.Slash": 10}, strength: 10,
         weapon: (damage_type: "Combat.DamageType.Slash", swing_interval: 2.4, attack_range: 250)),
        (name: "Plain Sword", slot: "Item.Slot.Weapon", attack_bonus: {"Combat.DamageType.Slash": 1},
         weapon: (damage_type: "Combat.DamageType.Slash", swing_interval: 2.4)),
        (name: "Plain Bow", slot: "Item.Slot.Weapon", attack_bonus: {"Combat.DamageType.Ranged": 1},
         weapon: (damage_type: "Combat.DamageType.Ranged", swing_interval: 1.8)),
        (name: "Long Bow", slot: "Item.Slot.Weapon", attack_bonus: {"Combat.DamageType.Ranged": 1},
         weapon: (damage_type: "Combat.DamageType.Ranged", swing_interval: 2.4, attack_range: 2500)),
        (name: "Plain Wand", slot: "Item.Slot.Weapon", attack_bonus: {"Combat.DamageType.Magic": 1},
         weapon: (damage_type: "Combat.DamageType.Magic", swing_interval: 2.4)),
    ],
    spells: [
        (name: "Test Bolt", book: "Spellbook.Standard", max_damage: 5, cast_interval: 3.0, cast_range_cm: 1500),
        (name: "Even Bolt", book: "Spellbook.Standard", max_damage: 5, cast_interval: 2.4),
        (name: "Far Bolt", book: "Spellbook.Standard", max_damage: 5, cast_interval: 2.4, cast_range_cm: 3000),
    ],
)"#;

struct Arena {
    world: World,
    gas: Gas,
    runtime: std::sync::Arc<combat::CombatRuntime>,
}

impl Arena {
    fn new() -> Self {
        Self::with_sight(std::sync::Arc::new(combat::AlwaysVisible))
    }

    /// An arena whose line of sight is `sight`.
    fn with_sight(sight: std::sync::Arc<dyn combat::LineOfSight>) -> Self {
        let mut builder = gaskit::combat::default_catalog_builder();
        builder.add_source("arena.ron", CONTENT);
        let catalog = std::sync::Arc::new(builder.build().unwrap_or_else(|e| panic!("{e}")));
        let mut gas = Gas::new(catalog.clone());
        let pawn = std::sync::Arc::new(combat::ChasingPawn::new(
            std::sync::Arc::new(combat::KinematicMover),
            catalog.section_arc::<CombatDefs>().unwrap(),
        ));
        let runtime =
            std::sync::Arc::new(combat::CombatRuntime::with_hooks(catalog, pawn, sight).unwrap());
        combat::install_runtime(&mut gas, runtime.clone());
        Arena {
            world: World::new(),
            gas,
            runtime,
        }
    }

    fn catalog(&self) -> &Catalog {
        self.gas.catalog()
    }

    /// A tanky level-50 fighter with `weapon` at `(x, 0)` moving at `speed`.
    fn spawn(&mut self, name: &str, x: f64, speed: f64, weapon: Option<&str>) -> Entity {
        let catalog = self.gas.catalog_arc().clone();
        let defs = catalog.section::<CombatDefs>().unwrap();
        let mut combatant = combat::new_combatant(defs, defs.default_kind());
        combatant.skills = Skills::all_at(50);
        if let Some(weapon) = weapon {
            let item = defs.item_named(weapon).unwrap();
            combatant
                .equipment
                .put(defs.tags[native::ITEM_SLOT_WEAPON], item, 1);
        }
        let entity = self.world.spawn((
            Name(name.into()),
            self.gas.new_ability_system(),
            combatant,
            Kinematic::at(Vec2::new(x, 0.0), speed),
        ));
        for ability in [
            "GA_QueuedInteract",
            "GA_AutoAttack",
            "GA_Disengage",
            "GA_QueueWeave",
            "GA_CastSpell",
            "GA_Death",
        ] {
            let id = catalog.abilities().get(ability).unwrap();
            self.gas
                .grant_ability(&mut self.world, entity, id, 1)
                .unwrap();
        }
        for effect in ["GE_Tank", "GE_Test_Heal"] {
            let id = catalog.effects().get(effect).unwrap();
            self.gas
                .apply_effect(&mut self.world, entity, EffectSpec::new(id))
                .unwrap();
        }
        entity
    }

    fn tag(&self, name: &str) -> Tag {
        self.catalog().tags().get(name).unwrap()
    }

    fn spell(&self, name: &str) -> u32 {
        self.catalog()
            .section::<CombatDefs>()
            .unwrap()
            .spell_named(name)
            .unwrap()
            .index() as u32
    }

    fn send(&mut self, to: Entity, event: GameplayEvent) {
        self.gas.send_event(to, event);
        self.gas.advance_by(&mut self.world, SimDuration::ZERO);
    }

    /// An attack click: the walk-up carrying the engage, which fires at
    /// once from within reach.
    fn engage(&mut self, attacker: Entity, target: Entity) {
        let event = GameplayEvent::new(self.tag("Action.Trigger.QueuedInteract"))
            .target(target)
            .instigator(attacker)
            .payload(self.tag("Action.Trigger.Combat.Engage"));
        self.send(attacker, event);
    }

    fn cast(&mut self, caster: Entity, target: Entity, spell: &str) {
        let event = GameplayEvent::new(self.tag("Action.Trigger.Combat.Cast"))
            .target(target)
            .instigator(caster)
            .object(self.spell(spell));
        self.send(caster, event);
    }

    fn at(&mut self, secs: f64) {
        self.gas
            .advance_to(&mut self.world, SimTime::from_secs_f64(secs).unwrap());
    }

    fn engaged(&self, entity: Entity) -> bool {
        let id = self.catalog().abilities().get("GA_AutoAttack").unwrap();
        self.world
            .get::<&AbilitySystem>(entity)
            .unwrap()
            .active_instance(id)
            .is_some()
    }

    /// What `pick` takes from each combat record of the trace, given the
    /// record's time in seconds.
    fn records<T>(&self, mut pick: impl FnMut(f64, &CombatRecord) -> Option<T>) -> Vec<T> {
        self.gas
            .trace()
            .events()
            .iter()
            .filter_map(|e| pick(e.time.as_secs_f64(), e.record()?))
            .collect()
    }

    /// Attack resolutions as `(seconds, attacker, what)`; `what` is
    /// `swing`, `cast <spell>` or `weave <spell>`.
    fn attacks(&self) -> Vec<(f64, String, String)> {
        self.records(|time, record| {
            let CombatRecord::Attack {
                attacker,
                spell,
                weaved,
                ..
            } = record
            else {
                return None;
            };
            let what = match spell {
                None => "swing".to_owned(),
                Some(s) => {
                    let defs = self.catalog().section::<CombatDefs>().unwrap();
                    let name = &defs.spell(*s).unwrap().name;
                    format!("{} {name}", if *weaved { "weave" } else { "cast" })
                }
            };
            Some((time, gaskit::entity_name(&self.world, *attacker), what))
        })
    }

    /// Every attack as (time to the millisecond, what it was).
    fn what_when(&self) -> Vec<(f64, String)> {
        self.attacks()
            .into_iter()
            .map(|(t, _, w)| ((t * 1000.0).round() / 1000.0, w))
            .collect()
    }

    fn attack_times(&self, attacker: &str) -> Vec<f64> {
        self.attacks()
            .into_iter()
            .filter(|(_, a, _)| a == attacker)
            .map(|(t, _, _)| t)
            .collect()
    }

    /// Turns `who` to another spellbook, as the game would between ticks.
    fn turn_to_book(&mut self, who: Entity, book: &str) {
        let book = self.tag(book);
        self.world
            .get::<&mut Combatant>(who)
            .unwrap()
            .spellbook
            .current = book;
    }

    /// The reasons of the attacks the loop refused, in order.
    fn attacks_refused(&self) -> Vec<String> {
        self.records(|_, record| match record {
            CombatRecord::AttackFailed { reason, .. } => {
                Some(self.catalog().tags().name(*reason).to_owned())
            }
            _ => None,
        })
    }

    fn chase_steps(&self) -> Vec<(f64, ChasePhase)> {
        self.records(|time, record| match record {
            CombatRecord::Chase { phase, .. } => Some((time, *phase)),
            _ => None,
        })
    }

    fn failures(&self) -> Vec<String> {
        self.gas
            .trace()
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                TraceKind::AbilityFailed {
                    ability, reason, ..
                } => Some(format!(
                    "{} {}",
                    self.catalog().abilities().def(*ability).name,
                    reason.message(self.catalog().tags())
                )),
                _ => None,
            })
            .collect()
    }

    /// Teardown left nothing behind: no target, no weave, no chase, and no
    /// attacker slot on `target`.
    fn assert_torn_down(&self, attacker: Entity, target: Entity) {
        let a = self.world.get::<&Combatant>(attacker).unwrap();
        assert_eq!(a.targeting.target, None, "target cleared");
        assert_eq!(a.targeting.pending_weave, None, "weave dropped");
        assert!(!a.chase.is_active(), "chase ended");
        assert!(!self.has(attacker, "State.Chasing"), "State.Chasing gone");
        if let Ok(t) = self.world.get::<&Combatant>(target) {
            assert!(
                !t.attackers.current.contains(&attacker),
                "attacker slot freed"
            );
        }
        assert!(!self.engaged(attacker));
    }

    fn grant(&mut self, entity: Entity, ability: &str) {
        let id = self.catalog().abilities().get(ability).unwrap();
        self.gas
            .grant_ability(&mut self.world, entity, id, 1)
            .unwrap();
    }

    /// Sends `entity` an event with no payload (a button press).
    fn press(&mut self, entity: Entity, trigger: &str) {
        let event = GameplayEvent::new(self.tag(trigger));
        self.send(entity, event);
    }

    fn has(&self, entity: Entity, tag: &str) -> bool {
        assert!(self.world.get::<&AbilitySystem>(entity).is_ok());
        self.gas.has_tag(&self.world, entity, self.tag(tag))
    }

    fn buff_attack_speed(&mut self, entity: Entity) {
        let id = self.catalog().effects().get("GE_Quick").unwrap();
        self.gas
            .apply_effect(&mut self.world, entity, EffectSpec::new(id))
            .unwrap();
    }
}

fn round3(values: Vec<f64>) -> Vec<f64> {
    values
        .into_iter()
        .map(|v| (v * 1000.0).round() / 1000.0)
        .collect()
}

// ------------------------------------------------------------- cadence

#[test]
fn swings_follow_swing_interval_and_a_speed_buff_applies_from_the_next_swing() {
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 0.0, Some("Test Sword"));
    let bob = a.spawn("bob", 100.0, 0.0, None);
    a.engage(alice, bob);
    a.at(3.0);
    // Mid-window buff: the swing due at 4.8 was stamped at 2.4 for 2.4 s, so
    // it still lands at 4.8; from then on every stamp is 2.4 / 1.25.
    a.buff_attack_speed(alice);
    a.at(12.0);
    assert_eq!(
        round3(a.attack_times("alice")),
        [0.0, 2.4, 4.8, 6.72, 8.64, 10.56]
    );
    assert_eq!(
        a.stamps(alice),
        [2.4, 2.4, 1.92, 1.92, 1.92, 1.92],
        "SwingInterval / AttackSpeed, read at each swing"
    );
}

#[test]
fn the_first_swing_reads_the_cooldown_as_a_level_so_re_engaging_never_swings_early() {
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 0.0, Some("Test Sword"));
    let bob = a.spawn("bob", 100.0, 0.0, None);
    // Cooldown clear: the first swing resolves at activation.
    a.engage(alice, bob);
    a.at(1.0);
    let disengage = GameplayEvent::new(a.tag("Action.Trigger.Combat.Disengage"));
    a.send(alice, disengage);
    // Engaging again mid-cooldown waits exactly its remainder (to 2.4).
    a.at(1.5);
    a.engage(alice, bob);
    a.at(5.0);
    assert_eq!(round3(a.attack_times("alice")), [0.0, 2.4, 4.8]);
}

fn thousand_swings(steps: &[f64]) -> Vec<f64> {
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 0.0, Some("Test Sword"));
    let bob = a.spawn("bob", 100.0, 0.0, None);
    a.engage(alice, bob);
    let mut t = 0.0;
    for &step in steps {
        t += step;
        a.at(t);
    }
    a.at(2.4 * 999.0);
    a.attack_times("alice")
}

#[test]
fn no_tick_is_lost_over_a_thousand_swings_whatever_the_step() {
    let expected: Vec<f64> = (0..1000)
        .map(|i| (i as u64 * 2_400_000) as f64 / 1e6)
        .collect();
    assert_eq!(thousand_swings(&[]), expected, "one big step");
    for hz in [20.0, 60.0, 144.0] {
        let steps = vec![1.0 / hz; (2.4 * 999.0 * hz) as usize];
        assert_eq!(thousand_swings(&steps), expected, "{hz} Hz");
    }
}

// ------------------------------------------------------------- free actions

#[test]
fn free_actions_never_move_a_swing_and_are_gated_only_by_the_cast_cooldown() {
    let run = |free_actions: bool| {
        let mut a = Arena::new();
        let alice = a.spawn("alice", 0.0, 0.0, Some("Test Sword"));
        let bob = a.spawn("bob", 100.0, 0.0, None);
        for ability in [
            "GA_Ward",
            "GA_Prayer_ProtectMagic_On",
            "GA_Prayer_ProtectMagic_Off",
        ] {
            a.grant(alice, ability);
        }
        a.engage(alice, bob);
        let mut held = Vec::new();
        if free_actions {
            // Mid-window self-cast, and a second inside its 1.8 s anti-spam
            // window.
            a.at(1.0);
            a.press(alice, "Action.Trigger.Combat.SelfCast.Ward");
            held.push(a.has(alice, "Status.Buff.Ward"));
            a.at(2.0);
            a.press(alice, "Action.Trigger.Combat.SelfCast.Ward");
            // A prayer on at 3.5 (the gate cleared at 2.8), off refused at
            // 3.8 (inside the 0.6 s gate), off at 4.2.
            a.at(3.5);
            a.press(alice, "Action.Trigger.Combat.Prayer.ProtectMagic");
            a.at(3.8);
            a.press(alice, "Action.Trigger.Combat.Prayer.ProtectMagic");
            held.push(a.has(alice, "Status.Prayer.ProtectMagic"));
            a.at(4.2);
            a.press(alice, "Action.Trigger.Combat.Prayer.ProtectMagic");
            held.push(a.has(alice, "Status.Prayer.ProtectMagic"));
        }
        a.at(12.0);
        (a.attack_times("alice"), a.failures(), held)
    };
    let (plain, _, _) = run(false);
    let (with_free_actions, failures, held) = run(true);
    assert_eq!(round3(plain.clone()), [0.0, 2.4, 4.8, 7.2, 9.6, 12.0]);
    assert_eq!(with_free_actions, plain, "every swing instant unchanged");
    assert_eq!(
        failures,
        [
            "GA_Ward Not ready yet.",
            "GA_Prayer_ProtectMagic_Off Not ready yet."
        ]
    );
    assert_eq!(held, [true, true, false], "ward on; prayer on, then off");
}

// ------------------------------------------------------------- weaving

#[test]
fn a_weave_takes_exactly_one_tick_and_preserves_the_total_rate() {
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 0.0, Some("Test Sword"));
    let bob = a.spawn("bob", 100.0, 0.0, None);
    a.engage(alice, bob);
    a.at(1.0);
    a.cast(alice, bob, "Even Bolt");
    a.at(8.0);
    // melee -> cast -> melee takes exactly as long as three melee swings.
    let got = a.what_when();
    assert_eq!(
        got,
        [
            (0.0, "swing".to_owned()),
            (2.4, "weave Even Bolt".to_owned()),
            (4.8, "swing".to_owned()),
            (7.2, "swing".to_owned())
        ]
    );

    // A longer cast interval pushes the next swing by exactly that interval.
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 0.0, Some("Test Sword"));
    let bob = a.spawn("bob", 100.0, 0.0, None);
    a.engage(alice, bob);
    a.at(1.0);
    a.cast(alice, bob, "Test Bolt");
    a.at(10.0);
    assert_eq!(round3(a.attack_times("alice")), [0.0, 2.4, 5.4, 7.8]);
}

#[test]
fn the_last_click_wins_and_a_different_target_is_rejected() {
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 0.0, Some("Test Sword"));
    let bob = a.spawn("bob", 100.0, 0.0, None);
    let carol = a.spawn("carol", -100.0, 0.0, None);
    a.engage(alice, bob);
    a.at(0.5);
    a.cast(alice, bob, "Test Bolt");
    a.at(1.0);
    a.cast(alice, bob, "Even Bolt");
    a.at(1.5);
    a.cast(alice, carol, "Far Bolt");
    assert_eq!(
        a.failures(),
        ["GA_QueueWeave You are fighting something else."]
    );
    a.at(3.0);
    let weaves: Vec<_> = a
        .attacks()
        .into_iter()
        .filter(|(_, _, w)| w.starts_with("weave"))
        .collect();
    assert_eq!(
        weaves,
        [(2.4, "alice".to_owned(), "weave Even Bolt".to_owned())]
    );
    let queued = a
        .gas
        .trace()
        .events()
        .iter()
        .filter(|e| {
            matches!(
                e.record(),
                Some(CombatRecord::WeaveQueued {
                    replaced: Some(_),
                    ..
                })
            )
        })
        .count();
    assert_eq!(queued, 1, "the second click replaced the first");
}

#[test]
fn a_swing_sped_up_below_the_minimum_interval_is_held_at_it() {
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 0.0, Some("Test Sword"));
    let bob = a.spawn("bob", 100.0, 0.0, None);
    let frenzy = a.catalog().effects().get("GE_Frenzy").unwrap();
    a.gas
        .apply_effect(&mut a.world, alice, EffectSpec::new(frenzy))
        .unwrap();
    a.engage(alice, bob);
    a.at(1.0);
    // One swing every 0.1 s (the default min_attack_interval), not
    // millions at one instant.
    let times = round3(a.attack_times("alice"));
    assert_eq!(times.len(), 11, "{times:?}");
    assert_eq!(times[..3], [0.0, 0.1, 0.2]);
    let clamped = a
        .gas
        .trace()
        .events()
        .iter()
        .find_map(|e| match e.record() {
            Some(CombatRecord::IntervalClamped { computed, used, .. }) => Some((*computed, *used)),
            _ => None,
        });
    assert_eq!(
        clamped,
        Some((SimDuration::ZERO, SimDuration::from_millis(100))),
        "2.4 s / 5e6 computes to under a microsecond"
    );
}

#[test]
fn a_queued_weave_passes_every_manual_cast_gate_again_when_it_resolves() {
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 0.0, Some("Test Sword"));
    let bob = a.spawn("bob", 100.0, 0.0, None);
    a.engage(alice, bob);
    a.at(1.0);
    a.cast(alice, bob, "Even Bolt");
    // Before the weave resolves at 2.4 s, alice turns to another book: the
    // spell is no longer learned, so the weave is refused and she swings.
    a.turn_to_book(alice, "Spellbook.Ancient");
    a.at(5.0);
    assert_eq!(
        a.what_when(),
        [
            (0.0, "swing".to_owned()),
            (2.4, "swing".to_owned()),
            (4.8, "swing".to_owned())
        ]
    );
    assert_eq!(a.attacks_refused(), ["Activation.Fail.NotLearned"]);
    assert_eq!(
        a.world
            .get::<&Combatant>(alice)
            .unwrap()
            .targeting
            .pending_weave,
        None
    );
}

/// A weave that cannot go lets the swing go in its place, and the swing's
/// own range gate holds then: a target within the bolt's reach but beyond
/// the sword's is chased, not struck from 1 000 cm away.
#[test]
fn a_swing_going_instead_of_a_refused_weave_is_range_checked_and_chases() {
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 100.0, Some("Test Sword"));
    let bob = a.spawn("bob", 100.0, 0.0, None);
    a.engage(alice, bob);
    a.at(1.0);
    a.cast(alice, bob, "Test Bolt");
    // The weave will be refused (the spell is no longer in her book), and
    // bob stands within Test Bolt's 1 500 cm but beyond the sword's 250.
    a.turn_to_book(alice, "Spellbook.Ancient");
    teleport(&mut a, bob, 1000.0);
    a.at(2.5);
    assert_eq!(
        a.what_when(),
        [(0.0, "swing".to_owned())],
        "no hit at range"
    );
    assert_eq!(a.attacks_refused(), ["Activation.Fail.NotLearned"]);
    let chase: Vec<f64> = a.chase_steps().iter().map(|(t, _)| *t).collect();
    assert!(
        chase.first().is_some_and(|&t| (t - 2.4).abs() < 1e-9),
        "the chase begins at the tick: {chase:?}"
    );
    assert!(a.engaged(alice));
}

/// Moves `entity` to `(x, 0)` at once.
fn teleport(a: &mut Arena, entity: Entity, x: f64) {
    let mut body = a.world.get::<&mut Kinematic>(entity).unwrap();
    body.from = Vec2::new(x, 0.0);
    body.to = Vec2::new(x, 0.0);
}

fn weaves_held(a: &Arena) -> Vec<f64> {
    a.records(|time, record| matches!(record, CombatRecord::WeaveHeld { .. }).then_some(time))
}

#[test]
fn a_weave_beyond_its_spell_range_is_held_while_the_swing_goes_and_never_chased() {
    let mut a = Arena::new();
    // A 2500 cm bow at 2400 cm; Test Bolt reaches 1500 cm.
    let archer = a.spawn("archer", 0.0, 300.0, Some("Long Bow"));
    let bob = a.spawn("bob", 2400.0, 0.0, None);
    a.engage(archer, bob);
    a.at(1.0);
    a.cast(archer, bob, "Test Bolt");
    a.at(5.0);
    // Each tick the bolt cannot reach, the bow shoots and the weave stays.
    assert_eq!(
        a.what_when(),
        [
            (0.0, "swing".to_owned()),
            (2.4, "swing".to_owned()),
            (4.8, "swing".to_owned())
        ]
    );
    assert_eq!(weaves_held(&a), [2.4, 4.8]);
    assert!(a.chase_steps().is_empty(), "no walk-up for a cast");
    // Bob steps within 1500: the next tick casts the kept weave, and its
    // 3 s interval sets the swing after it.
    teleport(&mut a, bob, 1400.0);
    a.at(10.5);
    assert_eq!(
        a.what_when()[3..],
        [
            (7.2, "weave Test Bolt".to_owned()),
            (10.2, "swing".to_owned())
        ]
    );
    assert_eq!(weaves_held(&a), [2.4, 4.8]);
    assert!(a.chase_steps().is_empty());
    // A manual cast from beyond the range fails the same way: one resolver.
    let mut solo = Arena::new();
    let caster = solo.spawn("caster", 0.0, 0.0, None);
    let far = solo.spawn("far", 2400.0, 0.0, None);
    solo.cast(caster, far, "Test Bolt");
    assert_eq!(solo.failures(), ["GA_CastSpell Out of range."]);
}

#[test]
fn a_weave_within_its_spell_range_fires_from_where_the_caster_stands() {
    let mut a = Arena::new();
    // Alice cannot move, so her sword can never reach bob again.
    let alice = a.spawn("alice", 0.0, 0.0, Some("Test Sword"));
    let bob = a.spawn("bob", 100.0, 0.0, None);
    a.engage(alice, bob);
    a.at(1.0);
    teleport(&mut a, bob, 1000.0);
    a.cast(alice, bob, "Test Bolt");
    a.at(8.0);
    // What fires next sets the range gate: at 2.4 the bolt (1500 cm) is
    // cast from 1000 cm without a chase; from 5.4 the sword needs one.
    assert_eq!(
        a.what_when(),
        [
            (0.0, "swing".to_owned()),
            (2.4, "weave Test Bolt".to_owned())
        ]
    );
    let chase: Vec<f64> = a.chase_steps().iter().map(|(t, _)| *t).collect();
    assert_eq!(chase.first(), Some(&5.4), "{chase:?}");
    assert!(weaves_held(&a).is_empty());
}

impl Arena {
    /// Every attack cooldown `entity` stamped, in seconds.
    fn stamps(&self, entity: Entity) -> Vec<f64> {
        self.records(|_, record| match *record {
            CombatRecord::CooldownStamped {
                entity: who,
                duration,
                ..
            } if who == entity => Some(duration.as_secs_f64()),
            _ => None,
        })
    }
}

#[test]
fn an_attack_speed_buff_shortens_swings_never_casts() {
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 0.0, Some("Test Sword"));
    let bob = a.spawn("bob", 100.0, 0.0, None);
    a.buff_attack_speed(alice);
    // A standalone cast, then the loop, then a weave in it.
    a.cast(alice, bob, "Test Bolt");
    a.at(1.0);
    a.engage(alice, bob);
    a.at(4.0);
    a.cast(alice, bob, "Test Bolt");
    a.at(10.0);
    assert_eq!(
        a.what_when(),
        [
            (0.0, "cast Test Bolt".to_owned()),
            (3.0, "swing".to_owned()),
            (4.92, "weave Test Bolt".to_owned()),
            (7.92, "swing".to_owned()),
            (9.84, "swing".to_owned())
        ]
    );
    // Swings 2.4 / 1.25; each cast its own 3 s.
    assert_eq!(round3(a.stamps(alice)), [3.0, 1.92, 3.0, 1.92, 1.92]);

    // Autocast: the spell's interval, buff or not.
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 0.0, Some("Plain Wand"));
    let bob = a.spawn("bob", 100.0, 0.0, None);
    a.buff_attack_speed(alice);
    let bolt = a
        .catalog()
        .section::<CombatDefs>()
        .unwrap()
        .spell_named("Test Bolt")
        .unwrap();
    let runtime = a.runtime.clone();
    combat::set_autocast(&runtime, &mut a.world, &mut a.gas, alice, Some(bolt)).unwrap();
    a.engage(alice, bob);
    a.at(7.0);
    assert_eq!(a.stamps(alice), [3.0, 3.0, 3.0]);
}

#[test]
fn a_standalone_cast_stamps_the_attack_cooldown_so_engaging_after_does_not_swing_early() {
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 0.0, Some("Test Sword"));
    let bob = a.spawn("bob", 100.0, 0.0, None);
    a.cast(alice, bob, "Test Bolt");
    a.at(1.0);
    a.cast(alice, bob, "Test Bolt");
    assert_eq!(a.failures(), ["GA_CastSpell Not ready yet."]);
    a.engage(alice, bob);
    a.at(8.0);
    let got = a.what_when();
    assert_eq!(
        got,
        [
            (0.0, "cast Test Bolt".to_owned()),
            (3.0, "swing".to_owned()),
            (5.4, "swing".to_owned()),
            (7.8, "swing".to_owned())
        ]
    );
}

#[test]
fn an_out_of_range_manual_cast_fails_without_walking_or_stamping() {
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 100.0, None);
    let bob = a.spawn("bob", 1600.0, 0.0, None);
    a.cast(alice, bob, "Test Bolt");
    assert_eq!(a.failures(), ["GA_CastSpell Out of range."]);
    let attack = a.tag("Cooldown.Combat.Attack");
    assert!(
        a.gas.time_remaining(&a.world, alice, attack).is_zero(),
        "nothing stamped"
    );
    a.at(1.0);
    let body = *a.world.get::<&Kinematic>(alice).unwrap();
    assert_eq!(body.position(a.gas.now()), Vec2::ZERO, "no walk-up");
    a.cast(alice, bob, "Far Bolt");
    assert_eq!(a.attacks().len(), 1);
}

// ------------------------------------------------------------- entry

impl Arena {
    /// The engage event on its own, as game code might send it.
    fn engage_directly(&mut self, attacker: Entity, target: Entity) {
        let event = GameplayEvent::new(self.tag("Action.Trigger.Combat.Engage")).target(target);
        self.send(attacker, event);
    }

    fn position(&self, entity: Entity) -> Vec2 {
        self.world
            .get::<&Kinematic>(entity)
            .unwrap()
            .position(self.gas.now())
    }

    fn move_order(&mut self, entity: Entity, x: f64) -> usize {
        let runtime = self.runtime.clone();
        combat::move_order(
            &runtime,
            &mut self.world,
            &mut self.gas,
            entity,
            Vec2::new(x, 0.0),
        )
        .unwrap()
    }
}

#[test]
fn an_engagement_starts_within_reach_and_in_sight_after_a_walk_up() {
    // Bob hides behind a wall until 4.0.
    struct Wall;
    impl combat::LineOfSight for Wall {
        fn visible(&self, _: &World, _: Entity, _: Entity, now: SimTime) -> bool {
            now >= SimTime::from_secs_f64(4.0).unwrap()
        }
    }
    let mut a = Arena::with_sight(std::sync::Arc::new(Wall));
    let alice = a.spawn("alice", 0.0, 200.0, Some("Test Sword"));
    let bob = a.spawn("bob", 1000.0, 0.0, None);
    // The engage gate: out of range, refused.
    a.engage_directly(alice, bob);
    assert_eq!(a.failures(), ["GA_AutoAttack Out of range."]);
    // The attack click walks up: 750 cm at 200 cm/s puts her within the
    // sword's 250 cm at 3.75, seen at the 3.8 poll...
    a.engage(alice, bob);
    a.at(3.8);
    assert!(a.has(alice, "Action.QueuedInteract") && a.has(alice, "State.Chasing"));
    assert!(!a.engaged(alice));
    // ...but out of sight: engaging directly is refused there too, and the
    // walk-up goes on until the wall stops hiding bob.
    a.engage_directly(alice, bob);
    assert_eq!(a.failures()[1..], ["GA_AutoAttack Out of range."]);
    a.at(3.9);
    assert!(a.has(alice, "Action.QueuedInteract"));
    a.at(4.0);
    assert!(a.engaged(alice));
    assert!(!a.has(alice, "Action.QueuedInteract") && !a.has(alice, "State.Chasing"));
    assert_eq!(a.attack_times("alice"), [4.0], "the first swing at once");
    let phases: Vec<(f64, ChasePhase)> = a.chase_steps();
    assert!(matches!(phases.first(), Some((t, ChasePhase::Begin(_))) if *t == 0.0));
    assert!(matches!(phases.last(), Some((t, ChasePhase::End)) if *t == 4.0));
}

/// Arrival ends the chase and halts the body before the engage: the
/// walker stays where it came within reach rather than coasting on to the
/// point the chase last sent it to (the target itself).
#[test]
fn a_walk_up_halts_the_body_where_it_arrives() {
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 200.0, Some("Test Sword"));
    let bob = a.spawn("bob", 1000.0, 0.0, None);
    a.engage(alice, bob);
    // Within the sword's 250 cm at 3.75, seen at the 3.8 poll (760 cm).
    a.at(3.8);
    assert!(a.engaged(alice));
    let arrived = a.position(alice);
    assert_eq!(arrived, Vec2::new(760.0, 0.0));
    a.at(6.0);
    assert_eq!(a.position(alice), arrived, "halted, not walked onto bob");
    assert_eq!(a.attack_times("alice"), [3.8]);
}

/// The target's death ends a walk-up at once, as it ends an engagement:
/// the death flow respawns the target in the same instant, so a walk-up
/// that looked only at its next poll would find it alive again and walk
/// on to fight it at the respawn point.
#[test]
fn the_targets_death_ends_the_walk_up() {
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 200.0, Some("Test Sword"));
    let bob = a.spawn("bob", 1000.0, 0.0, None);
    a.engage(alice, bob);
    a.at(1.0);
    assert!(a.has(alice, "Action.QueuedInteract") && a.has(alice, "State.Chasing"));
    let death = GameplayEvent::new(a.tag("Combat.Event.Death"));
    a.send(bob, death);
    assert!(!a.has(bob, "Status.Dead"), "respawned in the same instant");
    assert!(!a.has(alice, "Action.QueuedInteract") && !a.has(alice, "State.Chasing"));
    assert!(!a.world.get::<&Combatant>(alice).unwrap().chase.is_active());
    a.at(20.0);
    assert!(!a.engaged(alice));
    assert!(a.attack_times("alice").is_empty(), "never engaged");
}

#[test]
fn a_move_order_cancels_the_walk_up_and_the_engagement() {
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 200.0, Some("Test Sword"));
    let bob = a.spawn("bob", 1000.0, 0.0, None);
    a.engage(alice, bob);
    a.at(1.0);
    assert!(a.has(alice, "Action.QueuedInteract"));
    assert_eq!(a.position(alice), Vec2::new(200.0, 0.0));
    // Walking away on her own order: the walk-up ends, the body obeys.
    assert_eq!(a.move_order(alice, -500.0), 1);
    assert!(!a.has(alice, "Action.QueuedInteract") && !a.has(alice, "State.Chasing"));
    assert!(!a.world.get::<&Combatant>(alice).unwrap().chase.is_active());
    a.at(2.0);
    assert_eq!(a.position(alice), Vec2::new(0.0, 0.0));
    a.at(10.0);
    assert!(a.attack_times("alice").is_empty(), "never engaged");

    // Engaged next to carol, a move order ends the loop through teardown.
    let carol = a.spawn("carol", a.position(alice).x + 100.0, 0.0, None);
    let tx = a.position(alice).x;
    a.engage(alice, carol);
    assert!(a.engaged(alice));
    assert_eq!(a.move_order(alice, tx - 1000.0), 1);
    a.assert_torn_down(alice, carol);
    a.at(20.0);
    assert_eq!(a.attack_times("alice"), [10.0], "one swing, then she left");
}

/// A move order to a point that is not one (a client's click carrying
/// NaN or infinity) is refused, and nothing changes: the engagement goes
/// on and the body keeps its place. It moved the body to NaN, where no
/// range test passes and no snapshot is accepted.
#[test]
fn a_move_order_to_no_point_is_refused_and_changes_nothing() {
    let (mut a, alice, bob) = engaged_pair();
    let here = a.position(alice);
    let runtime = a.runtime.clone();
    for to in [Vec2::new(f64::NAN, 0.0), Vec2::new(0.0, f64::INFINITY)] {
        let refused = combat::move_order(&runtime, &mut a.world, &mut a.gas, alice, to);
        assert_eq!(refused, Err(a.tag("Activation.Fail.InvalidPayload")));
    }
    assert!(a.engaged(alice));
    a.at(1.5);
    assert_eq!(a.position(alice), here);
    let target = a.world.get::<&Combatant>(alice).unwrap().targeting.target;
    assert_eq!(target, Some(bob));
    let saved = gaskit::snapshot::Snapshot::<combat::CombatComponents>::save(&a.world, &a.gas);
    assert!(saved.restore(&mut a.world, &mut a.gas).is_ok());
}

#[test]
fn moving_the_body_otherwise_cancels_nothing() {
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 200.0, Some("Test Sword"));
    let bob = a.spawn("bob", 1000.0, 0.0, None);
    a.engage(alice, bob);
    a.at(1.0);
    // A knock-back the game applies straight to the body is not an order.
    a.world
        .get::<&mut Kinematic>(alice)
        .unwrap()
        .move_to(Vec2::new(-300.0, 0.0), SimTime::from_secs_f64(1.0).unwrap());
    a.at(1.05);
    assert!(a.has(alice, "Action.QueuedInteract"));
}

// ------------------------------------------------------------- chase

#[test]
fn a_kiting_target_is_chased_with_rate_limited_reissues_and_swings_resume_in_range() {
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 400.0, Some("Test Sword"));
    let bob = a.spawn("bob", 1000.0, 0.0, None);
    // Bob walks away slower than alice can chase.
    a.world.get::<&mut Kinematic>(bob).unwrap().speed = 150.0;
    a.world
        .get::<&mut Kinematic>(bob)
        .unwrap()
        .move_to(Vec2::new(2000.0, 0.0), SimTime::ZERO);
    a.engage(alice, bob);
    a.at(20.0);
    let steps = a.chase_steps();
    assert!(
        matches!(steps[0], (t, ChasePhase::Begin(to)) if t == 0.0 && to == Vec2::new(1000.0, 0.0))
    );
    let reissues: Vec<f64> = steps
        .iter()
        .filter(|(_, p)| matches!(p, ChasePhase::Reissue(_)))
        .map(|(t, _)| *t)
        .collect();
    assert!(!reissues.is_empty());
    // Rate limit: at least 1/4 s apart (the Default kind refreshes at 4 Hz).
    let mut last = 0.0;
    for t in &reissues {
        assert!(t - last >= 0.25 - 1e-9, "re-issues at {reissues:?}");
        last = *t;
    }
    // Drift gate: bob moves 150 cm/s, so 50 cm of drift takes a third of a second.
    assert!(
        reissues.windows(2).all(|w| w[1] - w[0] >= 0.333 - 1e-9),
        "{reissues:?}"
    );
    // Caught up: the chase ends and swings start at a chase poll.
    let end = steps
        .iter()
        .find(|(_, p)| *p == ChasePhase::End)
        .expect("caught up")
        .0;
    let first_swing = a.attack_times("alice")[0];
    assert_eq!(
        first_swing, end,
        "swing at the poll that found bob in range"
    );
    assert!(first_swing < 10.0);
    // Bob keeps walking. A swing is on time (2.4 s) unless he slipped out of
    // range, in which case it lands exactly at the chase poll that found
    // him back in range: never blindly a whole interval later.
    let swings = a.attack_times("alice");
    let ends: Vec<f64> = steps
        .iter()
        .filter(|(_, p)| *p == ChasePhase::End)
        .map(|(t, _)| *t)
        .collect();
    assert!(swings.len() >= 4, "{swings:?}");
    for pair in swings.windows(2) {
        let gap = ((pair[1] - pair[0]) * 1000.0).round() / 1000.0;
        assert!(gap >= 2.4, "{swings:?}");
        if gap > 2.4 {
            assert!(
                ends.contains(&pair[1]),
                "late swing at {} is a chase arrival: {ends:?}",
                pair[1]
            );
            let poll = (pair[1] * 10.0).round() / 10.0;
            assert_eq!(pair[1], poll, "arrivals are found on the 0.1 s chase poll");
        }
    }
}

/// An attack click on another target, out of reach, while engaged and
/// chasing: the click is a fresh order, so the engagement ends and the
/// walk-up goes to the new target and engages it there. The walk-up and
/// the loop used to share the one chase: the walk-up polled the loop's
/// chase of the old target, and the loop went on swinging at it.
#[test]
fn an_attack_click_on_another_target_while_chasing_switches_to_it() {
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 200.0, Some("Test Sword"));
    let bob = a.spawn("bob", 200.0, 0.0, None);
    let carol = a.spawn("carol", -1000.0, 0.0, None);
    a.engage(alice, bob);
    assert!(a.engaged(alice));
    // Bob walks away faster than alice: she chases him.
    a.world.get::<&mut Kinematic>(bob).unwrap().speed = 250.0;
    a.world
        .get::<&mut Kinematic>(bob)
        .unwrap()
        .move_to(Vec2::new(5000.0, 0.0), SimTime::ZERO);
    // The swing at 2.4 finds him out of reach: the loop chases.
    a.at(3.0);
    assert!(a.has(alice, "State.Chasing"));
    a.engage(alice, carol);
    assert!(!a.engaged(alice), "the click ends the engagement");
    assert!(a.has(alice, "Action.QueuedInteract"));
    // From about 600 cm she walks 1 350 cm back to within the sword's reach.
    a.at(14.0);
    assert!(a.engaged(alice));
    let target = a.world.get::<&Combatant>(alice).unwrap().targeting.target;
    assert_eq!(target, Some(carol));
    assert!(a.position(alice).x < -700.0, "{:?}", a.position(alice));
    let after_click: Vec<_> = a
        .attacks()
        .into_iter()
        .filter(|(t, who, _)| *t > 3.0 && who == "alice")
        .collect();
    assert!(!after_click.is_empty());
    let targets = a.records(|t, record| match record {
        CombatRecord::Attack {
            attacker, target, ..
        } if t > 2.0 && *attacker == alice => Some(*target),
        _ => None,
    });
    assert!(
        targets.iter().all(|&t| t == carol),
        "no swing at bob after the click"
    );
}

/// The other way round: an engage on a target within reach while a
/// walk-up to another is under way ends the walk-up, so the new loop does
/// not share the one chase with it (each ended the other's chase at every
/// poll, and the walker coasted and restarted).
#[test]
fn an_engage_during_a_walk_up_to_another_target_ends_the_walk_up() {
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 200.0, Some("Test Sword"));
    let bob = a.spawn("bob", 100.0, 0.0, None);
    let carol = a.spawn("carol", -2000.0, 0.0, None);
    a.engage(alice, carol);
    a.at(0.5);
    assert!(a.has(alice, "Action.QueuedInteract") && a.has(alice, "State.Chasing"));
    a.engage_directly(alice, bob);
    assert!(a.engaged(alice));
    assert!(!a.has(alice, "Action.QueuedInteract"), "the walk-up ended");
    // The body coasts on to where the walk-up last sent it (a cancel ends
    // the chase, not the motion), and the loop brings it back to bob:
    // every chase from the engage on is bob's, and every swing at him.
    a.at(6.0);
    assert!(!a.has(alice, "Action.QueuedInteract"));
    let target = a.world.get::<&Combatant>(alice).unwrap().targeting.target;
    assert_eq!(target, Some(bob));
    let chased = a.records(|t, record| match record {
        CombatRecord::Chase { chaser, target, .. } if t > 0.5 && *chaser == alice => Some(*target),
        _ => None,
    });
    assert!(chased.iter().all(|&t| t == bob), "{chased:?}");
    let swung = a.records(|_, record| match record {
        CombatRecord::Attack {
            attacker, target, ..
        } if *attacker == alice => Some(*target),
        _ => None,
    });
    assert!(
        swung.len() >= 2 && swung.iter().all(|&t| t == bob),
        "{swung:?}"
    );
}

#[test]
fn a_target_that_drifts_out_of_range_during_the_swing_window_is_chased_not_hit() {
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 200.0, Some("Test Sword"));
    let bob = a.spawn("bob", 200.0, 0.0, None);
    a.engage(alice, bob);
    a.at(1.0);
    // Bob teleports far away between swings.
    a.world.get::<&mut Kinematic>(bob).unwrap().from = Vec2::new(2000.0, 0.0);
    a.world.get::<&mut Kinematic>(bob).unwrap().to = Vec2::new(2000.0, 0.0);
    a.at(2.4);
    assert_eq!(a.attack_times("alice"), [0.0], "no hit at distance");
    assert!(matches!(a.chase_steps().last(), Some((t, ChasePhase::Begin(_))) if *t == 2.4));
    // Alice needs (2000 - 250) / 200 = 8.75 s; the next poll after 2.4 + 8.75 swings.
    a.at(12.0);
    let times = round3(a.attack_times("alice"));
    assert_eq!(times, [0.0, 11.2]);
}

#[test]
fn moving_never_cancels_the_loop() {
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 200.0, Some("Test Sword"));
    let bob = a.spawn("bob", 100.0, 0.0, None);
    a.engage(alice, bob);
    let moving = a.tag("State.Moving");
    a.gas.add_loose_tag(&mut a.world, alice, moving, false);
    a.at(3.0);
    assert!(a.engaged(alice));
    assert_eq!(a.attack_times("alice"), [0.0, 2.4]);
}

// ------------------------------------------------------------- end paths

fn engaged_pair() -> (Arena, Entity, Entity) {
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 0.0, Some("Test Sword"));
    let bob = a.spawn("bob", 100.0, 0.0, None);
    a.engage(alice, bob);
    a.at(1.0);
    a.cast(alice, bob, "Test Bolt");
    assert!(a
        .world
        .get::<&Combatant>(alice)
        .unwrap()
        .targeting
        .pending_weave
        .is_some());
    assert!(a
        .world
        .get::<&Combatant>(bob)
        .unwrap()
        .attackers
        .current
        .contains(&alice));
    (a, alice, bob)
}

#[test]
fn every_end_path_tears_the_engagement_down() {
    // Stun.
    let (mut a, alice, bob) = engaged_pair();
    let stun = a.catalog().effects().get("GE_Stun").unwrap();
    let stunned = a.tag("Status.Stunned");
    a.gas
        .apply_effect(
            &mut a.world,
            alice,
            EffectSpec::new(stun).with_set_by_caller(stunned, 1.0),
        )
        .unwrap();
    a.assert_torn_down(alice, bob);

    // A modal (parent match).
    let (mut a, alice, bob) = engaged_pair();
    let banking = a.tag("Action.Modal.Banking");
    a.gas.add_loose_tag(&mut a.world, alice, banking, false);
    a.assert_torn_down(alice, bob);

    // Disengage.
    let (mut a, alice, bob) = engaged_pair();
    let disengage = GameplayEvent::new(a.tag("Action.Trigger.Combat.Disengage"));
    a.send(alice, disengage);
    a.assert_torn_down(alice, bob);

    // Explicit cancel of Action.Combat.AutoAttack.
    let (mut a, alice, bob) = engaged_pair();
    let with: TagSet = std::iter::once(a.tag("Action.Combat.AutoAttack")).collect();
    assert_eq!(
        a.gas
            .cancel_abilities(&mut a.world, alice, &with, &TagSet::new()),
        1
    );
    a.assert_torn_down(alice, bob);

    // Owner death.
    let (mut a, alice, bob) = engaged_pair();
    let death = GameplayEvent::new(a.tag("Combat.Event.Death"));
    a.send(alice, death);
    a.assert_torn_down(alice, bob);

    // Target death: ends at once, not at the next swing.
    let (mut a, alice, bob) = engaged_pair();
    let death = GameplayEvent::new(a.tag("Combat.Event.Death"));
    a.send(bob, death);
    a.assert_torn_down(alice, bob);
    a.at(10.0);
    assert_eq!(a.attack_times("alice"), [0.0]);

    // Target despawned through the context.
    let (mut a, alice, bob) = engaged_pair();
    a.gas.despawn(&mut a.world, bob);
    a.assert_torn_down(alice, bob);

    // Target despawned behind the context's back: noticed at the next poll.
    let (mut a, alice, bob) = engaged_pair();
    a.world.despawn(bob).unwrap();
    a.at(2.4);
    a.assert_torn_down(alice, bob);

    // Every end path, mid-chase: the chase ends with the loop.
    type EndPath = fn(&mut Arena, Entity, Entity);
    let ends: [(&str, EndPath); 4] = [
        ("disengage", |a, alice, _| {
            let disengage = GameplayEvent::new(a.tag("Action.Trigger.Combat.Disengage"));
            a.send(alice, disengage);
        }),
        ("move order", |a, alice, _| {
            a.move_order(alice, 0.0);
        }),
        ("target death", |a, _, bob| {
            let death = GameplayEvent::new(a.tag("Combat.Event.Death"));
            a.send(bob, death);
        }),
        ("stun", |a, alice, _| {
            let stun = a.catalog().effects().get("GE_Stun").unwrap();
            let spec = EffectSpec::new(stun).with_set_by_caller(a.tag("Status.Stunned"), 1.0);
            a.gas.apply_effect(&mut a.world, alice, spec).unwrap();
        }),
    ];
    for (end, run) in ends {
        let mut a = Arena::new();
        let alice = a.spawn("alice", 0.0, 100.0, Some("Test Sword"));
        let bob = a.spawn("bob", 100.0, 0.0, None);
        a.engage(alice, bob);
        a.at(1.0);
        teleport(&mut a, bob, 3000.0);
        a.at(3.0);
        assert!(a.has(alice, "State.Chasing"), "{end}: chasing since 2.4");
        run(&mut a, alice, bob);
        a.assert_torn_down(alice, bob);
        assert!(
            matches!(a.chase_steps().last(), Some((t, ChasePhase::End)) if *t == 3.0),
            "{end}"
        );
    }

    // Owner despawned through the context: the target's slot is freed.
    let (mut a, alice, bob) = engaged_pair();
    a.gas.despawn(&mut a.world, alice);
    assert!(a
        .world
        .get::<&Combatant>(bob)
        .unwrap()
        .attackers
        .current
        .is_empty());
}

#[test]
fn line_of_sight_lost_past_the_tolerance_ends_the_engagement() {
    struct Blind;
    impl combat::LineOfSight for Blind {
        fn visible(&self, _: &World, _: Entity, _: Entity, now: SimTime) -> bool {
            now < SimTime::from_secs_f64(3.0).unwrap()
        }
    }
    let mut a = Arena::with_sight(std::sync::Arc::new(Blind));
    let alice = a.spawn("alice", 0.0, 0.0, Some("Test Sword"));
    let bob = a.spawn("bob", 100.0, 0.0, None);
    a.engage(alice, bob);
    // Sight goes at 3.0; the loop first notices at its 4.8 poll, re-polls
    // every 0.1 s, and gives up once more than the 1 s tolerance has passed.
    a.at(5.8);
    assert!(a.engaged(alice), "within the tolerance");
    a.at(5.9);
    a.assert_torn_down(alice, bob);
    assert_eq!(a.attack_times("alice"), [0.0, 2.4]);
}

/// Within the tolerance the pursuit goes on: a target that walks out of
/// sight (and out of reach) is chased, and the walk that brings it back
/// in sight ends in a swing. The loop stood still until the tolerance ran
/// out, so a target rounding a corner always got away.
#[test]
fn a_target_out_of_sight_is_chased_within_the_tolerance() {
    // Bob is out of alice's sight while more than 400 cm away.
    struct Far;
    impl combat::LineOfSight for Far {
        fn visible(&self, world: &World, from: Entity, to: Entity, now: SimTime) -> bool {
            let at = |e| world.get::<&Kinematic>(e).unwrap().position(now);
            (at(to).x - at(from).x).abs() <= 400.0
        }
    }
    let mut a = Arena::with_sight(std::sync::Arc::new(Far));
    let alice = a.spawn("alice", 0.0, 300.0, Some("Test Sword"));
    let bob = a.spawn("bob", 100.0, 0.0, None);
    a.engage(alice, bob);
    // Bob jumps 600 cm away at 1.0 and stays there.
    a.at(1.0);
    a.world
        .get::<&mut Kinematic>(bob)
        .unwrap()
        .move_to(Vec2::new(700.0, 0.0), SimTime::from_secs_f64(1.0).unwrap());
    a.world.get::<&mut Kinematic>(bob).unwrap().speed = 1e9;
    // The 2.4 poll finds him out of sight: alice walks toward him, sees
    // him again within 400 cm before the tolerance runs out, and swings
    // once within reach.
    a.at(2.5);
    assert!(a.has(alice, "State.Chasing"), "pursued while out of sight");
    a.at(6.0);
    assert!(a.engaged(alice));
    let swings = a.attack_times("alice");
    assert_eq!(swings.len(), 2, "{swings:?}");
    assert!(swings[1] > 2.4 && swings[1] < 4.5, "{swings:?}");
}

#[test]
fn regaining_sight_restarts_the_tolerance() {
    struct Flicker;
    impl combat::LineOfSight for Flicker {
        fn visible(&self, _: &World, _: Entity, _: Entity, now: SimTime) -> bool {
            let secs = now.as_secs_f64();
            secs < 3.0 || (5.0..6.0).contains(&secs)
        }
    }
    let mut a = Arena::with_sight(std::sync::Arc::new(Flicker));
    let alice = a.spawn("alice", 0.0, 0.0, Some("Test Sword"));
    let bob = a.spawn("bob", 100.0, 0.0, None);
    a.engage(alice, bob);
    // Lost at the 4.8 poll, back at 5.0 (the attack goes), lost again from
    // 6.0 and noticed at the 7.4 poll: the tolerance counts from 7.4, not
    // from the first loss at 4.8.
    a.at(8.4);
    assert!(a.engaged(alice), "within the tolerance of the second loss");
    assert_eq!(a.attack_times("alice"), [0.0, 2.4, 5.0]);
    a.at(8.5);
    a.assert_torn_down(alice, bob);
}

// ------------------------------------------------------------- ceiling

#[test]
fn a_fourth_attacker_is_rejected_and_every_end_path_frees_a_slot() {
    let mut a = Arena::new();
    let boss = a.spawn("boss", 0.0, 0.0, None);
    let raiders: Vec<Entity> = (0..4)
        .map(|i| a.spawn(&format!("r{i}"), 50.0 + i as f64, 0.0, None))
        .collect();
    for &r in &raiders[..3] {
        a.engage(r, boss);
    }
    assert!(
        !a.runtime.would_accept_attacker(&a.world, boss, raiders[3]),
        "the peek says no"
    );
    assert!(
        a.runtime.would_accept_attacker(&a.world, boss, raiders[0]),
        "already in: idempotent"
    );
    // The click peeks and is refused before any walk.
    a.engage(raiders[3], boss);
    assert_eq!(
        a.failures(),
        ["GA_QueuedInteract That target is overwhelmed."]
    );
    assert!(!a.engaged(raiders[3]));
    assert!(!a.has(raiders[3], "Action.QueuedInteract"), "no walk-up");

    // Each end path frees a slot for the fourth.
    let disengage = GameplayEvent::new(a.tag("Action.Trigger.Combat.Disengage"));
    a.send(raiders[0], disengage);
    assert!(a.runtime.would_accept_attacker(&a.world, boss, raiders[3]));
    a.engage(raiders[3], boss);
    assert!(a.engaged(raiders[3]));

    let death = GameplayEvent::new(a.tag("Combat.Event.Death"));
    a.send(raiders[1], death);
    assert_eq!(
        a.world
            .get::<&Combatant>(boss)
            .unwrap()
            .attackers
            .current
            .len(),
        2
    );
    a.gas.despawn(&mut a.world, raiders[2]);
    assert_eq!(
        a.world
            .get::<&Combatant>(boss)
            .unwrap()
            .attackers
            .current
            .as_slice(),
        [raiders[3]]
    );
}

/// The click's peek is best effort: a place taken while the walker walks
/// is refused on arrival, by the engage's own check.
#[test]
fn a_place_taken_during_the_walk_up_is_refused_on_arrival() {
    let mut a = Arena::new();
    let boss = a.spawn("boss", 0.0, 0.0, None);
    let near: Vec<Entity> = (0..3)
        .map(|i| a.spawn(&format!("r{i}"), 50.0 + i as f64, 0.0, None))
        .collect();
    let walker = a.spawn("walker", 1000.0, 200.0, None);
    a.engage(near[0], boss);
    a.engage(near[1], boss);
    a.engage(walker, boss);
    assert!(a.failures().is_empty(), "a place was free at the click");
    assert!(a.has(walker, "Action.QueuedInteract"));
    a.engage(near[2], boss);
    a.at(6.0);
    assert_eq!(a.failures(), ["GA_AutoAttack That target is overwhelmed."]);
    assert!(!a.engaged(walker) && !a.has(walker, "Action.QueuedInteract"));
}

// ------------------------------------------------------------- range

#[test]
fn the_engage_gate_and_the_swing_gate_agree_for_every_weapon_class() {
    // (weapon, autocast spell, range the resolver must give)
    let cases: &[(Option<&str>, Option<&str>, f64)] = &[
        (Some("Plain Sword"), None, 250.0),
        (Some("Test Sword"), None, 250.0),
        (Some("Plain Bow"), None, 2000.0),
        (Some("Plain Wand"), None, 2000.0),
        (Some("Oak Shortbow"), None, 1800.0),
        (Some("Oak Wand"), None, 1200.0),
        (None, None, 250.0),
        (Some("Plain Sword"), Some("Far Bolt"), 3000.0),
        (Some("Plain Bow"), Some("Even Bolt"), 2000.0),
    ];
    for &(weapon, autocast, range) in cases {
        for (distance, inside) in [(range - 1.0, true), (range + 1.0, false)] {
            let mut a = Arena::new();
            let alice = a.spawn("alice", 0.0, 0.0, weapon);
            let bob = a.spawn("bob", distance, 0.0, None);
            let arrows = a
                .catalog()
                .section::<CombatDefs>()
                .unwrap()
                .item_named("Bronze Arrow")
                .unwrap();
            let ammo_slot = a.runtime.tags()[native::ITEM_SLOT_AMMO];
            a.world
                .get::<&mut Combatant>(alice)
                .unwrap()
                .equipment
                .put(ammo_slot, arrows, 10);
            if let Some(spell) = autocast {
                let id = a
                    .catalog()
                    .section::<CombatDefs>()
                    .unwrap()
                    .spell_named(spell)
                    .unwrap();
                a.world
                    .get::<&mut Combatant>(alice)
                    .unwrap()
                    .spellbook
                    .autocast = Some(id);
            }
            let stats = combat::snapshot(&a.runtime, &a.world, alice, a.gas.now()).unwrap();
            assert_eq!(stats.range_cm, range, "{weapon:?} {autocast:?}");
            let engage_gate = a.runtime.can_engage(&a.world, &a.gas, alice, bob).is_ok();
            a.engage(alice, bob);
            let swung = !a.attack_times("alice").is_empty();
            assert_eq!(
                engage_gate, inside,
                "engage gate, {weapon:?} {autocast:?} at {distance}"
            );
            assert_eq!(
                swung, inside,
                "swing gate, {weapon:?} {autocast:?} at {distance}"
            );
        }
    }
}

#[test]
fn misses_and_hits_for_zero_are_different_records() {
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 0.0, None);
    let bob = a.spawn("bob", 100.0, 0.0, None);
    a.world.get::<&mut Combatant>(alice).unwrap().skills = Skills::all_at(1);
    a.engage(alice, bob);
    a.at(2.4 * 200.0);
    let outcomes = a.records(|_, record| match *record {
        CombatRecord::Attack { outcome, .. } => Some(outcome),
        _ => None,
    });
    assert!(outcomes.contains(&AttackOutcome::Miss));
    assert!(
        outcomes.contains(&AttackOutcome::Hit(0)),
        "a level-1 fist can hit for 0"
    );
}

/// A swing's cue reaches a cue observer whether or not the trace records
/// cues: with the trace off, an observer of the hit cues sees the cues a
/// recording trace holds for the same fight, a miss flagged as one and a
/// hit for zero not.
#[test]
fn a_cue_observer_sees_every_swing_cue_with_the_trace_off() {
    let swing_cues = |record: bool| {
        let mut a = Arena::new();
        if !record {
            a.gas.trace_mut().set_filter(TraceFilter::NONE);
        }
        let (hit_cues, miss) = (a.tag("GameplayCue.Combat.Hit"), a.tag("Combat.Event.Miss"));
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = seen.clone();
        a.gas
            .observe(Observe::cue(hit_cues), move |_, gas, observed| {
                if let Some(TraceKind::Cue {
                    magnitude, tags, ..
                }) = observed.kind()
                {
                    let at = gas.now().as_secs_f64();
                    log.lock().unwrap().push((at, *magnitude, tags.has(miss)));
                }
            });
        let alice = a.spawn("alice", 0.0, 0.0, None);
        let bob = a.spawn("bob", 100.0, 0.0, None);
        a.world.get::<&mut Combatant>(alice).unwrap().skills = Skills::all_at(1);
        a.engage(alice, bob);
        a.at(2.4 * 200.0);
        let recorded: Vec<(f64, f64, bool)> = a
            .gas
            .trace()
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                TraceKind::Cue {
                    cue,
                    magnitude,
                    tags,
                    ..
                } if cue.matches(hit_cues) => {
                    Some((e.time.as_secs_f64(), *magnitude, tags.has(miss)))
                }
                _ => None,
            })
            .collect();
        let observed = seen.lock().unwrap().clone();
        (observed, recorded)
    };
    let (observed_off, recorded_off) = swing_cues(false);
    let (observed_on, recorded_on) = swing_cues(true);
    assert!(recorded_off.is_empty(), "the trace was off");
    assert_eq!(
        observed_on, recorded_on,
        "an observer sees what the trace records"
    );
    assert_eq!(observed_off, observed_on, "and the same with the trace off");
    let misses = observed_off.iter().filter(|(_, _, miss)| *miss).count();
    let zeros = observed_off
        .iter()
        .filter(|(_, amount, miss)| !miss && *amount == 0.0)
        .count();
    assert!(misses > 0 && zeros > 0, "{observed_off:?}");
}

/// A click on the target already engaged changes nothing: the queued
/// weave stays (only a disengage or the target's death drops it) and the
/// loop keeps its cadence. A click on another target switches, and the
/// weave, aimed at the first, is dropped.
#[test]
fn re_engaging_the_engaged_target_keeps_the_loop_and_its_weave() {
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 0.0, Some("Test Sword"));
    let bob = a.spawn("bob", 100.0, 0.0, None);
    let carol = a.spawn("carol", -100.0, 0.0, None);
    a.engage(alice, bob);
    a.at(1.0);
    a.cast(alice, bob, "Even Bolt");
    a.engage(alice, bob);
    a.engage_directly(alice, bob);
    assert_eq!(
        a.failures(),
        [
            "GA_QueuedInteract Already doing that.",
            "GA_AutoAttack Already doing that."
        ]
    );
    assert!(a.engaged(alice));
    a.at(3.0);
    assert_eq!(
        a.what_when(),
        [
            (0.0, "swing".to_owned()),
            (2.4, "weave Even Bolt".to_owned())
        ],
        "the weave went at its tick"
    );
    a.cast(alice, bob, "Even Bolt");
    a.engage(alice, carol);
    let dropped =
        a.records(|_, record| matches!(record, CombatRecord::WeaveDropped { .. }).then_some(()));
    assert_eq!(dropped.len(), 1, "a switch drops the weave");
    assert_eq!(
        a.world.get::<&Combatant>(alice).unwrap().targeting.target,
        Some(carol)
    );
}

/// A walk-up a client asked for asks, on arrival, with the client's
/// authority: a payload naming a server-only ability (the death flow's
/// trigger, a free respawn) is refused there, while an engage goes ahead.
#[test]
fn a_clients_walk_up_cannot_deliver_a_server_only_interaction() {
    let mut a = Arena::new();
    let alice = a.spawn("alice", 0.0, 200.0, Some("Test Sword"));
    let bob = a.spawn("bob", 400.0, 0.0, None);
    let client = gaskit::ClientId(1);
    a.world.insert_one(alice, gaskit::NetOwner(client)).unwrap();
    let walk = |a: &Arena, payload: &str| {
        GameplayEvent::new(a.tag("Action.Trigger.QueuedInteract"))
            .target(bob)
            .instigator(alice)
            .payload(a.tag(payload))
            .from_client(client)
    };
    let death = walk(&a, "Combat.Event.Death");
    a.send(alice, death);
    a.at(2.0);
    assert_eq!(a.failures(), ["GA_Death You cannot do that."]);
    let died = a.records(|_, r| matches!(r, CombatRecord::Died { .. }).then_some(()));
    assert!(died.is_empty(), "no death flow ran");

    let engage = walk(&a, "Action.Trigger.Combat.Engage");
    a.send(alice, engage);
    assert!(a.engaged(alice), "a client may engage");
}
