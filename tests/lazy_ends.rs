//! Lazy ends, on content that is not combat: a scholar's spell cooldowns
//! and a refreshed mark of inspiration end lazily (a duration and tags no
//! rule reacts to). Each must read as gone from its end instant on though
//! nothing has cleared it yet; be told at that instant to whatever watches
//! (the trace, observers, waits), including watchers that arrived after it
//! began; and leave the same state, keys and checksums whether or not
//! anything watched. Nothing here uses `gaskit::combat`.

use std::sync::{Arc, Mutex};

use gaskit::prelude::*;
use gaskit::snapshot::{self, Snapshot};
use gaskit::WorkLimits;
use hecs::{Entity, World};

const TAGS: &str = "
Cooldown.Spell.Bolt
Cooldown.Spell.Blink
Status.Inspired
Status.Focused
Action.Trigger.Bolt
Action.Trigger.Await
Action.Trigger.Study
";

const CONTENT: &str = r#"(
    attributes: [(name: "Stamina", base: 10), (name: "Mana", base: 100, min: 0)],
    effects: [
        (name: "GE_Bolt_Cooldown", duration: Duration(SetByCaller("Cooldown.Spell.Bolt")),
         granted_tags: ["Cooldown.Spell.Bolt"]),
        (name: "GE_Blink_Cooldown", duration: Duration(SetByCaller("Cooldown.Spell.Blink")),
         granted_tags: ["Cooldown.Spell.Blink"]),
        // Refreshed by every good idea, for 3 s.
        (name: "GE_Inspired", duration: Duration(Constant(3)), granted_tags: ["Status.Inspired"],
         stacking: (by: Target, limit: 1)),
        // Holds a modifier, so it ends by its expiry timer; it cannot be
        // taken while the bolt cools down.
        (name: "GE_Focus", duration: Duration(Constant(2)), granted_tags: ["Status.Focused"],
         modifiers: [(attribute: "Stamina", op: Flat, magnitude: Constant(1))],
         application_requirements: (none: ["Cooldown.Spell.Bolt"])),
        (name: "GE_Bolt_Cost", modifiers: [(attribute: "Mana", op: Flat, magnitude: Constant(-10))]),
    ],
    abilities: [
        (name: "GA_Bolt", trigger: "Action.Trigger.Bolt", cost: "GE_Bolt_Cost",
         cooldown: (effect: "GE_Bolt_Cooldown", seconds: 2), behaviour: ApplyEffects([])),
        // Waits for the bolt's cooldown to end: for its tag to go
        // (magnitude 0) or for the effect itself (magnitude 1).
        (name: "GA_Await", trigger: "Action.Trigger.Await", behaviour: Registered("Await")),
        // Studies only between bolts, and only when uninspired.
        (name: "GA_Study", trigger: "Action.Trigger.Study",
         activation_blocked: (any: ["Cooldown.Spell.Bolt"]),
         activation_required: (none: ["Status.Inspired"]),
         behaviour: ApplyEffects([])),
    ],
)"#;

/// When each `GA_Await` instance woke, and why.
type Wakes = Arc<Mutex<Vec<String>>>;

/// Waits for the bolt's cooldown to end, by tag or by effect.
struct Await(Wakes);

impl AbilityBehaviour for Await {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        let bolt = cx.gas.catalog().tags().get("Cooldown.Spell.Bolt").unwrap();
        if cx.event.magnitude == Some(1.0) {
            let cooldown = cx.gas.catalog().effects().get("GE_Bolt_Cooldown").unwrap();
            let system = cx.world.get::<&AbilitySystem>(cx.owner).unwrap();
            let key = system
                .effects()
                .effects(cx.gas.now())
                .find(|&(_, id)| id == cooldown)
                .map(|(key, _)| key)
                .expect("a bolt cooling down");
            drop(system);
            cx.wait_effect_removed(key);
        } else {
            cx.wait_tag_removed(bolt);
        }
    }

    fn wake(&self, cx: &mut AbilityCx<'_>, reason: WakeReason) {
        let why = match reason {
            WakeReason::TagRemoved(_) => "tag",
            WakeReason::EffectRemoved(_) => "effect",
            _ => "other",
        };
        self.0
            .lock()
            .unwrap()
            .push(format!("{}us {why}", cx.gas.now().as_micros()));
        cx.end();
    }
}

struct Study {
    world: World,
    gas: Gas,
    scholar: Entity,
    wakes: Wakes,
}

impl Study {
    /// A scholar, with the trace recording `filter`.
    fn new(filter: TraceFilter) -> Self {
        let mut builder = CatalogBuilder::new();
        builder.tags().add_source("study.tags", TAGS);
        builder.add_source("study.ron", CONTENT);
        let mut gas = Gas::new(builder.build().unwrap_or_else(|e| panic!("{e}")));
        gas.trace_mut().set_filter(filter);
        let wakes = Wakes::default();
        gas.register_behaviour("Await", Await(wakes.clone()))
            .unwrap();
        let mut world = World::new();
        let scholar = world.spawn((Name("scholar".into()), gas.new_ability_system()));
        for ability in ["GA_Bolt", "GA_Await", "GA_Study"] {
            let id = gas.catalog().abilities().get(ability).unwrap();
            gas.grant_ability(&mut world, scholar, id, 1).unwrap();
        }
        Study {
            world,
            gas,
            scholar,
            wakes,
        }
    }

    fn tag(&self, name: &str) -> Tag {
        self.gas.catalog().tags().get(name).unwrap()
    }

    fn effect(&self, name: &str) -> EffectId {
        self.gas.catalog().effects().get(name).unwrap()
    }

    fn cooldown(&self, spell: &str, seconds: f64) -> EffectSpec {
        let tag = format!("Cooldown.Spell.{spell}");
        EffectSpec::new(self.effect(&format!("GE_{spell}_Cooldown")))
            .with_set_by_caller(self.tag(&tag), seconds)
    }

    fn apply(&mut self, spec: EffectSpec) -> ApplyOutcome {
        self.gas
            .apply_effect(&mut self.world, self.scholar, spec)
            .unwrap()
    }

    fn inspire(&mut self) -> ApplyOutcome {
        self.apply(EffectSpec::new(self.effect("GE_Inspired")))
    }

    fn at(&mut self, seconds: f64) {
        let to = SimTime::ZERO + SimDuration::from_secs_f64(seconds).unwrap();
        self.gas.advance_to(&mut self.world, to);
        let broken = gaskit::invariants::check(&self.world, &self.gas);
        assert!(broken.is_empty(), "{broken:?}");
    }

    fn has(&self, tag: &str) -> bool {
        self.gas.has_tag(&self.world, self.scholar, self.tag(tag))
    }

    fn checksum(&self) -> u64 {
        snapshot::checksum::<()>(&self.world, &self.gas)
    }

    /// Every read of the scholar's effects and tags at the current instant.
    fn reads(&self) -> String {
        let now = self.gas.now();
        let system = self.world.get::<&AbilitySystem>(self.scholar).unwrap();
        let defs = self.gas.catalog().effects();
        let effects: Vec<_> = system.effects().effects(now).collect();
        let windows: Vec<_> = effects
            .iter()
            .map(|&(key, _)| {
                (
                    system.effects().effect(key, now),
                    system.effects().remaining(key, now),
                    system.effects().is_inhibited(key, now),
                )
            })
            .collect();
        let bolt = self.tag("Cooldown.Spell.Bolt");
        format!(
            "{effects:?} {windows:?} count {} tags {:?} bolt {:?} inspired stacks {} checksum {:x}",
            system.effects().effect_count(now),
            system.tags(defs, now).iter().collect::<Vec<_>>(),
            system.effects().time_remaining(defs, now, bolt),
            system.stack_count(self.effect("GE_Inspired"), now),
            self.checksum(),
        )
    }

    /// `(instant, effect)` of every expiry the trace recorded.
    fn expiries(&self) -> Vec<(String, String)> {
        let defs = self.gas.catalog().effects();
        self.gas
            .trace()
            .events()
            .iter()
            .filter_map(|e| match e.kind {
                TraceKind::EffectRemoved {
                    effect,
                    reason: RemovalReason::Expired,
                    ..
                } => Some((e.time.to_string(), defs.def(effect).name.clone())),
                _ => None,
            })
            .collect()
    }

    fn wakes(&self) -> Vec<String> {
        self.wakes.lock().unwrap().clone()
    }
}

#[test]
fn a_tag_and_a_duration_no_rule_reacts_to_end_lazily() {
    let study = Study::new(TraceFilter::NONE);
    let lazy: Vec<&str> = study
        .gas
        .catalog()
        .effects()
        .iter()
        .filter(|def| def.ends_lazily())
        .map(|def| def.name.as_str())
        .collect();
    assert_eq!(
        lazy,
        ["GE_Bolt_Cooldown", "GE_Blink_Cooldown", "GE_Inspired"]
    );
}

/// A lazy end arms no timer, and from its instant on every read (tags,
/// effects, windows, stacks, the activation's cooldown gate, an
/// application's requirements, removal) treats it as gone, though nothing
/// has touched the scholar since: the state reads, and checksums, as the
/// traced twin's, whose end was told and cleared at its instant.
#[test]
fn a_lazy_end_reads_as_gone_from_its_instant_though_nothing_cleared_it() {
    let mut quiet = Study::new(TraceFilter::NONE);
    let mut traced = Study::new(TraceFilter::ALL);
    let bolt = quiet.gas.catalog().abilities().get("GA_Bolt").unwrap();
    let study_ability = quiet.gas.catalog().abilities().get("GA_Study").unwrap();
    let focus = EffectSpec::new(quiet.effect("GE_Focus"));
    let mut keys = Vec::new();
    for study in [&mut quiet, &mut traced] {
        let ApplyOutcome::Added(key) = study.apply(study.cooldown("Bolt", 1.0)) else {
            panic!("a cooldown begins");
        };
        keys.push(key);
        assert_eq!(study.gas.pending_timers(), 0, "no expiry timer armed");
        study.at(0.999_999);
        assert!(study.has("Cooldown.Spell.Bolt"));
        let refused = study
            .gas
            .can_activate(&study.world, study.scholar, bolt, None);
        assert!(
            matches!(refused, Err(ActivationFailure::Cooldown { .. })),
            "{refused:?}"
        );
        assert_eq!(
            study
                .gas
                .can_apply_effect(&study.world, study.scholar, &focus),
            Err(BlockReason::Requirements)
        );
        assert!(matches!(
            study
                .gas
                .can_activate(&study.world, study.scholar, study_ability, None),
            Err(ActivationFailure::BlockedByTags { .. })
        ));
    }
    assert_eq!(quiet.reads(), traced.reads());
    for study in [&mut quiet, &mut traced] {
        study.at(1.0);
    }
    assert_eq!(keys[0], keys[1]);
    assert_eq!(quiet.reads(), traced.reads());
    assert_eq!(
        traced.expiries(),
        [("1.000".into(), "GE_Bolt_Cooldown".into())]
    );
    assert!(quiet.gas.trace().events().is_empty());
    for study in [&mut quiet, &mut traced] {
        assert!(!study.has("Cooldown.Spell.Bolt"));
        let owned = study.gas.owned_tags(&study.world, study.scholar).unwrap();
        assert_eq!(owned.count(study.tag("Cooldown.Spell.Bolt")), 0);
        assert_eq!(
            study.gas.time_remaining_and_duration(
                &study.world,
                study.scholar,
                study.tag("Cooldown.Spell.Bolt")
            ),
            None
        );
        assert_eq!(
            study
                .gas
                .can_activate(&study.world, study.scholar, bolt, None),
            Ok(())
        );
        assert_eq!(
            study
                .gas
                .can_apply_effect(&study.world, study.scholar, &focus),
            Ok(())
        );
        assert_eq!(
            study
                .gas
                .can_activate(&study.world, study.scholar, study_ability, None),
            Ok(())
        );
        let system = study.world.get::<&AbilitySystem>(study.scholar).unwrap();
        let now = study.gas.now();
        assert_eq!(system.effects().effect_count(now), 0);
        assert_eq!(system.effects().effect(keys[0], now), None);
        assert_eq!(system.effects().remaining(keys[0], now), None);
        drop(system);
        assert!(!study
            .gas
            .remove_effect(&mut study.world, study.scholar, keys[0]));
    }
    // The next cooldown takes the freed slot in both: the same key.
    let next = [&mut quiet, &mut traced].map(|s| s.apply(s.cooldown("Blink", 1.0)));
    assert_eq!(next[0], next[1]);
    assert_eq!(quiet.reads(), traced.reads());
}

/// Watched or not, lazy ends leave the same state at every step, in the
/// same slots; a watched host has each told at its own instant, a
/// refreshed window's at the end of the last refresh, later or earlier.
#[test]
fn watched_or_not_lazy_ends_leave_the_same_state_and_are_told_at_their_instants() {
    let mut quiet = Study::new(TraceFilter::NONE);
    let mut traced = Study::new(TraceFilter::ALL);
    type Step = fn(&mut Study) -> String;
    let steps: [(f64, Step); 8] = [
        (0.0, |s| format!("{:?}", s.apply(s.cooldown("Bolt", 1.5)))),
        (0.0, |s| format!("{:?}", s.inspire())),
        (0.5, |s| format!("{:?}", s.apply(s.cooldown("Blink", 0.5)))),
        // The mark, refreshed later than its first end (3 s).
        (2.0, |s| format!("{:?}", s.inspire())),
        // Two lazy ends at one instant (the bolt's and the blink's).
        (2.0, |s| format!("{:?}", s.apply(s.cooldown("Bolt", 1.0)))),
        (2.0, |s| format!("{:?}", s.apply(s.cooldown("Blink", 1.0)))),
        (3.5, |s| format!("{:?}", s.apply(s.cooldown("Bolt", 0.5)))),
        (9.0, |s| format!("{:?}", s.inspire())),
    ];
    for (at, step) in steps {
        let mut seen = Vec::new();
        for study in [&mut quiet, &mut traced] {
            study.at(at);
            let before = study.reads();
            let did = step(study);
            seen.push((before, did, study.reads()));
        }
        assert_eq!(seen[0], seen[1], "at {at}");
    }
    for study in [&mut quiet, &mut traced] {
        study.at(20.0);
    }
    assert_eq!(quiet.reads(), traced.reads());
    let told = |at: &str, effect: &str| (at.to_owned(), effect.to_owned());
    assert_eq!(
        traced.expiries(),
        [
            told("1.000", "GE_Blink_Cooldown"),
            told("1.500", "GE_Bolt_Cooldown"),
            told("3.000", "GE_Bolt_Cooldown"),
            told("3.000", "GE_Blink_Cooldown"),
            told("4.000", "GE_Bolt_Cooldown"),
            told("5.000", "GE_Inspired"),
            told("12.000", "GE_Inspired"),
        ]
    );
}

/// A wait that begins after the effect it waits on (nothing watched the
/// scholar when the cooldown began, so its end was not noticed then) is
/// woken at the effect's end, whether it waits for the tag or the effect.
#[test]
fn a_wait_begun_after_a_lazy_effect_is_woken_at_its_end() {
    for (magnitude, why) in [(0.0, "tag"), (1.0, "effect")] {
        let mut study = Study::new(TraceFilter::NONE);
        study.apply(study.cooldown("Bolt", 2.0));
        study.at(0.5);
        let wait = GameplayEvent::new(study.tag("Action.Trigger.Await")).magnitude(magnitude);
        study.gas.send_event(study.scholar, wait);
        study.at(1.0);
        assert!(study.wakes().is_empty());
        study.at(5.0);
        assert_eq!(study.wakes(), [format!("2000000us {why}")]);
        assert!(study.gas.trace().events().is_empty());
    }
}

/// A trace that starts recording mid-run is told the lazy ends still to
/// come, at their instants, and not those that passed before it started.
#[test]
fn a_trace_started_mid_run_is_told_the_lazy_ends_still_to_come() {
    let mut study = Study::new(TraceFilter::NONE);
    study.apply(study.cooldown("Blink", 0.25));
    study.apply(study.cooldown("Bolt", 1.0));
    study.inspire();
    study.at(0.5);
    study.gas.trace_mut().set_filter(TraceFilter::ALL);
    study.at(4.0);
    assert_eq!(
        study.expiries(),
        [
            ("1.000".to_owned(), "GE_Bolt_Cooldown".to_owned()),
            ("3.000".to_owned(), "GE_Inspired".to_owned()),
        ]
    );
}

/// A snapshot taken while an ended effect still waits to be cleared holds
/// the cleared state: it checksums as the traced twin's, and restored, the
/// run goes on exactly as the twin's (keys included).
#[test]
fn a_snapshot_of_an_uncleared_lazy_end_restores_the_cleared_state() {
    let mut quiet = Study::new(TraceFilter::NONE);
    let mut traced = Study::new(TraceFilter::ALL);
    for study in [&mut quiet, &mut traced] {
        study.apply(study.cooldown("Bolt", 1.0));
        study.inspire();
        study.at(1.5);
    }
    let saved = Snapshot::<()>::save(&quiet.world, &quiet.gas);
    assert_eq!(saved.checksum(), traced.checksum());
    let text = saved.to_ron().unwrap();
    let mut restored = Study::new(TraceFilter::NONE);
    Snapshot::<()>::from_ron(&text)
        .unwrap()
        .restore(&mut restored.world, &mut restored.gas)
        .unwrap();
    assert_eq!(restored.reads(), traced.reads());
    for study in [&mut restored, &mut traced] {
        study.apply(study.cooldown("Blink", 2.0));
        study.at(2.5);
        study.inspire();
        study.at(6.0);
    }
    assert_eq!(restored.reads(), traced.reads());
}

/// A tag a lazy end still holds, read before anything clears it, counts
/// only its other references: a loose one keeps it owned (the parent too),
/// and the copy of the counts agrees with the one-tag reads.
#[test]
fn an_uncleared_lazy_end_subtracts_only_its_own_reference() {
    let mut study = Study::new(TraceFilter::NONE);
    let bolt = study.tag("Cooldown.Spell.Bolt");
    let spells = study.gas.catalog().tags().get("Cooldown.Spell").unwrap();
    study.apply(study.cooldown("Bolt", 1.0));
    study.apply(study.cooldown("Blink", 1.0));
    study
        .gas
        .add_loose_tag(&mut study.world, study.scholar, bolt, false);
    study.at(1.0);
    let system = study.world.get::<&AbilitySystem>(study.scholar).unwrap();
    let (defs, now) = (study.gas.catalog().effects(), study.gas.now());
    assert!(system.has_exact_tag(defs, now, bolt));
    assert!(system.has_tag(defs, now, spells));
    assert!(!system.has_tag(defs, now, study.tag("Cooldown.Spell.Blink")));
    let owned = system.tags(defs, now);
    assert_eq!(owned.iter().collect::<Vec<_>>(), [(bolt, 1)]);
    drop(system);
    study
        .gas
        .remove_loose_tag(&mut study.world, study.scholar, bolt)
        .unwrap();
    assert!(!study.has("Cooldown.Spell"));
}

/// A host holding many effects keeps its lazy ends in end order instead
/// of scanning for them: a dozen cooldowns of different lengths, some
/// stamped again as they end, end at their instants, in the same slots,
/// watched or not; one removed early leaves no trace of its end.
#[test]
fn a_host_holding_many_effects_finds_its_lazy_ends_in_order() {
    let mut quiet = Study::new(TraceFilter::NONE);
    let mut traced = Study::new(TraceFilter::ALL);
    for study in [&mut quiet, &mut traced] {
        for i in 0..12 {
            study.apply(study.cooldown("Bolt", 0.5 + f64::from(i % 5) * 0.25));
        }
        study.inspire();
    }
    assert_eq!(quiet.reads(), traced.reads());
    let mut removed = Vec::new();
    for step in 1..=12 {
        let at = f64::from(step) * 0.25;
        let mut seen = Vec::new();
        for study in [&mut quiet, &mut traced] {
            study.at(at);
            if step % 3 == 0 {
                study.apply(study.cooldown("Blink", 0.3));
            }
            if step == 4 {
                let (now, bolt) = (study.gas.now(), study.effect("GE_Bolt_Cooldown"));
                let last = study
                    .world
                    .get::<&AbilitySystem>(study.scholar)
                    .unwrap()
                    .effects()
                    .effects(now)
                    .filter(|&(_, id)| id == bolt)
                    .last()
                    .map(|(key, _)| key)
                    .unwrap();
                removed.push(
                    study
                        .gas
                        .remove_effect(&mut study.world, study.scholar, last),
                );
            }
            seen.push(study.reads());
        }
        assert_eq!(seen[0], seen[1], "at {at}");
    }
    assert_eq!(removed, [true, true]);
    for study in [&mut quiet, &mut traced] {
        study.at(10.0);
    }
    assert_eq!(quiet.reads(), traced.reads());
    let bolts = traced
        .expiries()
        .iter()
        .filter(|(_, effect)| effect == "GE_Bolt_Cooldown")
        .map(|(at, _)| at.clone())
        .collect::<Vec<_>>();
    assert_eq!(
        bolts,
        [
            "0.500", "0.500", "0.500", "0.750", "0.750", "0.750", "1.000", "1.000", "1.250",
            "1.250", "1.500"
        ],
        "eleven of twelve end on time, one removed before its end"
    );
}

/// A trace switched off, then on again before the clock moves, still
/// tells the lazy ends begun while it was off (and so does an observer
/// registered in that window).
#[test]
fn a_trace_switched_off_and_on_between_steps_still_tells_what_began_meanwhile() {
    let mut study = Study::new(TraceFilter::NONE);
    study.gas.trace_mut().set_filter(TraceFilter::ALL);
    study.gas.trace_mut().set_filter(TraceFilter::NONE);
    study.apply(study.cooldown("Bolt", 1.0));
    study.gas.trace_mut().set_filter(TraceFilter::ALL);
    let told = Arc::new(Mutex::new(Vec::new()));
    let seen = told.clone();
    let blink = study.tag("Cooldown.Spell.Blink");
    study.gas.trace_mut().set_filter(TraceFilter::NONE);
    study.apply(study.cooldown("Blink", 0.5));
    study
        .gas
        .observe(Observe::tag_removed(blink), move |_, gas, _| {
            seen.lock().unwrap().push(gas.now().to_string());
        });
    study.gas.trace_mut().set_filter(TraceFilter::ALL);
    study.at(2.0);
    assert_eq!(
        study.expiries(),
        [
            ("0.500".to_owned(), "GE_Blink_Cooldown".to_owned()),
            ("1.000".to_owned(), "GE_Bolt_Cooldown".to_owned()),
        ]
    );
    assert_eq!(*told.lock().unwrap(), ["0.500"]);
}

/// Lazy ends a waiting instance hears are work: past an instant's budget
/// they are told a microsecond later. A snapshot taken at that instant
/// keeps those untold ends (it does not clear a waiting host's) and that
/// the budget ran out, so a restored run wakes every wait when the saved
/// one does (it woke them a microsecond early), and the two runs meet
/// again.
#[test]
fn untold_ends_on_waiting_hosts_survive_a_snapshot() {
    let setup = || {
        let mut study = Study::new(TraceFilter::NONE);
        study.gas.set_work_limits(WorkLimits {
            per_instant: 5,
            ..WorkLimits::default()
        });
        let await_ability = study.gas.catalog().abilities().get("GA_Await").unwrap();
        let scholars: Vec<Entity> = (0..10)
            .map(|_| {
                let scholar = study.world.spawn((study.gas.new_ability_system(),));
                study
                    .gas
                    .grant_ability(&mut study.world, scholar, await_ability, 1)
                    .unwrap();
                let cooldown = study.cooldown("Bolt", 1.0);
                study
                    .gas
                    .apply_effect(&mut study.world, scholar, cooldown)
                    .unwrap();
                let wait = GameplayEvent::new(study.tag("Action.Trigger.Await"));
                study.gas.send_event(scholar, wait);
                scholar
            })
            .collect();
        study.at(0.5);
        (study, scholars)
    };
    let (mut original, _) = setup();
    original.at(1.0);
    assert_eq!(original.wakes().len(), 5, "five told, five deferred");
    let saved = Snapshot::<()>::save(&original.world, &original.gas);
    let (mut restored, _) = setup();
    saved
        .restore(&mut restored.world, &mut restored.gas)
        .unwrap();
    restored.wakes.lock().unwrap().clear();
    original.wakes.lock().unwrap().clear();
    for study in [&mut original, &mut restored] {
        study.at(2.0);
        assert_eq!(study.wakes().len(), 5, "the deferred five wake");
    }
    assert_eq!(original.wakes()[0], "1000001us tag");
    assert_eq!(original.wakes(), restored.wakes());
    assert_eq!(original.checksum(), restored.checksum());
}

/// The end of time: a host that keeps an index of its many lazy ends is
/// cleared there, and everything returns.
#[test]
fn the_end_of_time_clears_a_host_of_many_lazy_ends() {
    let mut study = Study::new(TraceFilter::NONE);
    for i in 0..10 {
        study.apply(study.cooldown("Bolt", 1.0 + f64::from(i)));
    }
    study.gas.advance_to(&mut study.world, SimTime::MAX);
    assert_eq!(study.gas.now(), SimTime::MAX);
    study.apply(study.cooldown("Blink", 1.0));
    let saved = Snapshot::<()>::save(&study.world, &study.gas);
    assert_eq!(saved.checksum(), study.checksum());
    let system = study.world.get::<&AbilitySystem>(study.scholar).unwrap();
    assert_eq!(system.effects().effect_count(study.gas.now()), 0);
}

/// An end of no length applied since the last step, on an entity only an
/// observer watches, is still to be told when a snapshot is taken: the
/// save keeps it, and a restored run tells the observer of it as the
/// saved run does. (It was saved cleared, and the observer, game code
/// that may act on it, never heard of it after a restore.)
#[test]
fn an_untold_end_an_observer_hears_survives_a_snapshot() {
    let mut study = Study::new(TraceFilter::NONE);
    let heard = Arc::new(Mutex::new(Vec::new()));
    let log = heard.clone();
    study.gas.observe(
        Observe::tag_removed(study.tag("Cooldown.Spell.Bolt")),
        move |_, gas, _| log.lock().unwrap().push(gas.now().as_micros()),
    );
    study.at(1.0);
    study.apply(study.cooldown("Bolt", 0.0));
    let saved = Snapshot::<()>::save(&study.world, &study.gas);
    let taken = study.checksum();
    study.at(2.0);
    assert_eq!(*heard.lock().unwrap(), [1_000_000], "told at its instant");
    let ahead = study.checksum();
    saved.restore(&mut study.world, &mut study.gas).unwrap();
    assert_eq!(study.checksum(), taken);
    study.at(2.0);
    assert_eq!(
        *heard.lock().unwrap(),
        [1_000_000, 1_000_000],
        "and again after the restore"
    );
    assert_eq!(study.checksum(), ahead);
}

/// A window of no length ends at once whether the effect ends lazily or
/// on a timer: a doze (a tag and nothing else, so lazy) and a chime (the
/// same with a removal cue, so it ends on a timer) applied for zero
/// seconds are neither held nor among the effects after the call, and the
/// chime's end is told. (The chime held its tag until the next step, so
/// whether a zero cooldown blocked a re-activation at the same instant
/// depended on whether anything in the catalog made the effect end on a
/// timer.)
#[test]
fn a_window_of_no_length_ends_at_once_lazily_or_not() {
    let mut builder = CatalogBuilder::new();
    builder.tags().add_source(
        "bell.tags",
        "Cooldown.Doze\nCooldown.Chime\nCooldown.Gong\nGameplayCue.Chime\n",
    );
    builder.add_source(
        "bell.ron",
        r#"(effects: [
            (name: "GE_Doze", duration: Duration(SetByCaller("Cooldown.Doze")),
             granted_tags: ["Cooldown.Doze"]),
            (name: "GE_Chime", duration: Duration(SetByCaller("Cooldown.Chime")),
             granted_tags: ["Cooldown.Chime"], cues: [(tag: "GameplayCue.Chime", on: Remove)]),
            (name: "GE_Gong", duration: Duration(SetByCaller("Cooldown.Gong")),
             granted_tags: ["Cooldown.Gong"], cues: [(tag: "GameplayCue.Chime", on: Remove)],
             stacking: (by: Target, limit: 3, duration: Refresh)),
        ])"#,
    );
    let mut gas = Gas::new(builder.build().unwrap_or_else(|e| panic!("{e}")));
    gas.trace_mut().set_filter(TraceFilter::ALL);
    let mut world = World::new();
    let bell = world.spawn((gas.new_ability_system(),));
    gas.advance_to(&mut world, SimTime::from_secs(1));
    for (effect, tag) in [("GE_Doze", "Cooldown.Doze"), ("GE_Chime", "Cooldown.Chime")] {
        let id = gas.catalog().effects().get(effect).unwrap();
        let tag = gas.catalog().tags().get(tag).unwrap();
        let spec = EffectSpec::new(id).with_set_by_caller(tag, 0.0);
        let ApplyOutcome::Added(key) = gas.apply_effect(&mut world, bell, spec).unwrap() else {
            panic!("{effect} is added");
        };
        assert!(!gas.has_tag(&world, bell, tag), "{effect}");
        let system = world.get::<&AbilitySystem>(bell).unwrap();
        assert_eq!(system.effects().effect(key, gas.now()), None, "{effect}");
    }
    assert_eq!(
        gas.pending_timers(),
        0,
        "no timer left for an end that came"
    );
    // A stack refreshed to a window of no length ends at once too, every
    // stack of it.
    let gong = gas.catalog().effects().get("GE_Gong").unwrap();
    let gong_tag = gas.catalog().tags().get("Cooldown.Gong").unwrap();
    for seconds in [5.0, 5.0, 0.0] {
        let spec = EffectSpec::new(gong).with_set_by_caller(gong_tag, seconds);
        gas.apply_effect(&mut world, bell, spec).unwrap();
    }
    assert!(
        !gas.has_tag(&world, bell, gong_tag),
        "the gong's window closed"
    );
    assert_eq!(gas.pending_timers(), 0);
    let chime = gas.catalog().effects().get("GE_Chime").unwrap();
    assert!(gas.trace().events().iter().any(|e| matches!(
        e.kind,
        TraceKind::EffectRemoved { effect, .. } if effect == chime
    )));
}
