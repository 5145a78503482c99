//! What a live server meets: weeks of running, hostile clients, rollbacks.
//! One test per finding of the adversarial review (issue #12), on a small
//! core-only game (a watchtower with guards and channelled spells), plus a
//! server-shaped soak over the combat layer.
//!
//! `GASKIT_SOAK=H` runs the soak for H simulated hours (default a quarter
//! of an hour), e.g.
//! `GASKIT_SOAK=24 cargo test --release --test server soak -- --nocapture`.

use std::sync::Arc;

use gaskit::prelude::*;
use gaskit::snapshot::{self, Snapshot, SnapshotError};
use gaskit::{Advance, ClientEvent, ClientField, Drained, Reserved, TimerQueue, WorkLimits};
use hecs::{Entity, World};

const TAGS: &str = "
Ability.Trigger.Ward
Ability.Trigger.Drink
Ability.Trigger.Glare
Ability.Event.Pulse
Status.Warded
Status.Stunned
Status.Glared
SetByCaller.Amount
";

const CONTENT: &str = r#"(
    attributes: [
        (name: "Vigor", base: 100, min: 0, max: 1000),
        (name: "Thirst", base: 50, min: 0),
    ],
    derived: [(name: "Guard", rules: [(target: "Vigor", base: 120, terms: [])])],
    effects: [
        (name: "GE_Ward", duration: Duration(Constant(2)), granted_tags: ["Status.Warded"]),
        (name: "GE_Stun", duration: Duration(SetByCaller("SetByCaller.Amount")),
         granted_tags: ["Status.Stunned"]),
        (name: "GE_Drink", modifiers: [(attribute: "Thirst", op: Flat,
         magnitude: SetByCaller("SetByCaller.Amount"))]),
        (name: "GE_Vigil", duration: Infinite, period: (seconds: 1.0),
         modifiers: [(attribute: "Vigor", op: Flat, magnitude: Constant(1))]),
        (name: "GE_Far", duration: Duration(Constant(1000000))),
    ],
    abilities: [
        // A server-only channel: waits for pulses, stuns the event's target.
        (name: "GA_Ward", trigger: "Ability.Trigger.Ward", net: ServerOnly,
         behaviour: Registered("Channel")),
        // A client may drink, between 0 and 10 at a time.
        (name: "GA_Drink", trigger: "Ability.Trigger.Drink", net: LocalPredicted,
         client_magnitude: (0, 10),
         behaviour: ApplyEffects([(effect: "GE_Drink", to: Owner, event_magnitude: "SetByCaller.Amount")])),
        // A client may glare: no magnitude accepted.
        (name: "GA_Glare", trigger: "Ability.Trigger.Glare", net: LocalPredicted,
         behaviour: Registered("Channel")),
    ],
)"#;

/// Waits for `Ability.Event.Pulse`; each pulse stuns the activating
/// event's target for a second.
struct Channel {
    pulse: Tag,
    stun: EffectId,
    amount: Tag,
}

impl AbilityBehaviour for Channel {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        cx.wait_event(self.pulse);
    }

    fn wake(&self, cx: &mut AbilityCx<'_>, _reason: WakeReason) {
        if let Some(target) = cx.event.target {
            let stun = EffectSpec::new(self.stun).with_set_by_caller(self.amount, 1.0);
            let _ = cx.apply_effect(target, stun);
        }
        cx.wait_event(self.pulse);
    }
}

fn catalog() -> Arc<Catalog> {
    let mut builder = CatalogBuilder::new();
    builder.tags().add_source("tower.tags", TAGS);
    builder.add_source("tower.ron", CONTENT);
    Arc::new(builder.build().unwrap_or_else(|e| panic!("{e}")))
}

/// A snapshot's serialized form read without its checksum check: how a
/// test makes a damaged file that kept its checksum.
#[derive(serde::Deserialize)]
struct Sealed {
    #[allow(dead_code)]
    checksum: u64,
    snapshot: Snapshot<()>,
}

/// `text` (read past its checksum) restored into a fresh context on
/// `catalog`: refused, with nothing restored; the refusal.
fn refusal(catalog: &Arc<Catalog>, text: &str) -> SnapshotError {
    let sealed: Sealed = ron::from_str(text).unwrap();
    let mut world = World::new();
    let error = sealed
        .snapshot
        .restore(&mut world, &mut Gas::new(catalog.clone()))
        .unwrap_err();
    assert_eq!(world.len(), 0, "nothing restored");
    error
}

/// `text` (read past its checksum) restores into a fresh context on
/// `catalog`: the undamaged save the damaged ones were made from.
fn restores_clean(catalog: &Arc<Catalog>, text: &str) {
    let sealed: Sealed = ron::from_str(text).unwrap();
    let restored = sealed
        .snapshot
        .restore(&mut World::new(), &mut Gas::new(catalog.clone()));
    assert_eq!(restored, Ok(()));
}

fn context(catalog: &Arc<Catalog>) -> Gas {
    let mut gas = Gas::new(catalog.clone());
    let tag = |name: &str| catalog.tags().get(name).unwrap();
    let channel = Channel {
        pulse: tag("Ability.Event.Pulse"),
        stun: catalog.effects().get("GE_Stun").unwrap(),
        amount: tag("SetByCaller.Amount"),
    };
    gas.register_behaviour("Channel", channel).unwrap();
    gas
}

struct Tower {
    world: World,
    gas: Gas,
    catalog: Arc<Catalog>,
}

impl Tower {
    fn new() -> Self {
        let catalog = catalog();
        Tower {
            world: World::new(),
            gas: context(&catalog),
            catalog,
        }
    }

    /// A server-owned guard keeping `GE_Vigil` (a tick and an attribute
    /// change every second, forever).
    fn vigilant_guard(&mut self) -> Entity {
        let guard = self.guard("guard", None);
        let vigil = EffectSpec::new(self.effect("GE_Vigil"));
        self.gas
            .apply_effect(&mut self.world, guard, vigil)
            .unwrap();
        guard
    }

    /// A guard owned by `client` (or the server), granted every ability.
    fn guard(&mut self, name: &str, client: Option<u32>) -> Entity {
        let system = self.gas.new_ability_system();
        let entity = self.world.spawn((Name(name.into()), system));
        if let Some(client) = client {
            let _ = self.world.insert_one(entity, NetOwner(ClientId(client)));
        }
        for ability in ["GA_Ward", "GA_Drink", "GA_Glare"] {
            let id = self.catalog.abilities().get(ability).unwrap();
            self.gas
                .grant_ability(&mut self.world, entity, id, 1)
                .unwrap();
        }
        entity
    }

    fn tag(&self, name: &str) -> Tag {
        self.catalog.tags().get(name).unwrap()
    }

    fn effect(&self, name: &str) -> EffectId {
        self.catalog.effects().get(name).unwrap()
    }

    fn has(&self, entity: Entity, tag: &str) -> bool {
        let tag = self.tag(tag);
        self.gas.has_tag(&self.world, entity, tag)
    }

    fn value(&self, entity: Entity, attribute: &str) -> f64 {
        let id = self.catalog.attributes().get(attribute).unwrap();
        self.world
            .get::<&AbilitySystem>(entity)
            .unwrap()
            .current(id)
    }

    fn handle(&mut self, to: Entity, event: GameplayEvent) -> gaskit::EventOutcome {
        self.gas.handle_event(&mut self.world, to, event)
    }

    fn checksum(&self) -> u64 {
        snapshot::checksum::<()>(&self.world, &self.gas)
    }
}

// ------------------------------------------------------- 1. the trace

#[test]
fn the_default_trace_is_bounded_and_full_recording_is_one_call_away() {
    let mut tower = Tower::new();
    tower.vigilant_guard();
    // Two events a second (the tick and its attribute change) for 6 hours.
    tower
        .gas
        .advance_to(&mut tower.world, SimTime::from_secs(6 * 3600));
    let trace = tower.gas.trace();
    assert_eq!(trace.capacity(), Some(gaskit::Trace::DEFAULT_CAPACITY));
    assert!(trace.events().len() <= gaskit::Trace::DEFAULT_CAPACITY);
    assert!(trace.dropped() > 0);
    assert!(trace.next_seq() > 20_000, "{} recorded", trace.next_seq());
    assert_eq!(trace.first_seq(), trace.dropped(), "numbers continue");
    let last = trace.events().last().unwrap();
    assert_eq!(last.time, SimTime::from_secs(6 * 3600));

    tower.gas.trace_mut().set_capacity(None);
    tower
        .gas
        .advance_to(&mut tower.world, SimTime::from_secs(7 * 3600));
    assert!(tower.gas.trace().events().len() > gaskit::Trace::DEFAULT_CAPACITY);
}

#[test]
fn draining_and_rolling_back_deliver_each_event_exactly_once() {
    // The reference: one run, drained once at the end.
    let run = |rollback: bool| {
        let mut tower = Tower::new();
        tower.vigilant_guard();
        let mut shipped: Vec<(u64, TraceEvent)> = Vec::new();
        let mut ship = |drained: Drained| {
            if let Some(from) = drained.retract_from {
                shipped.retain(|(seq, _)| *seq < from);
            }
            let first = drained.first_seq;
            shipped.extend(
                drained
                    .events
                    .into_iter()
                    .enumerate()
                    .map(|(i, e)| (first + i as u64, e)),
            );
        };
        for second in 1..=10u64 {
            if rollback && second == 4 {
                // Save, run on, ship, roll back: the shipped future is taken back.
                let saved = Snapshot::<()>::save(&tower.world, &tower.gas);
                tower
                    .gas
                    .advance_to(&mut tower.world, SimTime::from_millis(4_500));
                ship(tower.gas.trace_mut().take());
                saved.restore(&mut tower.world, &mut tower.gas).unwrap();
            }
            tower
                .gas
                .advance_to(&mut tower.world, SimTime::from_secs(second));
            ship(tower.gas.trace_mut().take());
        }
        shipped
    };
    let reference = run(false);
    assert!(reference.len() > 15);
    assert_eq!(run(true), reference);
}

#[test]
fn take_until_ships_only_what_no_rollback_can_touch() {
    let mut tower = Tower::new();
    tower.vigilant_guard();
    tower
        .gas
        .advance_to(&mut tower.world, SimTime::from_secs(5));
    let confirmed = tower.gas.trace_mut().take_until(SimTime::from_secs(3));
    assert!(confirmed
        .events
        .iter()
        .all(|e| e.time < SimTime::from_secs(3)));
    assert!(tower
        .gas
        .trace()
        .events()
        .iter()
        .all(|e| e.time >= SimTime::from_secs(3)));
    assert_eq!(
        tower.gas.trace().first_seq(),
        confirmed.first_seq + confirmed.events.len() as u64
    );
}

// ------------------------------------------------------- 2. stalls

/// Waits zero time, forever: content that would hang a naive loop.
struct Spin;

impl AbilityBehaviour for Spin {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        cx.wait_delay(SimDuration::ZERO);
    }

    fn wake(&self, cx: &mut AbilityCx<'_>, _reason: WakeReason) {
        cx.wait_delay(SimDuration::ZERO);
    }
}

/// A context with `limits` and one entity granted `GA_Spin` (content
/// that schedules without end once triggered), not yet triggered.
fn spinning(limits: WorkLimits) -> (Gas, World, Entity) {
    let mut builder = CatalogBuilder::new();
    builder.tags().add_source("spin.tags", "Ability.Spin\n");
    builder.add_source(
        "spin.ron",
        r#"(abilities: [(name: "GA_Spin", trigger: "Ability.Spin", behaviour: Registered("Spin"))])"#,
    );
    let mut gas = Gas::new(builder.build().unwrap());
    gas.register_behaviour("Spin", Spin).unwrap();
    gas.trace_mut().set_filter(TraceFilter::NONE);
    gas.set_work_limits(limits);
    let mut world = World::new();
    let spinner = world.spawn((gas.new_ability_system(),));
    let spin = gas.catalog().abilities().get("GA_Spin").unwrap();
    gas.grant_ability(&mut world, spinner, spin, 1).unwrap();
    (gas, world, spinner)
}

#[test]
fn no_content_can_hang_advance_to() {
    let (mut gas, mut world, spinner) = spinning(WorkLimits {
        per_instant: 1_000,
        per_call: 50_000,
    });
    let trigger = gas.catalog().tags().get("Ability.Spin").unwrap();
    gas.handle_event(&mut world, spinner, GameplayEvent::new(trigger));

    // Each instant's budget spent, what is left moves a microsecond on:
    // the clock advances instead of spinning in place, and the call ends.
    let outcome = gas.advance_to(&mut world, SimTime::from_secs(1));
    assert_eq!(outcome, Advance::Stopped { at: gas.now() });
    assert!(gas.now() > SimTime::ZERO);
    assert!(gas.deferred_timers() > 0);
    let reached = gas.now();
    gas.advance_to(&mut world, SimTime::from_secs(1));
    assert!(gas.now() > reached, "the next call carries on");
}

/// The same content at the last instant there is: with no later
/// microsecond to defer to, the instant's work goes on until the call's
/// budget ends it (it spun forever, or tripped a debug assertion).
#[test]
fn no_content_can_hang_advance_to_at_the_end_of_time() {
    let (mut gas, mut world, spinner) = spinning(WorkLimits {
        per_instant: 10,
        per_call: 1_000,
    });
    assert_eq!(gas.advance_to(&mut world, SimTime::MAX), Advance::Reached);
    let trigger = gas.catalog().tags().get("Ability.Spin").unwrap();
    gas.handle_event(&mut world, spinner, GameplayEvent::new(trigger));

    let outcome = gas.advance_to(&mut world, SimTime::MAX);
    assert_eq!(outcome, Advance::Stopped { at: SimTime::MAX });
    assert_eq!(gas.deferred_timers(), 0, "nowhere later to defer to");
    let mut queue = gaskit::TimerQueue::new();
    queue.schedule(SimTime::from_micros(5), ());
    assert_eq!(
        queue.defer_due(SimTime::from_micros(5), SimTime::from_micros(5)),
        0
    );
    assert_eq!(
        queue.pop_due(SimTime::from_micros(5)),
        Some((SimTime::from_micros(5), ())),
        "kept"
    );
}

/// An effect of no length that ends lazily, re-applied by an observer
/// each time it is told it ended: an endless chain at one instant, told
/// rather than timed, held to the same budgets as timers.
#[test]
fn lazy_ends_re_applied_as_they_are_told_cannot_hang_advance_to() {
    let mut builder = CatalogBuilder::new();
    builder.tags().add_source("blink.tags", "Status.Blink\n");
    builder.add_source(
        "blink.ron",
        r#"(effects: [(name: "GE_Blink", duration: Duration(Constant(0)), granted_tags: ["Status.Blink"])])"#,
    );
    let mut gas = Gas::new(builder.build().unwrap());
    let blink = gas.catalog().effects().get("GE_Blink").unwrap();
    assert!(gas.catalog().effects().def(blink).ends_lazily());
    gas.trace_mut().set_filter(TraceFilter::NONE);
    gas.set_work_limits(WorkLimits {
        per_instant: 1_000,
        per_call: 50_000,
    });
    let mut world = World::new();
    let blinker = world.spawn((gas.new_ability_system(),));
    let tag = gas.catalog().tags().get("Status.Blink").unwrap();
    gas.observe(
        Observe::tag_removed(tag).of(blinker),
        move |world, gas, _| {
            gas.apply_effect(world, blinker, EffectSpec::new(blink))
                .unwrap();
        },
    );
    gas.apply_effect(&mut world, blinker, EffectSpec::new(blink))
        .unwrap();

    let outcome = gas.advance_to(&mut world, SimTime::from_secs(1));
    assert_eq!(outcome, Advance::Stopped { at: gas.now() });
    assert!(gas.now() > SimTime::ZERO, "the clock advances");
    let reached = gas.now();
    gas.advance_to(&mut world, SimTime::from_secs(1));
    assert!(gas.now() > reached, "the next call carries on");
    let broken = gaskit::invariants::check(&world, &gas);
    assert!(broken.is_empty(), "{broken:?}");
}

#[test]
fn advancing_to_the_end_of_time_returns() {
    let mut tower = Tower::new();
    let guard = tower.vigilant_guard();
    tower.gas.set_work_limits(WorkLimits {
        per_call: 10_000,
        ..WorkLimits::default()
    });
    let outcome = tower.gas.advance_to(&mut tower.world, SimTime::MAX);
    assert!(matches!(outcome, Advance::Stopped { .. }));
    assert_eq!(tower.value(guard, "Vigor"), 1000.0, "10 000 ticks, capped");
    // Nothing armed at the end of time either.
    assert_eq!(SimDuration::from_secs(u64::MAX), SimDuration::MAX);
    assert_eq!(SimDuration::from_millis(u64::MAX), SimDuration::MAX);
    assert_eq!(SimTime::from_secs(u64::MAX), SimTime::MAX);
}

#[test]
fn authored_intervals_have_a_floor() {
    let mut builder = CatalogBuilder::new();
    builder.add_source(
        "fast.ron",
        r#"(attributes: [(name: "X")], effects: [(name: "GE_Blur", duration: Infinite,
            period: (seconds: 0.0000005), modifiers: [(attribute: "X", op: Flat, magnitude: Constant(1))])])"#,
    );
    let errors = builder.build().unwrap_err().to_string();
    assert!(
        errors.contains("period must be at least 0.001 s, found 0.0000005"),
        "{errors}"
    );

    let mut builder = gaskit::combat::default_catalog_builder();
    builder.add_source("fast.ron", "(combat: (unarmed_swing_interval: 0))");
    let errors = builder.build().unwrap_err().to_string();
    assert!(
        errors.contains(
            "unarmed_swing_interval must be at least 0.1 s (min_attack_interval), found 0"
        ),
        "{errors}"
    );
}

// ------------------------------------------------------- 3. and 4. authority

#[test]
fn a_client_event_wakes_only_what_the_client_may_drive() {
    let mut tower = Tower::new();
    let (alice, bob, carol) = (
        tower.guard("alice", Some(1)),
        tower.guard("bob", Some(2)),
        tower.guard("carol", Some(3)),
    );
    // The server starts bob's server-only ward channel, aimed at carol.
    let ward = GameplayEvent::new(tower.tag("Ability.Trigger.Ward")).target(carol);
    assert!(tower.handle(bob, ward).activated());
    let pulse = GameplayEvent::new(tower.tag("Ability.Event.Pulse"));

    // Alice's client, and even bob's own, cannot pulse a server-only channel.
    for client in [1, 2] {
        let before = tower.checksum();
        let outcome = tower.handle(bob, pulse.from_client(ClientId(client)));
        assert_eq!((outcome.woken, outcome.refused_wakes), (0, 1));
        assert!(!tower.has(carol, "Status.Stunned"));
        assert_eq!(tower.checksum(), before);
    }
    // The server can.
    assert_eq!(tower.handle(bob, pulse).woken, 1);
    assert!(tower.has(carol, "Status.Stunned"));

    // A client-driven channel wakes for its own client only.
    let glare = GameplayEvent::new(tower.tag("Ability.Trigger.Glare"))
        .target(carol)
        .from_client(ClientId(1));
    assert!(tower.handle(alice, glare).activated());
    assert_eq!(tower.handle(alice, pulse.from_client(ClientId(2))).woken, 0);
    assert_eq!(tower.handle(alice, pulse.from_client(ClientId(1))).woken, 1);
}

#[test]
fn a_client_sets_only_what_a_client_may() {
    let mut tower = Tower::new();
    let (alice, bob) = (tower.guard("alice", Some(1)), tower.guard("bob", Some(2)));
    let drink = GameplayEvent::new(tower.tag("Ability.Trigger.Drink"));
    let refusal = |tower: &mut Tower, event: GameplayEvent| {
        let before = tower.checksum();
        let outcome = tower.handle(alice, event);
        assert_eq!(tower.checksum(), before, "{event:?} changed the world");
        outcome.first_failure()
    };
    // Another entity as instigator.
    let spoofed = drink
        .magnitude(5.0)
        .instigator(bob)
        .from_client(ClientId(1));
    assert_eq!(
        refusal(&mut tower, spoofed),
        Some(ActivationFailure::ClientInput(ClientField::Instigator))
    );
    // A magnitude beyond the ability's bounds: a 31 700-year drink.
    let greedy = drink.magnitude(1e12).from_client(ClientId(1));
    assert_eq!(
        refusal(&mut tower, greedy),
        Some(ActivationFailure::ClientInput(ClientField::Magnitude))
    );
    // An ability that takes no client magnitude refuses any.
    let glare = GameplayEvent::new(tower.tag("Ability.Trigger.Glare"))
        .magnitude(1.0)
        .from_client(ClientId(1));
    assert_eq!(
        refusal(&mut tower, glare),
        Some(ActivationFailure::ClientInput(ClientField::Magnitude))
    );
    // Within the bounds, as the client's own entity: fine.
    let fair = ClientEvent {
        tag: tower.tag("Ability.Trigger.Drink"),
        target: None,
        magnitude: Some(7.0),
        object: None,
        payload: None,
    };
    assert!(tower
        .handle(alice, fair.into_event(ClientId(1), alice))
        .activated());
    assert_eq!(tower.value(alice, "Thirst"), 57.0);
    // The server is not bounded by client rules.
    assert!(tower.handle(alice, drink.magnitude(100.0)).activated());
}

#[test]
fn a_client_message_cannot_claim_an_origin() {
    let tower = Tower::new();
    let fair = ClientEvent {
        tag: tower.tag("Ability.Trigger.Drink"),
        target: None,
        magnitude: Some(1.0),
        object: None,
        payload: None,
    };
    let text = ron::to_string(&fair).unwrap();
    let back: ClientEvent = ron::from_str(&text).unwrap();
    assert_eq!(back, fair);
    // A client adding an origin (or an instigator) is refused at parse.
    for field in ["origin: Server", "instigator: Some(0)"] {
        let forged = text.replacen('(', &format!("({field}, "), 1);
        let parsed = ron::from_str::<ClientEvent>(&forged);
        assert!(parsed.is_err(), "{forged} parsed");
    }
}

/// A client's message names tags as numbers, and may name ones the
/// catalog does not have (a made-up id, or a real id with another subtree
/// end). Such an event is refused (`ClientField::Tag`) or, sent to the
/// queue, dropped: it never runs, and a save taken after restores.
#[test]
fn a_client_event_naming_a_tag_the_catalog_lacks_is_refused_and_never_kept() {
    let mut tower = Tower::new();
    let alice = tower.guard("alice", Some(1));
    let ward = tower.tag("Ability.Trigger.Ward");
    let glare = tower.tag("Ability.Trigger.Glare");
    let text = ron::to_string(&ClientEvent {
        tag: glare,
        target: None,
        magnitude: None,
        object: None,
        payload: Some(ward),
    })
    .unwrap();
    let end = format!("end:{}", ward.subtree_end());
    assert!(text.contains(&end), "{text}");
    // The payload's id is Ability.Trigger.Ward's, its subtree end made up.
    let forged: ClientEvent = ron::from_str(&text.replace(&end, "end:999")).unwrap();
    let event = forged.into_event(ClientId(1), alice);
    assert_eq!(
        tower.gas.can_activate(
            &tower.world,
            alice,
            tower.catalog.abilities().get("GA_Glare").unwrap(),
            Some(&event)
        ),
        Err(ActivationFailure::ClientInput(ClientField::Tag))
    );
    let outcome = tower.handle(alice, event);
    assert_eq!(
        outcome.first_failure(),
        Some(ActivationFailure::ClientInput(ClientField::Tag))
    );
    // Queued, it is dropped, and a save taken now restores.
    tower.gas.send_event(alice, event);
    let nan = GameplayEvent::new(glare)
        .magnitude(f64::NAN)
        .from_client(ClientId(1));
    tower.gas.send_event(alice, nan);
    let saved = Snapshot::<()>::save(&tower.world, &tower.gas);
    let mut world = World::new();
    let mut gas = context(&tower.catalog);
    saved.restore(&mut world, &mut gas).unwrap();
    tower
        .gas
        .advance_by(&mut tower.world, SimDuration::from_secs(1));
    let glare_id = tower.catalog.abilities().get("GA_Glare").unwrap();
    assert!(tower
        .world
        .get::<&AbilitySystem>(alice)
        .unwrap()
        .active_instance(glare_id)
        .is_none());
}

// ------------------------------------------------------- 5. foreign snapshots

/// What a snapshot holds follows the definitions it was taken under (the
/// tags an effect granted, a stack's count under its limit), so it
/// restores only into the same content: a balance patch under the same
/// names (an effect that no longer grants its tag) is another
/// fingerprint, and the snapshot is refused. The same content with other
/// line endings, or split into files that come in another order, is the
/// same fingerprint, and restores.
#[test]
fn a_snapshot_is_refused_by_changed_content_under_the_same_names() {
    const REST: &str = r#"(effects: [(name: "GE_Rest", duration: Duration(Constant(3)), granted_tags: ["Status.Resting"])])"#;
    const MEND: &str = r#"(attributes: [(name: "Mended")])"#;
    let catalog = |files: &[(&str, &str)]| {
        let mut builder = CatalogBuilder::new();
        builder.tags().add_source("rest.tags", "Status.Resting\n");
        builder.add_files(files);
        Arc::new(builder.build().unwrap())
    };
    let taken = catalog(&[("rest.ron", REST), ("mend.ron", MEND)]);
    let mut gas = Gas::new(taken.clone());
    let mut world = World::new();
    let villager = world.spawn((gas.new_ability_system(),));
    let rest = EffectSpec::new(taken.effects().get("GE_Rest").unwrap());
    gas.apply_effect(&mut world, villager, rest).unwrap();
    let saved = Snapshot::<()>::save(&world, &gas);

    let patched = catalog(&[
        (
            "rest.ron",
            &REST.replace(r#", granted_tags: ["Status.Resting"]"#, ""),
        ),
        ("mend.ron", MEND),
    ]);
    assert_ne!(patched.fingerprint(), taken.fingerprint());
    let error = saved
        .restore(&mut World::new(), &mut Gas::new(patched))
        .unwrap_err();
    assert!(
        matches!(error, SnapshotError::ForeignCatalog { .. }),
        "{error}"
    );

    let reordered = catalog(&[("mend.ron", MEND), ("rest.ron", REST)]);
    assert_eq!(reordered.fingerprint(), taken.fingerprint());
    let crlf = catalog(&[
        ("rest.ron", &REST.replace("[(", "[\r\n(")),
        ("mend.ron", MEND),
    ]);
    let lf = catalog(&[
        ("rest.ron", &REST.replace("[(", "[\n(")),
        ("mend.ron", MEND),
    ]);
    assert_eq!(crlf.fingerprint(), lf.fingerprint());
    assert_ne!(lf.fingerprint(), taken.fingerprint(), "other text");
    let mut restored = World::new();
    saved
        .restore(&mut restored, &mut Gas::new(reordered))
        .unwrap();
    assert_eq!(restored.len(), 1);
}

#[test]
fn a_snapshot_fits_only_a_context_that_knows_everything_it_names() {
    let mut tower = Tower::new();
    let guard = tower.guard("guard", Some(1));
    let ward = GameplayEvent::new(tower.tag("Ability.Trigger.Ward")).target(guard);
    assert!(tower.handle(guard, ward).activated());
    let saved = Snapshot::<()>::save(&tower.world, &tower.gas);

    // A catalog without the derived profile: another fingerprint.
    let mut builder = CatalogBuilder::new();
    builder.tags().add_source("tower.tags", TAGS);
    builder.add_source(
        "tower.ron",
        &CONTENT.replace("(name: \"Guard\"", "(name: \"Watch\""),
    );
    let other = Arc::new(builder.build().unwrap());
    assert_ne!(other.fingerprint(), tower.catalog.fingerprint());
    let mut gas = context(&other);
    let mut world = World::new();
    assert!(matches!(
        saved.restore(&mut world, &mut gas),
        Err(SnapshotError::ForeignCatalog { .. })
    ));

    // The same catalog, but the running ward's behaviour is not registered.
    let mut bare = Gas::new(tower.catalog.clone());
    let error = saved.restore(&mut world, &mut bare).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "snapshot does not fit this context: entity {guard:?}: `GA_Ward` is running, and its \
             behaviour `Channel` is not registered with this context"
        )
    );
    assert_eq!(world.len(), 0, "nothing restored");

    // A saved id out of range (a damaged file that kept its checksum).
    let text = saved.to_ron().unwrap();
    let granted = format!(
        "ability:({})",
        tower.catalog.abilities().get("GA_Glare").unwrap().index()
    );
    assert!(text.contains(&granted), "{text}");
    let damaged = text.replace(&granted, "ability:(999)");
    let sealed: Sealed = ron::from_str(&damaged).unwrap();
    let mut gas = context(&tower.catalog);
    let error = sealed.snapshot.restore(&mut world, &mut gas).unwrap_err();
    assert!(
        error
            .to_string()
            .ends_with("ability #999 is not in this catalog"),
        "{error}"
    );
    assert_eq!(world.len(), 0);
}

/// A snapshot lists its entities once each, by id. One out of order, or
/// listing an entity twice (a damaged file that kept its checksum), is
/// refused before anything changes: out of order, an id past the bound
/// slipped by the check of the last, and the search for saved slots missed
/// a game entity sitting in one, which the restore then replaced.
#[test]
fn a_snapshot_listing_its_entities_out_of_order_or_twice_is_refused() {
    let mut tower = Tower::new();
    tower.guard("east", Some(1));
    tower.guard("west", Some(2));
    let text = Snapshot::<()>::save(&tower.world, &tower.gas)
        .to_ron()
        .unwrap();
    // The entries of `entities:[...]`, each a balanced `(...)`.
    let start = text.find("entities:[").unwrap() + "entities:[".len();
    let mut entries = Vec::new();
    let (mut depth, mut from) = (0, start);
    for (at, c) in text[start..].char_indices() {
        match c {
            '(' => {
                if depth == 0 {
                    from = start + at;
                }
                depth += 1;
            }
            ')' => {
                depth -= 1;
                if depth == 0 {
                    entries.push(&text[from..=start + at]);
                }
            }
            ']' if depth == 0 => break,
            _ => {}
        }
    }
    assert!(entries.len() >= 2, "{text}");
    let end = start + entries.iter().map(|e| e.len()).sum::<usize>() + entries.len() - 1;
    let with = |list: Vec<&str>| format!("{}{}{}", &text[..start], list.join(","), &text[end..]);
    let mut swapped = entries.clone();
    swapped.swap(0, 1);
    let mut twice = entries.clone();
    twice.insert(1, entries[0]);
    for damaged in [with(swapped), with(twice)] {
        let sealed: Sealed = ron::from_str(&damaged).unwrap();
        let mut gas = context(&tower.catalog);
        let mut world = World::new();
        let kept = world.spawn((Name("the game's own".into()),));
        let error = sealed.snapshot.restore(&mut world, &mut gas).unwrap_err();
        assert_eq!(
            error,
            SnapshotError::Damaged("entities out of order, or one saved twice".into())
        );
        assert_eq!(world.len(), 1, "nothing restored");
        assert!(world.contains(kept));
    }
    // The list as saved restores.
    let sealed: Sealed = ron::from_str(&with(entries)).unwrap();
    let mut gas = context(&tower.catalog);
    let mut world = World::new();
    assert!(sealed.snapshot.restore(&mut world, &mut gas).is_ok());
}

/// A game component's own check ([`snapshot::RollbackComponent::check`])
/// runs before a restore changes anything: here, a guard's post must be a
/// tag of the catalog, and a snapshot naming another is refused whole.
#[test]
fn a_game_components_own_check_refuses_a_snapshot_before_anything_changes() {
    #[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
    struct Post(Tag);
    impl snapshot::RollbackComponent for Post {
        fn check(&self, catalog: &Catalog) -> Result<(), String> {
            if catalog.tags().knows(self.0) {
                Ok(())
            } else {
                Err(format!(
                    "post #{} is not a tag of this catalog",
                    self.0.index()
                ))
            }
        }
    }
    #[derive(serde::Deserialize)]
    struct Sealed {
        #[allow(dead_code)]
        checksum: u64,
        snapshot: Snapshot<Post>,
    }
    let mut tower = Tower::new();
    let guard = tower.guard("guard", None);
    let post = tower.tag("Ability.Event.Pulse");
    tower.world.insert_one(guard, Post(post)).unwrap();
    let saved = Snapshot::<Post>::save(&tower.world, &tower.gas);
    let text = saved.to_ron().unwrap();

    // The undamaged snapshot restores, the post with it.
    let mut world = World::new();
    let mut gas = context(&tower.catalog);
    saved.restore(&mut world, &mut gas).unwrap();
    assert_eq!(world.get::<&Post>(guard).unwrap().0, post);

    // A post out of the registry (a damaged file that kept its checksum).
    let tag_text = ron::to_string(&Post(post)).unwrap();
    // (Well formed, its subtree holding it: a malformed tag is refused as
    // it is read, before any component's own check.)
    let bad_text = tag_text.replace(
        &format!("id:{},end:{}", post.index(), post.subtree_end()),
        "id:60000,end:60001",
    );
    assert_ne!(bad_text, tag_text);
    assert!(text.contains(&tag_text), "{tag_text} in {text}");
    let sealed: Sealed = ron::from_str(&text.replace(&tag_text, &bad_text)).unwrap();
    let mut world = World::new();
    let mut gas = context(&tower.catalog);
    let error = sealed.snapshot.restore(&mut world, &mut gas).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "snapshot does not fit this context: entity {guard:?}: post #60000 is not a tag of this catalog"
        )
    );
    assert!(matches!(error, SnapshotError::Invalid(_)));
    assert_eq!(world.len(), 0, "nothing restored");
}

/// Only an effect's expiry fires in the expiry lane (everything that ends
/// at an instant ends before anything reacts to it), and every timer an
/// effect or instance holds is pending: a snapshot whose timers say
/// otherwise is refused.
#[test]
fn a_snapshot_whose_timers_do_not_fit_is_refused() {
    let mut tower = Tower::new();
    tower.vigilant_guard();
    let text = Snapshot::<()>::save(&tower.world, &tower.gas)
        .to_ron()
        .unwrap();
    assert_eq!(
        text.matches("lane:Normal").count(),
        1,
        "the vigil's period: {text}"
    );
    let damaged = text.replace("lane:Normal", "lane:Expiry");
    let sealed: Sealed = ron::from_str(&damaged).unwrap();
    let mut world = World::new();
    let mut gas = context(&tower.catalog);
    let error = sealed.snapshot.restore(&mut world, &mut gas).unwrap_err();
    assert_eq!(
        error.to_string(),
        "snapshot does not fit this context: a timer in the Expiry lane that fires something other than an expiry"
    );
    assert_eq!(world.len(), 0, "nothing restored");

    // A period timer that fires another effect's tick: the vigil's own
    // would never come, so it would never tick again.
    let theirs = "Period(entity:4294967296,key:(idx:0,version:1))";
    assert_eq!(text.matches(theirs).count(), 1, "{text}");
    let damaged = text.replace(theirs, "Period(entity:4294967296,key:(idx:5,version:1))");
    let sealed: Sealed = ron::from_str(&damaged).unwrap();
    let error = sealed.snapshot.restore(&mut world, &mut gas).unwrap_err();
    assert!(
        error
            .to_string()
            .ends_with("an effect holds a period timer that is not pending"),
        "{error}"
    );
    assert_eq!(world.len(), 0, "nothing restored");
}

/// `text` with `a` and `b` (each there once) swapped: `a`'s field name
/// kept with `b`'s value and the other way round.
fn swap(text: &str, a: &str, b: &str) -> String {
    assert_eq!(
        (text.matches(a).count(), text.matches(b).count()),
        (1, 1),
        "{text}"
    );
    fn field(s: &str) -> (&str, &str) {
        s.split_once(':').unwrap()
    }
    let ((a_name, a_value), (b_name, b_value)) = (field(a), field(b));
    text.replacen(a, "\u{0}A", 1)
        .replacen(b, &format!("{b_name}:{a_value}"), 1)
        .replacen("\u{0}A", &format!("{a_name}:{b_value}"), 1)
}

/// A timer listed twice (a periodic effect would tick double), an expiry
/// due after its effect ends (a brew outliving its duration) or a timer
/// held under another's key is refused before anything changes, as a
/// damaged file that kept its checksum.
#[test]
fn a_snapshot_with_a_timer_twice_or_an_expiry_after_the_end_is_refused() {
    let mut builder = CatalogBuilder::new();
    builder.add_source(
        "brew.ron",
        r#"(attributes: [(name: "Thirst")],
            effects: [(name: "GE_Brew", duration: Duration(Constant(5)), period: (seconds: 1.0),
                       modifiers: [(attribute: "Thirst", op: Flat, magnitude: Constant(1))])])"#,
    );
    let catalog = Arc::new(builder.build().unwrap());
    let mut gas = Gas::new(catalog.clone());
    let mut world = World::new();
    let cask = world.spawn((gas.new_ability_system(),));
    let brew = EffectSpec::new(catalog.effects().get("GE_Brew").unwrap());
    gas.apply_effect(&mut world, cask, brew).unwrap();
    let text = Snapshot::<()>::save(&world, &gas).to_ron().unwrap();
    let entry = |at: &str| {
        let start = text.find(&format!("(at:({at}),lane:")).expect(&text);
        &text[start..start + text[start..].find("))").unwrap() + 2]
    };
    let (period, expiry) = (entry("1000000"), entry("5000000"));
    assert!(expiry.contains("lane:Expiry"), "{expiry}");
    // A second period timer for the brew: a third payload slot and a
    // timer entry of its own.
    let payload = "(version:1,value:Some(Effect(Period(entity:4294967296,key:(idx:0,version:1)))))";
    assert!(text.contains(payload), "{text}");
    let twice = text
        .replacen("next_seq:2,", "next_seq:3,", 1)
        .replacen(
            period,
            &format!("{period},(at:(2000000),lane:Normal,seq:2,key:(idx:2,version:1))"),
            1,
        )
        .replacen(payload, &format!("{payload},{payload}"), 1);
    let cases = [
        (
            twice,
            "two pending timers for one effect's expiry, period or one instance's wake-up",
        ),
        (
            text.replacen(expiry, &expiry.replace("(at:(5000000)", "(at:(9000000)"), 1),
            "an effect's expiry timer is due after the effect ends",
        ),
        // The brew holding each of its timers under the other's key: both
        // are pending, but its expiry would be taken for a tick and its
        // ticks for the end.
        (
            swap(
                &text,
                "expiry_timer:Some((idx:0,version:1))",
                "period_timer:Some((idx:1,version:1))",
            ),
            "an effect holds an expiry timer under another timer's key",
        ),
    ];
    for (damaged, says) in cases {
        let error = refusal(&catalog, &damaged);
        assert!(error.to_string().ends_with(says), "{error}");
    }
    restores_clean(&catalog, &text);
}

/// A context on a catalog of one ward (an infinite effect adding its
/// SetByCaller amount to a Ward attribute) and a post to put wards on.
fn warded_post() -> (Arc<Catalog>, Gas, World, Entity) {
    let mut builder = CatalogBuilder::new();
    builder.add_source(
        "ward.ron",
        r#"(attributes: [(name: "Ward", base: 10)],
            effects: [(name: "GE_Ward", duration: Infinite,
                       modifiers: [(attribute: "Ward", op: Flat, magnitude: SetByCaller("SetByCaller.Amount"))])])"#,
    );
    builder
        .tags()
        .add_source("ward.tags", "SetByCaller.Amount\n");
    let catalog = Arc::new(builder.build().unwrap());
    let gas = Gas::new(catalog.clone());
    let mut world = World::new();
    let post = world.spawn((gas.new_ability_system(),));
    (catalog, gas, world, post)
}

/// A ward of `amount`.
fn ward(catalog: &Catalog, amount: f64) -> EffectSpec {
    let ward = catalog.effects().get("GE_Ward").unwrap();
    let key = catalog.tags().get("SetByCaller.Amount").unwrap();
    EffectSpec::new(ward).with_set_by_caller(key, amount)
}

/// A snapshot whose modifiers are out of their canonical order (each
/// attribute's run is what the sums read, and where the next one goes) is
/// refused before anything changes.
#[test]
fn a_snapshot_with_modifiers_out_of_order_is_refused() {
    let (catalog, mut gas, mut world, post) = warded_post();
    for value in [1.0, 2.0] {
        gas.apply_effect(&mut world, post, ward(&catalog, value))
            .unwrap();
    }
    let text = Snapshot::<()>::save(&world, &gas).to_ron().unwrap();
    let start = text.find("modifiers:(entries:[").expect(&text) + "modifiers:(entries:[".len();
    let end = start + text[start..].find("])").expect(&text);
    let entries = &text[start..end];
    let split = entries.find("),(").unwrap() + 1;
    let (first, second) = (&entries[..split], &entries[split + 1..]);
    let swapped = format!("{}{second},{first}{}", &text[..start], &text[end..]);
    let error = refusal(&catalog, &swapped);
    assert!(
        error.to_string().ends_with("is out of its order"),
        "{error}"
    );
    restores_clean(&catalog, &text);
    // The text of a save from before modifiers dropped their counter
    // still reads (its seal, which covered the counter, does not hold).
    let older = format!("{}],next_seq:2{}", &text[..end], &text[end + 1..]);
    restores_clean(&catalog, &older);
}

/// A saved effect whose level or stack count does not fit the sixteen
/// bits an active effect keeps them in is refused as the snapshot is read.
#[test]
fn a_snapshot_with_an_effect_past_sixteen_bits_is_refused() {
    let (catalog, mut gas, mut world, post) = warded_post();
    gas.apply_effect(&mut world, post, ward(&catalog, 1.0).with_level(7))
        .unwrap();
    let text = Snapshot::<()>::save(&world, &gas).to_ron().unwrap();
    for (from, to, says) in [
        (
            "level:7,",
            "level:65536,",
            "is at level 65536, above the highest, 65535",
        ),
        (
            "stacks:1,",
            "stacks:70000,",
            "holds 70000 stacks, above the highest, 65535",
        ),
    ] {
        let damaged = text.replacen(from, to, 1);
        assert_ne!(damaged, text, "{from} in {text}");
        let Err(error) = ron::from_str::<Sealed>(&damaged) else {
            panic!("{from} -> {to} was read");
        };
        let error = error.to_string();
        assert!(error.contains(says), "{error}");
    }
    restores_clean(&catalog, &text);
}

// ------------------------------------------------------- 6. rollback ownership

#[test]
fn a_rollback_survives_a_despawn_and_a_respawn_of_the_same_slot() {
    let mut tower = Tower::new();
    tower
        .gas
        .set_rollback_window(Some(SimDuration::from_secs(2)));
    let guard = tower.guard("guard", None);
    let saved = Snapshot::<()>::save(&tower.world, &tower.gas);
    let before = tower.checksum();

    // The guard leaves through the context: its handle stays reserved, so
    // the game's next entity gets another slot.
    assert!(tower.gas.despawn(&mut tower.world, guard));
    assert!(tower.world.satisfies::<&Reserved>(guard));
    let banner = tower.world.spawn((Name("banner".into()),));
    assert_ne!(banner.id(), guard.id());

    saved.restore(&mut tower.world, &mut tower.gas).unwrap();
    assert_eq!(tower.checksum(), before);
    assert!(!tower.world.satisfies::<&Reserved>(guard));
    assert_eq!(
        *tower.world.get::<&Name>(banner).unwrap(),
        Name("banner".into()),
        "the game's entity, spawned after the save, is left alone"
    );

    // Past the window the handle is freed.
    assert!(tower.gas.despawn(&mut tower.world, guard));
    assert_eq!(
        tower.gas.reserved_handles(),
        2,
        "one from before the rollback"
    );
    tower
        .gas
        .advance_to(&mut tower.world, SimTime::from_secs(3));
    assert!(!tower.world.contains(guard));
    assert_eq!(tower.gas.reserved_handles(), 0);
}

/// A window switched off frees the handles kept under it when the next
/// advance ends, and they are out of play meanwhile. They were kept for
/// ever, and `in_play` called them in play.
#[test]
fn switching_the_rollback_window_off_frees_the_handles_it_kept() {
    let mut tower = Tower::new();
    tower
        .gas
        .set_rollback_window(Some(SimDuration::from_secs(60)));
    let guard = tower.guard("guard", None);
    assert!(tower.gas.despawn(&mut tower.world, guard));
    assert_eq!(tower.gas.reserved_handles(), 1);
    tower.gas.set_rollback_window(None);
    assert!(!tower.gas.in_play(&tower.world, guard));
    tower.gas.advance_by(&mut tower.world, SimDuration::ZERO);
    assert_eq!(tower.gas.reserved_handles(), 0);
    assert!(!tower.world.contains(guard));
    assert!(!tower.gas.in_play(&tower.world, guard));
}

/// Summons a wisp a second and a half after it starts.
struct Summon(Arc<std::sync::Mutex<Vec<Entity>>>);

impl AbilityBehaviour for Summon {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        cx.wait_delay(SimDuration::from_millis(1500));
    }

    fn wake(&self, cx: &mut AbilityCx<'_>, _: WakeReason) {
        let wisp = cx.world.spawn((Name("wisp".into()),));
        self.0.lock().unwrap().push(wisp);
        cx.end();
    }
}

/// A handle kept for a rollback is freed at the instant its window ends,
/// whatever the frame step: an entity a handler spawns after that instant
/// gets the same slot in a run of one long step as in one of short steps.
/// It was freed when an advance ended, so the long step's summon got a
/// fresh slot and the short steps' the freed one, and the two runs saved
/// different handles.
#[test]
fn a_kept_handle_is_freed_at_its_instant_whatever_the_frame_step() {
    let summoned = |steps: &[f64]| {
        let wisps = Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut builder = CatalogBuilder::new();
        builder.tags().add_source("tower.tags", TAGS);
        builder.add_source("tower.ron", CONTENT);
        builder
            .tags()
            .add_source("summon.tags", "Ability.Trigger.Summon\n");
        builder.add_source(
            "summon.ron",
            r#"(abilities: [(name: "GA_Summon", trigger: "Ability.Trigger.Summon",
                behaviour: Registered("Summon"))])"#,
        );
        let catalog = Arc::new(builder.build().unwrap());
        let mut gas = context(&catalog);
        gas.set_rollback_window(Some(SimDuration::from_secs(1)));
        gas.register_behaviour("Summon", Summon(wisps.clone()))
            .unwrap();
        let mut world = World::new();
        let guard = world.spawn((gas.new_ability_system(),));
        let mage = world.spawn((gas.new_ability_system(),));
        let summon = catalog.abilities().get("GA_Summon").unwrap();
        gas.grant_ability(&mut world, mage, summon, 1).unwrap();
        let trigger = catalog.tags().get("Ability.Trigger.Summon").unwrap();
        assert!(gas
            .handle_event(&mut world, mage, GameplayEvent::new(trigger))
            .activated());
        assert!(gas.despawn(&mut world, guard));
        let mut at = 0.0;
        for step in steps {
            at += step;
            gas.advance_to(&mut world, SimTime::from_secs_f64(at).unwrap());
        }
        let wisp = wisps.lock().unwrap()[0];
        wisp
    };
    // The guard's slot, freed at 1.0, is the wisp's at 1.5 either way.
    let long = summoned(&[2.0]);
    let short = summoned(&[0.5, 0.5, 0.5, 0.5]);
    assert_eq!(long, short);
}

/// A handle kept from a retirement a rollback undid is not freed by that
/// retirement's window when the entity has been retired again since: the
/// later retirement keeps it its whole window, so a rollback into it still
/// finds the slot.
#[test]
fn a_handle_retired_again_after_a_rollback_is_kept_for_its_own_window() {
    let mut tower = Tower::new();
    tower
        .gas
        .set_rollback_window(Some(SimDuration::from_secs(2)));
    let guard = tower.guard("guard", None);
    let at_zero = Snapshot::<()>::save(&tower.world, &tower.gas);
    tower
        .gas
        .advance_to(&mut tower.world, SimTime::from_secs(1));
    assert!(tower.gas.despawn(&mut tower.world, guard));
    // Rolled back to 0: the guard lives again, then leaves at 1.5.
    at_zero.restore(&mut tower.world, &mut tower.gas).unwrap();
    tower
        .gas
        .advance_to(&mut tower.world, SimTime::from_secs_f64(1.5).unwrap());
    assert!(tower.gas.despawn(&mut tower.world, guard));
    let at_departure = Snapshot::<()>::save(&tower.world, &tower.gas);
    // Past the first retirement's window, within the second's.
    tower
        .gas
        .advance_to(&mut tower.world, SimTime::from_secs(3));
    assert!(tower.world.satisfies::<&Reserved>(guard), "still kept");
    let banner = tower.world.spawn((Name("banner".into()),));
    assert_ne!(banner.id(), guard.id());
    at_departure
        .restore(&mut tower.world, &mut tower.gas)
        .unwrap();
    // The second retirement's window ends at 3.5.
    tower
        .gas
        .advance_to(&mut tower.world, SimTime::from_secs(4));
    assert!(!tower.world.contains(guard));
}

#[test]
fn without_reserved_handles_a_taken_slot_refuses_the_restore_and_changes_nothing() {
    let mut tower = Tower::new();
    let guard = tower.guard("guard", None);
    let saved = Snapshot::<()>::save(&tower.world, &tower.gas);
    tower.gas.despawn(&mut tower.world, guard);
    let banner = tower.world.spawn((Name("banner".into()),));
    assert_eq!(banner.id(), guard.id(), "hecs reused the slot");
    let before = tower.world.len();
    assert_eq!(
        saved.restore(&mut tower.world, &mut tower.gas),
        Err(SnapshotError::HandleInUse(guard))
    );
    assert_eq!(tower.world.len(), before);
    assert!(tower.world.contains(banner));
}

/// A save loaded into a fresh world where the game has already spawned
/// its scenery: the game's entity holds the very handle a saved one had
/// (same slot, same generation), and it is refused as a taken slot is,
/// not merged into (an ability system and a name put on the lamp).
#[test]
fn a_game_entity_with_the_saved_handle_itself_refuses_the_restore() {
    #[derive(Debug, PartialEq)]
    struct Lamp;
    let mut tower = Tower::new();
    let guard = tower.guard("guard", None);
    let saved = Snapshot::<()>::save(&tower.world, &tower.gas);
    let mut fresh = World::new();
    let lamp = fresh.spawn((Lamp,));
    assert_eq!(lamp, guard, "a fresh world hands out the same handle");
    let mut gas = Gas::new(tower.gas.catalog_arc().clone());
    assert_eq!(
        saved.restore(&mut fresh, &mut gas),
        Err(SnapshotError::HandleInUse(guard))
    );
    assert!(
        !fresh.satisfies::<&AbilitySystem>(lamp),
        "nothing put on it"
    );
    assert!(!fresh.satisfies::<&Name>(lamp));
    assert_eq!(*fresh.get::<&Lamp>(lamp).unwrap(), Lamp);
    assert_eq!(fresh.len(), 1);
}

// ------------------------------------------------------- 7. raw despawns

#[test]
fn entities_despawned_behind_the_contexts_back_leave_nothing_that_grows() {
    let mut tower = Tower::new();
    let boss = tower.guard("boss", None);
    let ward = GameplayEvent::new(tower.tag("Ability.Trigger.Ward")).target(boss);
    let mut most = 0;
    for wave in 0..40 {
        let mobs: Vec<Entity> = (0..50)
            .map(|i| tower.guard(&format!("mob-{wave}-{i}"), None))
            .collect();
        for &mob in &mobs {
            assert!(tower.handle(mob, ward).activated());
        }
        for mob in mobs {
            tower.world.despawn(mob).unwrap();
        }
        let broken = gaskit::invariants::check(&tower.world, &tower.gas);
        assert!(broken.is_empty(), "{broken:#?}");
        let targeting = tower
            .world
            .get::<&AbilitySystem>(boss)
            .unwrap()
            .targeted_by()
            .count();
        most = most.max(targeting);
    }
    // 2 000 engaged and vanished; at most twice the live ones plus a wave.
    assert!(most <= 128, "{most} entries");
    // Tag changes on the boss still work and end nothing that is gone.
    let stun = EffectSpec::new(tower.effect("GE_Stun"))
        .with_set_by_caller(tower.tag("SetByCaller.Amount"), 1.0);
    tower
        .gas
        .apply_effect(&mut tower.world, boss, stun)
        .unwrap();
    assert!(gaskit::invariants::check(&tower.world, &tower.gas).is_empty());
}

// ------------------------------------------------------- 8. far timers

#[test]
fn cancelled_far_timers_give_their_memory_back() {
    let mut queue: TimerQueue<u32> = TimerQueue::new();
    let far = SimTime::from_secs(1_000_000);
    for i in 0..200_000 {
        let key = queue.schedule(far, i);
        queue.cancel(key);
    }
    assert_eq!(queue.len(), 0);
    assert!(
        queue.stored_entries() <= 2_048,
        "{}",
        queue.stored_entries()
    );

    // Through the context: apply and remove a million-second effect.
    let mut tower = Tower::new();
    let guard = tower.guard("guard", None);
    let effect = tower.effect("GE_Far");
    for _ in 0..20_000 {
        let spec = EffectSpec::new(effect);
        tower
            .gas
            .apply_effect(&mut tower.world, guard, spec)
            .unwrap();
        tower.gas.remove_effects_of(&mut tower.world, guard, effect);
    }
    assert_eq!(tower.gas.pending_timers(), 0);
    let size = Snapshot::<()>::save(&tower.world, &tower.gas)
        .to_ron()
        .unwrap()
        .len();
    assert!(size < 20_000, "{size} bytes");
}

// ------------------------------------------------------- 10. edges

#[test]
fn a_catalog_holds_at_most_65_536_definitions_of_a_kind() {
    let effects: String = (0..65_537).map(|i| format!("(name: \"E{i}\"),")).collect();
    let mut builder = CatalogBuilder::new();
    builder.add_source("many.ron", &format!("(effects: [{effects}])"));
    let errors = builder.build().unwrap_err().to_string();
    assert!(
        errors.contains("65537 effect definitions; a catalog holds at most 65536"),
        "{}",
        &errors[..errors.len().min(500)]
    );
}

/// A meta attribute is zeroed once an execution has drained it: one that
/// drains nowhere lost what was written to it, unseen by the trace and
/// the post-execute step alike.
#[test]
fn a_meta_attribute_must_drain_somewhere() {
    let mut builder = CatalogBuilder::new();
    builder.add_source("xp.ron", r#"(attributes: [(name: "XpGain", meta: true)])"#);
    let errors = builder.build().unwrap_err().to_string();
    assert!(
        errors.contains("meta attribute `XpGain` drains nowhere"),
        "{errors}"
    );
}

#[test]
fn a_meta_attribute_may_not_drain_into_another() {
    let mut builder = CatalogBuilder::new();
    builder.add_source(
        "meta.ron",
        r#"(attributes: [
            (name: "Health", base: 10),
            (name: "Shield", meta: true, drains: "Damage"),
            (name: "Damage", meta: true, drains: "Health"),
        ])"#,
    );
    let errors = builder.build().unwrap_err().to_string();
    assert!(
        errors.contains("attribute `Shield` drains into `Damage`, another meta attribute"),
        "{errors}"
    );
}

#[test]
fn a_scenario_with_forty_thousand_combatants_parses() {
    let catalog = gaskit::combat::default_catalog();
    let combatants: String = (0..40_000)
        .map(|i| format!("(name: \"c{i}\", position: ({i}, 0)),"))
        .collect();
    let timeline: String = (0..40_000)
        .map(|i| {
            format!(
                "(at: 0.0, do: Engage(\"c{i}\", \"c{}\")),",
                (i + 1) % 40_000
            )
        })
        .collect();
    let text =
        format!("(seed: 1, duration: 1.0, combatants: [{combatants}], timeline: [{timeline}])");
    let started = std::time::Instant::now();
    let scenario = gaskit::scenario::Scenario::parse(&text, "big.ron", &catalog).unwrap();
    eprintln!("40 000 combatants parsed in {:?}", started.elapsed());
    assert_eq!(scenario.combatants.len(), 40_000);
    assert_eq!(scenario.timeline.len(), 40_000);
}

// ------------------------------------------------------- the soak

/// Simulated hours for the soak: `GASKIT_SOAK` (default a quarter hour).
fn soak_hours() -> f64 {
    std::env::var("GASKIT_SOAK")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(0.25)
}

/// A server's world: pairs of fighters who duel, die, respawn, and leave
/// (half through the context, half behind its back) while new pairs join.
struct Server {
    world: World,
    gas: Gas,
    runtime: Arc<gaskit::combat::CombatRuntime>,
    pairs: Vec<(Entity, Entity)>,
    joined: u32,
}

impl Server {
    const PAIRS: u32 = 16;

    fn new() -> Self {
        // The defaults a server runs with (a bounded trace), plus a
        // rollback window for its netcode.
        let mut gas = Gas::with_seed(gaskit::combat::default_catalog(), 11);
        let runtime = gaskit::combat::install(&mut gas).unwrap();
        gas.set_rollback_window(Some(SimDuration::from_secs(2)));
        let mut server = Server {
            world: World::new(),
            gas,
            runtime,
            pairs: Vec::new(),
            joined: 0,
        };
        for _ in 0..Self::PAIRS {
            server.join();
        }
        server
    }

    fn fighter(&mut self, at: gaskit::combat::Vec2, level: u32) -> Entity {
        use gaskit::combat::{self, native, CombatDefs, Kinematic, Skills};
        let catalog = self.gas.catalog_arc().clone();
        let defs = catalog.section::<CombatDefs>().unwrap();
        let mut fighter = combat::new_combatant(defs, defs.default_kind());
        fighter.skills = Skills::all_at(level);
        let scimitar = defs.item_named("Bronze Scimitar").unwrap();
        fighter
            .equipment
            .put(defs.tags[native::ITEM_SLOT_WEAPON], scimitar, 1);
        let entity = self.world.spawn((
            self.gas.new_ability_system(),
            fighter,
            Kinematic::at(at, 200.0),
        ));
        for ability in ["GA_AutoAttack", "GA_Disengage", "GA_Death"] {
            let id = catalog.abilities().get(ability).unwrap();
            self.gas
                .grant_ability(&mut self.world, entity, id, 1)
                .unwrap();
        }
        combat::prepare(&self.runtime, &mut self.world, &mut self.gas, entity);
        entity
    }

    fn join(&mut self) {
        use gaskit::combat::Vec2;
        let slot = f64::from(self.joined % Self::PAIRS) * 1_000.0;
        self.joined += 1;
        let a = self.fighter(Vec2::new(slot, 0.0), 20);
        let b = self.fighter(Vec2::new(slot, 150.0), 5);
        self.pairs.push((a, b));
    }

    /// The oldest pair leaves, a new one joins.
    fn churn(&mut self) {
        let (a, b) = self.pairs.remove(0);
        self.gas.despawn(&mut self.world, a);
        let _ = self.world.despawn(b);
        self.join();
    }

    /// Idle fighters (fresh, or respawned) engage their partner.
    fn engage_idle(&mut self) {
        use gaskit::combat::{native, Combatant};
        let engage = self.runtime.tags()[native::TRIGGER_ENGAGE];
        for &(a, b) in &self.pairs {
            for (me, them) in [(a, b), (b, a)] {
                let idle = self
                    .world
                    .get::<&Combatant>(me)
                    .is_ok_and(|c| c.targeting.target.is_none());
                if idle {
                    self.gas
                        .send_event(me, GameplayEvent::new(engage).target(them));
                }
            }
        }
    }

    fn most_attackers(&self) -> usize {
        self.world
            .query::<&gaskit::combat::Combatant>()
            .iter()
            .map(|c| c.attackers.current.len())
            .max()
            .unwrap_or(0)
    }

    fn most_targeted(&self) -> usize {
        self.world
            .query::<&AbilitySystem>()
            .iter()
            .map(|s| s.targeted_by().count())
            .max()
            .unwrap_or(0)
    }
}

#[test]
fn soak_a_server_shaped_loop_keeps_memory_bounded() {
    use gaskit::combat::CombatComponents;

    let hours = soak_hours();
    let mut server = Server::new();
    let frame = SimDuration::from_millis(100);
    let end = SimTime::from_secs_f64(hours * 3600.0).unwrap();
    let mut frames = 0u64;
    let mut rollbacks = 0u64;
    // (trace events, timers, attackers, targeting entries, reserved, snapshot bytes)
    let mut worst = [0usize; 6];
    let mut saved: Option<Snapshot<CombatComponents>> = None;
    while server.gas.now() < end {
        frames += 1;
        // Joining and leaving happen outside any rollback window.
        if frames % 7 == 0 {
            if frames % 301 < 7 {
                server.churn();
            }
            if frames % 49 == 0 {
                server.engage_idle();
            }
            saved = Some(Snapshot::save(&server.world, &server.gas));
        }
        let to = server.gas.now() + frame;
        server.gas.advance_to(&mut server.world, to);
        // A rollback three frames back, then the same frames again.
        if frames % 7 == 3 {
            if let Some(saved) = saved.take() {
                let now = server.gas.now();
                saved.restore(&mut server.world, &mut server.gas).unwrap();
                server.gas.advance_to(&mut server.world, now);
                rollbacks += 1;
            }
        }
        if frames % 3_000 == 0 || server.gas.now() >= end {
            let snapshot = Snapshot::<CombatComponents>::save(&server.world, &server.gas)
                .to_ron()
                .unwrap()
                .len();
            let now = [
                server.gas.trace().events().len(),
                server.gas.pending_timers(),
                server.most_attackers(),
                server.most_targeted(),
                server.gas.reserved_handles(),
                snapshot,
            ];
            for (w, n) in worst.iter_mut().zip(now) {
                *w = (*w).max(n);
            }
            let broken = gaskit::invariants::check(&server.world, &server.gas);
            assert!(broken.is_empty(), "{broken:#?}");
        }
    }
    let died = server.gas.trace().dropped() + server.gas.trace().events().len() as u64;
    eprintln!(
        "soak: {hours} h simulated, {frames} frames, {rollbacks} rollbacks, {} pairs joined, \
         {died} events traced; worst: trace {} events, {} timers, {} attackers, {} targeting \
         entries, {} reserved handles, snapshot {} bytes",
        server.joined, worst[0], worst[1], worst[2], worst[3], worst[4], worst[5]
    );
    assert!(server.joined > Server::PAIRS, "pairs came and went");
    assert!(worst[0] <= gaskit::Trace::DEFAULT_CAPACITY);
    assert!(worst[1] <= 32 * 8, "{} timers", worst[1]);
    assert!(worst[2] <= 3, "{} attackers", worst[2]);
    assert!(worst[3] <= 16, "{} targeting entries", worst[3]);
    assert!(worst[4] <= 64, "{} reserved", worst[4]);
    assert!(worst[5] <= 200_000, "{} bytes", worst[5]);
}

/// An instant that runs past its work budget defers the same timers
/// whether or not the trace records the lazy ends told there: telling
/// only the trace hears is no work.
#[test]
fn work_limits_bite_where_they_would_without_a_trace() {
    let run = |filter: TraceFilter| {
        let mut builder = CatalogBuilder::new();
        builder
            .tags()
            .add_source("rest.tags", "Cooldown.Rest\nStatus.Tired\n");
        builder.add_source(
            "rest.ron",
            r#"(attributes: [(name: "Vigor", base: 10)], effects: [
                (name: "GE_Rest", duration: Duration(Constant(1)), granted_tags: ["Cooldown.Rest"]),
                (name: "GE_Tired", duration: Duration(Constant(1)), granted_tags: ["Status.Tired"],
                 modifiers: [(attribute: "Vigor", op: Flat, magnitude: Constant(-1))]),
            ])"#,
        );
        let mut gas = Gas::new(builder.build().unwrap());
        gas.trace_mut().set_filter(filter);
        gas.set_work_limits(WorkLimits {
            per_instant: 25,
            per_call: 1_000,
        });
        let mut world = World::new();
        let rest = gas.catalog().effects().get("GE_Rest").unwrap();
        let tired = gas.catalog().effects().get("GE_Tired").unwrap();
        for _ in 0..40 {
            let sleeper = world.spawn((gas.new_ability_system(),));
            gas.apply_effect(&mut world, sleeper, EffectSpec::new(rest))
                .unwrap();
            gas.apply_effect(&mut world, sleeper, EffectSpec::new(tired))
                .unwrap();
        }
        let outcome = gas.advance_to(&mut world, SimTime::from_secs(2));
        (
            outcome,
            gas.deferred_timers(),
            gaskit::snapshot::checksum::<()>(&world, &gas),
        )
    };
    let quiet = run(TraceFilter::NONE);
    assert!(quiet.1 > 0, "the instant ran past its budget");
    assert_eq!(run(TraceFilter::ALL), quiet);
}

/// Polls its target every tenth of a second.
struct Watch;

impl AbilityBehaviour for Watch {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        cx.wait_delay(SimDuration::from_millis(100));
    }

    fn wake(&self, cx: &mut AbilityCx<'_>, _reason: WakeReason) {
        cx.wait_delay(SimDuration::from_millis(100));
    }
}

/// With a rollback window, a target despawned through the context is gone
/// for the abilities aimed at it from that instant, whatever the frame
/// step: its kept handle counted as present until the advance that freed
/// it ended, so one long step lost the target later than short ones.
#[test]
fn a_despawned_target_is_lost_at_the_same_instant_at_any_step() {
    let lost_at = |step_ms: u64| {
        let mut builder = CatalogBuilder::new();
        builder.tags().add_source("watch.tags", "Ability.Watch\n");
        builder.add_source(
            "watch.ron",
            r#"(abilities: [(name: "GA_Watch", trigger: "Ability.Watch", behaviour: Registered("Watch"))])"#,
        );
        let mut gas = Gas::new(builder.build().unwrap());
        gas.register_behaviour("Watch", Watch).unwrap();
        gas.trace_mut().set_filter(TraceFilter::ALL);
        gas.set_rollback_window(Some(SimDuration::from_millis(500)));
        let mut world = World::new();
        let watcher = world.spawn((gas.new_ability_system(),));
        let chest = world.spawn((Name("chest".into()),));
        let watch = gas.catalog().abilities().get("GA_Watch").unwrap();
        gas.grant_ability(&mut world, watcher, watch, 1).unwrap();
        let trigger = gas.catalog().tags().get("Ability.Watch").unwrap();
        let event = GameplayEvent::new(trigger).target(chest);
        assert!(gas.handle_event(&mut world, watcher, event).activated());
        gas.advance_to(&mut world, SimTime::from_millis(50));
        gas.despawn(&mut world, chest);
        let mut at = 50;
        while at < 1_000 {
            at += step_ms;
            gas.advance_to(&mut world, SimTime::from_millis(at));
        }
        gas.trace()
            .events()
            .iter()
            .find_map(|e| match e.kind {
                TraceKind::AbilityEnded {
                    reason: EndReason::TargetLost,
                    ..
                } => Some(e.time),
                _ => None,
            })
            .expect("the target is lost")
    };
    assert_eq!(lost_at(50), SimTime::from_millis(100));
    assert_eq!(lost_at(950), SimTime::from_millis(100));
}

/// Two equal states checksum alike whatever the context has got round
/// to: a holder of a live capture despawned behind the context's back
/// leaves the list of holders only when a refresh walks it, which a
/// restored context does at its first change where the saved one had no
/// reason to. A save lists only the holders that hold one, so a rollback
/// that replays the same step checksums as the run that took it (it did
/// not, a false desync).
#[test]
fn a_stale_live_capture_holder_does_not_split_checksums_across_a_restore() {
    let mut builder = CatalogBuilder::new();
    builder.add_source(
        "shrine.ron",
        r#"(
        attributes: [(name: "Power", base: 5), (name: "Health", base: 100), (name: "Gold")],
        effects: [
            (name: "GE_Aura", duration: Infinite, modifiers: [(attribute: "Health", op: Flat,
             magnitude: Attribute(attribute: "Power", from: Target, live: true))]),
            (name: "GE_Pay", modifiers: [(attribute: "Gold", op: Flat, magnitude: Constant(1))]),
        ],
    )"#,
    );
    let mut gas = Gas::new(builder.build().unwrap_or_else(|e| panic!("{e}")));
    let mut world = World::new();
    let pilgrim = world.spawn((gas.new_ability_system(),));
    let priest = world.spawn((gas.new_ability_system(),));
    let effect =
        |gas: &Gas, name: &str| EffectSpec::new(gas.catalog().effects().get(name).unwrap());
    gas.apply_effect(&mut world, pilgrim, effect(&gas, "GE_Aura"))
        .unwrap();
    // Pay once, so the index of what live captures read is built.
    gas.apply_effect(&mut world, priest, effect(&gas, "GE_Pay"))
        .unwrap();
    world.despawn(pilgrim).unwrap();
    let saved = Snapshot::<()>::save(&world, &gas);
    gas.apply_effect(&mut world, priest, effect(&gas, "GE_Pay"))
        .unwrap();
    let ahead = snapshot::checksum::<()>(&world, &gas);
    saved.restore(&mut world, &mut gas).unwrap();
    gas.apply_effect(&mut world, priest, effect(&gas, "GE_Pay"))
        .unwrap();
    assert_eq!(snapshot::checksum::<()>(&world, &gas), ahead);
}

/// The holders of live captures are kept in one order whatever order
/// they came in: a holder left on the list (its live effect removed
/// without moving a value) that takes a new one keeps its place in the
/// saved run, where the restored run, whose save dropped it, adds it
/// anew. Kept in entity order, the two lists, and checksums, agree (they
/// were [hedge, knight] against [knight, hedge]).
#[test]
fn live_capture_holders_keep_one_order_across_a_restore() {
    let mut builder = CatalogBuilder::new();
    builder.add_source(
        "shrine.ron",
        r#"(
        attributes: [(name: "Power"), (name: "Health", base: 100)],
        effects: [(name: "GE_Aura", duration: Infinite, modifiers: [(attribute: "Health", op: Flat,
             magnitude: Attribute(attribute: "Power", from: Target, live: true))])],
    )"#,
    );
    let mut gas = Gas::new(builder.build().unwrap_or_else(|e| panic!("{e}")));
    let mut world = World::new();
    let hedge = world.spawn((gas.new_ability_system(),));
    let knight = world.spawn((gas.new_ability_system(),));
    let aura = EffectSpec::new(gas.catalog().effects().get("GE_Aura").unwrap());
    // An aura of Power 0 moves nothing as it goes.
    let ApplyOutcome::Added(key) = gas.apply_effect(&mut world, hedge, aura.clone()).unwrap()
    else {
        panic!("an aura");
    };
    assert!(gas.remove_effect(&mut world, hedge, key));
    let saved = Snapshot::<()>::save(&world, &gas);
    let replay = |gas: &mut Gas, world: &mut World| {
        gas.apply_effect(world, knight, aura.clone()).unwrap();
        gas.apply_effect(world, hedge, aura.clone()).unwrap();
        snapshot::checksum::<()>(world, gas)
    };
    let ahead = replay(&mut gas, &mut world);
    saved.restore(&mut world, &mut gas).unwrap();
    assert_eq!(replay(&mut gas, &mut world), ahead);
}

/// A despawn of a handle already despawned and kept for a rollback is a
/// despawn of nothing: `false`, as without a window, and the handle is
/// not kept a window longer (a repeated leave message was counted twice,
/// and reserved the slot again).
#[test]
fn despawning_a_kept_handle_again_does_nothing() {
    let mut tower = Tower::new();
    tower
        .gas
        .set_rollback_window(Some(SimDuration::from_secs(1)));
    let guard = tower.guard("guard", None);
    assert!(tower.gas.despawn(&mut tower.world, guard));
    assert!(tower.world.satisfies::<&Reserved>(guard));
    tower
        .gas
        .advance_to(&mut tower.world, SimTime::from_secs_f64(0.5).unwrap());
    assert!(!tower.gas.despawn(&mut tower.world, guard));
    assert_eq!(tower.gas.reserved_handles(), 1);
    // Freed when the first despawn's window ends, not a window later.
    tower
        .gas
        .advance_to(&mut tower.world, SimTime::from_secs_f64(1.2).unwrap());
    assert!(!tower.world.contains(guard));
}

/// A call that stops at its budget carries on as one long call would,
/// even within an instant's ends: every effect ending at that instant has
/// ended before anything reacts, wherever the budget falls. (With a call
/// budget of one timer, the first end was reconciled and told at once,
/// and an observer saw the second effect's bonus still held.)
#[test]
fn a_call_stopped_by_its_budget_ends_the_instant_before_anything_reacts() {
    let thirst_seen = |limits: WorkLimits| {
        let mut builder = CatalogBuilder::new();
        builder.add_source(
            "well.ron",
            r#"(
            attributes: [(name: "Vigor", base: 50), (name: "Thirst", base: 50)],
            effects: [
                (name: "GE_Rest", duration: Duration(Constant(2)),
                 modifiers: [(attribute: "Vigor", op: Flat, magnitude: Constant(10))]),
                (name: "GE_Salt", duration: Duration(Constant(2)),
                 modifiers: [(attribute: "Thirst", op: Flat, magnitude: Constant(10))]),
            ],
        )"#,
        );
        let mut gas = Gas::new(builder.build().unwrap_or_else(|e| panic!("{e}")));
        gas.set_work_limits(limits);
        let mut world = World::new();
        let pilgrim = world.spawn((gas.new_ability_system(),));
        for name in ["GE_Rest", "GE_Salt"] {
            let spec = EffectSpec::new(gas.catalog().effects().get(name).unwrap());
            gas.apply_effect(&mut world, pilgrim, spec).unwrap();
        }
        let (vigor, thirst) = {
            let attributes = gas.catalog().attributes();
            (
                attributes.get("Vigor").unwrap(),
                attributes.get("Thirst").unwrap(),
            )
        };
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = seen.clone();
        gas.observe(
            Observe::attribute(vigor).of(pilgrim),
            move |world, gas, _| {
                log.lock()
                    .unwrap()
                    .push(gas.attribute_value(world, pilgrim, thirst));
            },
        );
        let to = SimTime::from_secs(3);
        while gas.advance_to(&mut world, to) != Advance::Reached {}
        let seen = seen.lock().unwrap().clone();
        seen
    };
    let whole = thirst_seen(WorkLimits::default());
    assert_eq!(whole, [Some(50.0)], "both ended before the observer heard");
    let stepwise = thirst_seen(WorkLimits {
        per_call: 1,
        ..WorkLimits::default()
    });
    assert_eq!(stepwise, whole);
}

/// Naps a second, then writes down the microsecond it woke at.
struct Nap(Arc<std::sync::Mutex<Vec<u64>>>);

impl AbilityBehaviour for Nap {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        cx.wait_delay(SimDuration::from_secs(1));
    }

    fn wake(&self, cx: &mut AbilityCx<'_>, _: gaskit::WakeReason) {
        self.0.lock().unwrap().push(cx.gas.now().as_micros());
        cx.end();
    }
}

/// A save taken between two calls that share an instant keeps the work
/// that instant has done, so a restore into a fresh context runs out of
/// the instant's budget where the saved run does. (It counted from
/// nothing, and woke three nappers at the instant where the saved run
/// woke one and put two off.)
#[test]
fn a_restore_counts_on_the_work_its_instant_had_done() {
    let setup = |wakes: Arc<std::sync::Mutex<Vec<u64>>>| {
        let mut builder = CatalogBuilder::new();
        builder
            .tags()
            .add_source("inn.tags", "Ability.Trigger.Nap\n");
        builder.add_source(
            "inn.ron",
            r#"(abilities: [(name: "GA_Nap", trigger: "Ability.Trigger.Nap", behaviour: Registered("Nap"))])"#,
        );
        let mut gas = Gas::new(builder.build().unwrap_or_else(|e| panic!("{e}")));
        gas.register_behaviour("Nap", Nap(wakes)).unwrap();
        gas.set_work_limits(WorkLimits {
            per_instant: 3,
            per_call: 2,
        });
        let mut world = World::new();
        let nap = gas.catalog().abilities().get("GA_Nap").unwrap();
        let trigger = gas.catalog().tags().get("Ability.Trigger.Nap").unwrap();
        for _ in 0..5 {
            let guest = world.spawn((gas.new_ability_system(),));
            gas.grant_ability(&mut world, guest, nap, 1).unwrap();
            assert!(gas
                .handle_event(&mut world, guest, GameplayEvent::new(trigger))
                .activated());
        }
        (gas, world)
    };
    let to = SimTime::from_secs(2);
    let wakes = Arc::new(std::sync::Mutex::new(Vec::new()));
    let (mut gas, mut world) = setup(wakes.clone());
    assert_eq!(
        gas.advance_to(&mut world, to),
        Advance::Stopped {
            at: SimTime::from_secs(1)
        }
    );
    let saved = Snapshot::<()>::save(&world, &gas);
    while gas.advance_to(&mut world, to) != Advance::Reached {}
    let original = wakes.lock().unwrap().clone();
    assert_eq!(
        original,
        [1_000_000, 1_000_000, 1_000_000, 1_000_001, 1_000_001]
    );

    let rewoken = Arc::new(std::sync::Mutex::new(Vec::new()));
    let (mut fresh, mut fresh_world) = setup(rewoken.clone());
    saved.restore(&mut fresh_world, &mut fresh).unwrap();
    while fresh.advance_to(&mut fresh_world, to) != Advance::Reached {}
    let mut restored = original[..2].to_vec();
    restored.extend(rewoken.lock().unwrap().iter());
    assert_eq!(restored, original);
}
