//! The ability system: events, activation rules, commit, long-running
//! instances, end paths and authority.

mod support;

use std::sync::{Arc, Mutex};

use gaskit::prelude::*;
use gaskit::snapshot::Snapshot;
use gaskit::{
    AbilityBehaviour, AbilityCx, AbilityId, ActivationFailure, ClientId, EndReason, GameplayEvent,
    NetOwner, TraceKind, WakeReason,
};
use hecs::{Entity, World};

const TAGS: &str = "
Test.Trigger.Channel
Test.Trigger.Watch
Test.Trigger.Interrupt
Test.Trigger.Shield
Test.Trigger.NeedsBuff
Test.Trigger.Strike
Test.Trigger.Ping
Test.Trigger.Recall
Test.Trigger.Bank
Test.Ability.Channel
Test.State.Channeling
Test.State.Marked
Cooldown.Test.Channel
";

const CONTENT: &str = r#"(
    attributes: [(name: "Mana", base: 25, min: 0)],
    effects: [
        (name: "GE_ManaCost", modifiers: [(attribute: "Mana", op: Flat, magnitude: Constant(-10))]),
        (name: "GE_Channel_Cooldown", duration: Duration(SetByCaller("Cooldown.Test.Channel")),
         granted_tags: ["Cooldown.Test.Channel"]),
        (name: "GE_Mark", duration: Duration(Constant(1)), granted_tags: ["Test.State.Marked"]),
        (name: "GE_Trance", duration: Infinite, ongoing_requirements: (all: ["Test.State.Channeling"]),
         modifiers: [(attribute: "Mana", op: Flat, magnitude: Constant(5))]),
    ],
    abilities: [
        (name: "GA_Channel", trigger: "Test.Trigger.Channel",
         ability_tags: ["Test.Ability.Channel"], activation_owned_tags: ["Test.State.Channeling"],
         activation_blocked: (any: ["Status.Stunned"]),
         cancel_on_tags_added: ["Action.Modal", "Status.Dead"],
         cost: "GE_ManaCost", cooldown: (effect: "GE_Channel_Cooldown", seconds: 5),
         behaviour: Registered("Channel")),
        (name: "GA_Watcher", trigger: "Test.Trigger.Watch", behaviour: Registered("Watcher")),
        (name: "GA_Interrupt", trigger: "Test.Trigger.Interrupt",
         cancel_abilities_with_tags: ["Test.Ability.Channel"], behaviour: ApplyEffects([])),
        (name: "GA_Shield", trigger: "Test.Trigger.Shield",
         block_abilities_with_tags: ["Test.Ability.Channel"], behaviour: Registered("Hold")),
        (name: "GA_NeedsBuff", trigger: "Test.Trigger.NeedsBuff",
         activation_required: (all: ["Status.Buff"]), behaviour: ApplyEffects([])),
        (name: "GA_TestDeath", trigger: "Combat.Event.Death", net: ServerOnly,
         behaviour: ApplyEffects([(effect: "GE_Dead", to: Owner)])),
        (name: "GA_Strike", trigger: "Test.Trigger.Strike", retrigger: true, behaviour: Registered("Strike")),
        (name: "GA_Ping", trigger: "Test.Trigger.Ping", behaviour: Registered("Ping")),
        (name: "GA_Recall", trigger: "Test.Trigger.Recall", client_magnitude: (0, 10),
         behaviour: Registered("Recall")),
        (name: "GA_Bank", trigger: "Test.Trigger.Bank",
         activation_owned_tags: ["Action.Modal.Banking"], cancel_on_tags_added: ["Action.Modal"],
         behaviour: Registered("Hold")),
    ],
)"#;

type Log = Arc<Mutex<Vec<String>>>;

/// Channels: commit, then tick every second three times, then end.
struct Channel(Log);

impl AbilityBehaviour for Channel {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        if cx.commit().is_err() {
            cx.end();
            return;
        }
        self.0
            .lock()
            .unwrap()
            .push(format!("{} start", cx.gas.now()));
        cx.wait_delay(SimDuration::from_secs(1));
    }

    fn wake(&self, cx: &mut AbilityCx<'_>, reason: WakeReason) {
        let mut log = self.0.lock().unwrap();
        log.push(format!("{} tick {reason:?}", cx.gas.now()));
        let ticks = log.iter().filter(|l| l.contains("tick")).count();
        drop(log);
        if ticks >= 3 {
            cx.end();
        } else {
            cx.wait_delay(SimDuration::from_secs(1));
        }
    }

    fn end(&self, cx: &mut AbilityCx<'_>, reason: EndReason) {
        self.0
            .lock()
            .unwrap()
            .push(format!("{} teardown {reason:?}", cx.gas.now()));
    }
}

/// Waits for an event, then a tag, then its removal.
struct Watcher(Log, Tag, Tag);

impl AbilityBehaviour for Watcher {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        cx.wait_event(self.1);
    }

    fn wake(&self, cx: &mut AbilityCx<'_>, reason: WakeReason) {
        self.0
            .lock()
            .unwrap()
            .push(format!("{} {reason:?}", cx.gas.now()).replace(char::is_whitespace, ""));
        match reason {
            WakeReason::Event(_) => cx.wait_tag_added(self.2),
            WakeReason::TagAdded(_) => cx.wait_tag_removed(self.2),
            _ => cx.end(),
        }
    }
}

/// Stays active until cancelled.
struct Hold;

impl AbilityBehaviour for Hold {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        cx.wait_delay(SimDuration::from_secs(1000));
    }
}

/// Long-running with a target; counts teardowns.
struct Strike(Log);

impl AbilityBehaviour for Strike {
    fn can_activate(
        &self,
        world: &World,
        _: &Gas,
        activation: &gaskit::Activation<'_>,
    ) -> Result<(), Tag> {
        match activation.event.target {
            Some(target) if world.contains(target) => Ok(()),
            _ => Err(Tag::clone(&activation.def.trigger)),
        }
    }

    fn activate(&self, cx: &mut AbilityCx<'_>) {
        cx.wait_delay(SimDuration::from_secs(2));
    }

    fn wake(&self, cx: &mut AbilityCx<'_>, _: WakeReason) {
        cx.wait_delay(SimDuration::from_secs(2));
    }

    fn end(&self, _: &mut AbilityCx<'_>, reason: EndReason) {
        self.0.lock().unwrap().push(format!("teardown {reason:?}"));
    }
}

/// Records activation order, and asks for a wake-up after ending (which
/// must do nothing).
struct Ping(Log);

impl AbilityBehaviour for Ping {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        let label = cx.event.magnitude.unwrap_or(-1.0);
        self.0
            .lock()
            .unwrap()
            .push(format!("{} ping {label}", cx.gas.now()));
        cx.end();
        cx.wait_delay(SimDuration::from_secs(1000));
    }

    fn wake(&self, cx: &mut AbilityCx<'_>, _: WakeReason) {
        self.0
            .lock()
            .unwrap()
            .push(format!("{} woken", cx.gas.now()));
    }
}

/// Logs the event it was activated by as it starts, on its one wake-up
/// a second later (when it ends) and as it ends.
struct Recall(Log);

impl AbilityBehaviour for Recall {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        self.0.lock().unwrap().push(format!("start {:?}", cx.event));
        cx.wait_delay(SimDuration::from_secs(1));
    }

    fn wake(&self, cx: &mut AbilityCx<'_>, _: WakeReason) {
        self.0.lock().unwrap().push(format!("wake {:?}", cx.event));
        cx.end();
    }

    fn end(&self, cx: &mut AbilityCx<'_>, _: EndReason) {
        self.0.lock().unwrap().push(format!("end {:?}", cx.event));
    }
}

struct Sim {
    world: World,
    gas: Gas,
    hero: Entity,
    foe: Entity,
    log: Log,
}

impl Sim {
    /// A hero and a foe holding every test ability.
    fn new() -> Self {
        let mut sim = Self::bare();
        let test_abilities = [
            "GA_Channel",
            "GA_Watcher",
            "GA_Interrupt",
            "GA_Shield",
            "GA_NeedsBuff",
            "GA_TestDeath",
            "GA_Strike",
            "GA_Ping",
            "GA_Recall",
            "GA_Bank",
        ];
        for entity in [sim.hero, sim.foe] {
            for name in test_abilities {
                let ability = sim.ability(name);
                sim.gas
                    .grant_ability(&mut sim.world, entity, ability, 1)
                    .unwrap();
            }
        }
        sim
    }

    /// A hero and a foe holding no ability, in a context that never
    /// granted one.
    fn bare() -> Self {
        let mut builder = gaskit::combat::default_catalog_builder();
        builder.tags().add_source("test.tags", TAGS);
        builder.add_source("test.ron", CONTENT);
        let catalog = builder.build().unwrap_or_else(|e| panic!("{e}"));
        let mut gas = Gas::new(catalog);
        let log: Log = Arc::default();
        let tags = gas.catalog().tags().clone();
        gas.register_behaviour("Channel", Channel(log.clone()))
            .unwrap();
        gas.register_behaviour(
            "Watcher",
            Watcher(
                log.clone(),
                tags.get("Test.Trigger.Ping").unwrap(),
                // No rule reacts to it: only the instance's wait does.
                tags.get("Test.State.Marked").unwrap(),
            ),
        )
        .unwrap();
        gas.register_behaviour("Hold", Hold).unwrap();
        gas.register_behaviour("Strike", Strike(log.clone()))
            .unwrap();
        gas.register_behaviour("Ping", Ping(log.clone())).unwrap();
        gas.register_behaviour("Recall", Recall(log.clone()))
            .unwrap();
        gaskit::combat::install(&mut gas).unwrap();
        assert!(
            gas.missing_behaviours().is_empty(),
            "{:?}",
            gas.missing_behaviours()
        );
        let mut world = World::new();
        let hero = world.spawn((gas.new_ability_system(), NetOwner(ClientId(7))));
        let foe = world.spawn((gas.new_ability_system(),));
        Sim {
            world,
            gas,
            hero,
            foe,
            log,
        }
    }

    fn tag(&self, name: &str) -> Tag {
        self.gas
            .catalog()
            .tags()
            .get(name)
            .unwrap_or_else(|| panic!("{name}"))
    }

    fn ability(&self, name: &str) -> AbilityId {
        self.gas.catalog().abilities().get(name).unwrap()
    }

    fn event(&self, name: &str) -> GameplayEvent {
        GameplayEvent::new(self.tag(name))
    }

    fn fire(
        &mut self,
        to: Entity,
        event: GameplayEvent,
    ) -> Result<gaskit::InstanceKey, ActivationFailure> {
        let outcome = self.gas.handle_event(&mut self.world, to, event);
        assert_eq!(outcome.activations.len(), 1, "{outcome:?}");
        outcome.activations[0].1
    }

    fn at(&mut self, secs: f64) {
        self.gas
            .advance_to(&mut self.world, SimTime::from_secs_f64(secs).unwrap());
    }

    fn system(&self, entity: Entity) -> hecs::Ref<'_, AbilitySystem> {
        self.world.get::<&AbilitySystem>(entity).unwrap()
    }

    fn active(&self, entity: Entity, ability: &str) -> bool {
        self.system(entity)
            .active_instance(self.ability(ability))
            .is_some()
    }

    fn mana(&self, entity: Entity) -> f64 {
        let mana = self.gas.catalog().attributes().get("Mana").unwrap();
        self.system(entity).current(mana)
    }

    fn has(&self, entity: Entity, tag: &str) -> bool {
        self.gas.has_tag(&self.world, entity, self.tag(tag))
    }

    /// The whole state, saved as text.
    fn saved_text(&self) -> String {
        Snapshot::<()>::save(&self.world, &self.gas)
            .to_ron()
            .unwrap()
    }

    /// Restores a state saved as text, which must leave every invariant
    /// holding.
    fn read_back(&mut self, text: &str) {
        Snapshot::<()>::from_ron(text)
            .unwrap()
            .restore(&mut self.world, &mut self.gas)
            .unwrap();
        assert_eq!(
            gaskit::invariants::check(&self.world, &self.gas),
            Vec::<String>::new()
        );
    }

    fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    fn teardowns(&self) -> usize {
        self.log().iter().filter(|l| l.contains("teardown")).count()
    }
}

// ------------------------------------------------------------- activation rules

#[test]
fn commit_pays_cost_and_cooldown_and_a_second_try_is_not_ready_yet() {
    let mut sim = Sim::new();
    let hero = sim.hero;
    sim.fire(hero, sim.event("Test.Trigger.Channel")).unwrap();
    assert!(
        sim.has(hero, "Test.State.Channeling"),
        "activation-owned tag"
    );
    assert_eq!(sim.mana(hero), 15.0);
    assert!(sim.has(hero, "Cooldown.Test.Channel"));
    sim.at(3.0);
    assert!(!sim.active(hero, "GA_Channel") && !sim.has(hero, "Test.State.Channeling"));
    let failure = sim
        .fire(hero, sim.event("Test.Trigger.Channel"))
        .unwrap_err();
    assert_eq!(
        failure,
        ActivationFailure::Cooldown {
            tag: sim.tag("Cooldown.Test.Channel"),
            remaining: SimDuration::from_secs(2),
        },
        "names the cooldown and what is left of it"
    );
    assert_eq!(failure.message(sim.gas.catalog().tags()), "Not ready yet.");
    assert_eq!(sim.mana(hero), 15.0, "a refused activation pays nothing");
    sim.at(5.0);
    sim.fire(hero, sim.event("Test.Trigger.Channel")).unwrap();
    assert_eq!(sim.mana(hero), 5.0);
    sim.at(10.0);
    assert_eq!(
        sim.fire(hero, sim.event("Test.Trigger.Channel")),
        Err(ActivationFailure::Cost {
            attribute: sim.gas.catalog().attributes().get("Mana").unwrap()
        })
    );
    assert_eq!(sim.mana(hero), 5.0);
    assert!(
        !sim.has(hero, "Cooldown.Test.Channel"),
        "a refused activation burns no cooldown"
    );
}

#[test]
fn blocked_and_required_tags_refuse_before_commit() {
    let mut sim = Sim::new();
    let hero = sim.hero;
    let stun = sim.tag("Status.Stunned");
    let stun_effect = sim.gas.catalog().effects().get("GE_Stun").unwrap();
    sim.gas
        .apply_effect(
            &mut sim.world,
            hero,
            EffectSpec::new(stun_effect).with_set_by_caller(stun, 1.0),
        )
        .unwrap();
    assert_eq!(
        sim.fire(hero, sim.event("Test.Trigger.Channel")),
        Err(ActivationFailure::BlockedByTags { tag: Some(stun) })
    );
    assert_eq!(sim.mana(hero), 25.0);
    assert_eq!(
        sim.fire(hero, sim.event("Test.Trigger.NeedsBuff")),
        Err(ActivationFailure::MissingTags {
            tag: Some(sim.tag("Status.Buff"))
        })
    );
    let haste = sim.tag("Status.Buff.Haste");
    sim.gas.add_loose_tag(&mut sim.world, hero, haste, false);
    assert!(
        sim.fire(hero, sim.event("Test.Trigger.NeedsBuff")).is_ok(),
        "required Status.Buff, parent-aware"
    );
    let failures = sim
        .gas
        .trace()
        .events()
        .iter()
        .filter(|e| matches!(e.kind, TraceKind::AbilityFailed { .. }))
        .count();
    assert_eq!(failures, 2, "every failure is recorded");
}

#[test]
fn cancel_with_tag_and_block_with_tag_match_ability_tags() {
    let mut sim = Sim::new();
    let hero = sim.hero;
    sim.fire(hero, sim.event("Test.Trigger.Channel")).unwrap();
    sim.fire(hero, sim.event("Test.Trigger.Interrupt")).unwrap();
    assert!(!sim.active(hero, "GA_Channel"));
    let interrupt = sim.ability("GA_Interrupt");
    assert_eq!(
        sim.log().last().unwrap(),
        &format!("0.000 teardown CancelledByAbility({interrupt:?})")
    );

    sim.at(5.0);
    sim.fire(hero, sim.event("Test.Trigger.Shield")).unwrap();
    assert_eq!(
        sim.fire(hero, sim.event("Test.Trigger.Channel")),
        Err(ActivationFailure::BlockedByAbility(Some(
            sim.ability("GA_Shield")
        )))
    );
    let with: TagSet = std::iter::once(sim.tag("Test.Ability")).collect();
    assert_eq!(
        sim.gas
            .cancel_abilities(&mut sim.world, hero, &with, &TagSet::new()),
        0,
        "the shield has no ability tags"
    );
    let shield_instance = sim
        .system(hero)
        .active_instance(sim.ability("GA_Shield"))
        .unwrap();
    assert!(sim
        .gas
        .end_ability(&mut sim.world, hero, shield_instance, EndReason::Cancelled));
    sim.fire(hero, sim.event("Test.Trigger.Channel")).unwrap();
    let channel_tag: TagSet = std::iter::once(sim.tag("Test.Ability")).collect();
    let without: TagSet = std::iter::once(sim.tag("Test.Ability.Channel")).collect();
    assert_eq!(
        sim.gas
            .cancel_abilities(&mut sim.world, hero, &channel_tag, &without),
        0,
        "without excludes it"
    );
    assert_eq!(
        sim.gas
            .cancel_abilities(&mut sim.world, hero, &channel_tag, &TagSet::new()),
        1
    );
    assert!(!sim.active(hero, "GA_Channel"));
}

#[test]
fn cancel_on_tags_added_matches_parents() {
    let mut sim = Sim::new();
    let hero = sim.hero;
    sim.fire(hero, sim.event("Test.Trigger.Channel")).unwrap();
    let banking = sim.tag("Action.Modal.Banking");
    sim.gas.add_loose_tag(&mut sim.world, hero, banking, false);
    assert!(
        !sim.active(hero, "GA_Channel"),
        "Action.Modal cancels on Action.Modal.Banking"
    );
    assert_eq!(
        sim.log().last().unwrap(),
        &format!("0.000 teardown CancelledByTag({banking:?})")
    );
}

/// An ability's own owned tag never cancels it, but that exclusion
/// covers that tag alone: banking (owning `Action.Modal.Banking`, cancelled
/// on `Action.Modal`) survives its own tag and ends when trading opens.
#[test]
fn cancel_on_a_parent_tag_spares_only_the_abilitys_own_tag() {
    let mut sim = Sim::new();
    let hero = sim.hero;
    sim.fire(hero, sim.event("Test.Trigger.Bank")).unwrap();
    assert!(
        sim.active(hero, "GA_Bank"),
        "its own tag does not cancel it"
    );
    let trading = sim.tag("Action.Modal.Trading");
    sim.gas.add_loose_tag(&mut sim.world, hero, trading, false);
    assert!(!sim.active(hero, "GA_Bank"), "another modal cancels it");
    let bank = sim.ability("GA_Bank");
    let ended = sim.gas.trace().events().iter().find_map(|e| match &e.kind {
        TraceKind::AbilityEnded {
            ability, reason, ..
        } if *ability == bank => Some(*reason),
        _ => None,
    });
    assert_eq!(ended, Some(EndReason::CancelledByTag(trading)));
    assert_eq!(
        gaskit::invariants::check(&sim.world, &sim.gas),
        Vec::<String>::new()
    );
}

#[test]
fn retrigger_restarts_and_already_active_refuses() {
    let mut sim = Sim::new();
    let (hero, foe) = (sim.hero, sim.foe);
    let first = sim
        .fire(hero, sim.event("Test.Trigger.Strike").target(foe))
        .unwrap();
    let second = sim
        .fire(hero, sim.event("Test.Trigger.Strike").target(foe))
        .unwrap();
    assert_ne!(first, second);
    assert_eq!(sim.log(), ["teardown Retriggered"]);
    sim.fire(hero, sim.event("Test.Trigger.Shield")).unwrap();
    assert_eq!(
        sim.fire(hero, sim.event("Test.Trigger.Shield")),
        Err(ActivationFailure::AlreadyActive)
    );
}

#[test]
fn behaviour_validation_refuses_before_anything_starts() {
    let mut sim = Sim::new();
    let hero = sim.hero;
    let failure = sim
        .fire(hero, sim.event("Test.Trigger.Strike"))
        .unwrap_err();
    assert!(matches!(failure, ActivationFailure::Refused(_)));
    assert!(!sim.active(hero, "GA_Strike"));
    assert_eq!(sim.teardowns(), 0, "nothing started, nothing to tear down");
}

// ------------------------------------------------------------- waits

fn channel_log(steps: &[f64]) -> Vec<String> {
    let mut sim = Sim::new();
    sim.at(0.25);
    let hero = sim.hero;
    sim.gas.send_event(hero, sim.event("Test.Trigger.Channel"));
    let mut t = 0.25;
    for step in steps {
        t += step;
        sim.at(t);
    }
    sim.log()
}

#[test]
fn waits_wake_at_their_own_instants_whatever_the_step() {
    let expected = [
        "0.250 start",
        "1.250 tick Delay",
        "2.250 tick Delay",
        "3.250 tick Delay",
        "3.250 teardown Completed",
    ];
    assert_eq!(channel_log(&[10.0]), expected);
    assert_eq!(channel_log(&[0.0, 10.0]), expected);
    for step in [1.0 / 20.0, 1.0 / 60.0, 1.0 / 144.0, 0.999_999] {
        let steps = vec![step; (5.0 / step) as usize + 1];
        assert_eq!(channel_log(&steps), expected, "step {step}");
    }
}

/// The Watcher's run: woken by a ping, then by `Test.State.Marked` added
/// at 1 s and removed at 2 s; `between` runs after the ping. Checks the
/// wake-ups and that the instance ended.
fn watch_the_mark(between: impl FnOnce(&mut Sim)) {
    let mut sim = Sim::new();
    let hero = sim.hero;
    sim.fire(hero, sim.event("Test.Trigger.Watch")).unwrap();
    let ping = sim.event("Test.Trigger.Ping").magnitude(1.0);
    sim.gas.handle_event(&mut sim.world, hero, ping);
    between(&mut sim);
    let mark = sim.tag("Test.State.Marked");
    sim.at(1.0);
    sim.gas.add_loose_tag(&mut sim.world, hero, mark, false);
    sim.at(2.0);
    sim.gas
        .remove_loose_tag(&mut sim.world, hero, mark)
        .unwrap();
    let log = sim.log();
    // Unreal's order: the ping ability the event triggers first, then the
    // watcher waiting on it.
    assert_eq!(log[0], "0.000 ping 1");
    assert!(log[1].starts_with("0.000Event("), "{log:?}");
    let woke =
        |at: &str, how: &str| format!("{at}{how}({mark:?})").replace(char::is_whitespace, "");
    assert_eq!(
        log[2..],
        [woke("1.000", "TagAdded"), woke("2.000", "TagRemoved")],
        "{log:?}"
    );
    assert!(!sim.active(hero, "GA_Watcher"));
}

/// An event triggers the abilities it triggers before it wakes the
/// instances waiting on it, in Unreal's order: a stagger the hit triggers
/// cancels the parry waiting for that hit before the parry hears it, so
/// no riposte; and an ability the event starts does not hear the event
/// that started it. (Waiting instances were woken first, so the parry
/// riposted and was cancelled after.)
#[test]
fn an_event_triggers_abilities_before_it_wakes_the_instances_waiting_on_it() {
    const TAGS: &str = "Test.Trigger.Parry\nTest.Event.Hit\nAbility.Parry\n";
    const CONTENT: &str = r#"(abilities: [
        (name: "GA_Parry", trigger: "Test.Trigger.Parry", ability_tags: ["Ability.Parry"],
         behaviour: Registered("Parry")),
        (name: "GA_Stagger", trigger: "Test.Event.Hit",
         cancel_abilities_with_tags: ["Ability.Parry"], behaviour: Registered("Parry")),
    ])"#;
    /// Waits for a hit and logs hearing it.
    struct Parry(Arc<Mutex<Vec<String>>>);
    impl AbilityBehaviour for Parry {
        fn activate(&self, cx: &mut AbilityCx<'_>) {
            let hit = cx.gas.catalog().tags().get("Test.Event.Hit").unwrap();
            cx.wait_event(hit);
        }
        fn wake(&self, cx: &mut AbilityCx<'_>, _: WakeReason) {
            let name = cx.gas.catalog().abilities().def(cx.ability).name.clone();
            self.0.lock().unwrap().push(format!("{name} heard the hit"));
            cx.end();
        }
        fn end(&self, cx: &mut AbilityCx<'_>, reason: EndReason) {
            let name = cx.gas.catalog().abilities().def(cx.ability).name.clone();
            self.0
                .lock()
                .unwrap()
                .push(format!("{name} ended: {reason:?}"));
        }
    }
    let mut gas = core_context(TAGS, CONTENT);
    let log = Arc::new(Mutex::new(Vec::new()));
    gas.register_behaviour("Parry", Parry(log.clone())).unwrap();
    let mut world = World::new();
    let owner = world.spawn((gas.new_ability_system(),));
    for name in ["GA_Parry", "GA_Stagger"] {
        let id = gas.catalog().abilities().get(name).unwrap();
        gas.grant_ability(&mut world, owner, id, 1).unwrap();
    }
    let tag = |gas: &Gas, name: &str| gas.catalog().tags().get(name).unwrap();
    let parry = GameplayEvent::new(tag(&gas, "Test.Trigger.Parry"));
    assert!(gas.handle_event(&mut world, owner, parry).activated());
    let hit = GameplayEvent::new(tag(&gas, "Test.Event.Hit"));
    let outcome = gas.handle_event(&mut world, owner, hit);
    assert_eq!(outcome.woken, 0);
    let stagger = gas.catalog().abilities().get("GA_Stagger").unwrap();
    assert_eq!(
        *log.lock().unwrap(),
        [format!(
            "GA_Parry ended: {:?}",
            EndReason::CancelledByAbility(stagger)
        )],
        "the stagger, started by the hit, waits for the next one"
    );
}

#[test]
fn waits_for_events_and_tags() {
    watch_the_mark(|_| {});
}

/// A wait on a tag wakes when the effect granting it expires, though the
/// trace records nothing: the effect (a tag and a duration) would end by
/// its short path were nothing watching, and the wait is watching.
#[test]
fn a_tag_wait_wakes_when_an_unrecorded_effect_granting_it_ends() {
    let mut sim = Sim::new();
    sim.gas.trace_mut().set_filter(TraceFilter::NONE);
    let hero = sim.hero;
    sim.fire(hero, sim.event("Test.Trigger.Watch")).unwrap();
    let ping = sim.event("Test.Trigger.Ping").magnitude(1.0);
    sim.gas.handle_event(&mut sim.world, hero, ping);
    sim.at(1.0);
    let mark = EffectSpec::new(sim.gas.catalog().effects().get("GE_Mark").unwrap());
    sim.gas.apply_effect(&mut sim.world, hero, mark).unwrap();
    sim.at(3.0);
    let tag = sim.tag("Test.State.Marked");
    let woke = |at: &str, how: &str| format!("{at}{how}({tag:?})").replace(char::is_whitespace, "");
    let log = sim.log();
    assert_eq!(
        log[2..],
        [woke("1.000", "TagAdded"), woke("2.000", "TagRemoved")],
        "{log:?}"
    );
    assert!(!sim.active(hero, "GA_Watcher"));
    assert!(sim.gas.trace().events().is_empty());
}

/// A wait on a tag outlives a save read back from text: the restored
/// instance still wakes when the tag comes and when it goes (what the
/// owner knows of its instances' waits is rebuilt, not saved).
#[test]
fn a_tag_wait_read_back_from_a_save_still_wakes() {
    watch_the_mark(|sim| {
        let text = sim.saved_text();
        sim.read_back(&text);
    });
}

/// An event is answered by whoever holds an ability it triggers, however
/// many entities of the context never held one: granted to the foe first,
/// then to the hero, the ping activates on each only once it holds it.
#[test]
fn an_event_activates_what_its_target_was_granted_since() {
    let mut sim = Sim::bare();
    let (hero, foe) = (sim.hero, sim.foe);
    let ping = sim.ability("GA_Ping");
    let heard = |sim: &mut Sim, to| {
        let event = sim.event("Test.Trigger.Ping");
        sim.gas
            .handle_event(&mut sim.world, to, event)
            .activations
            .len()
    };
    assert_eq!(heard(&mut sim, hero), 0);
    sim.gas.grant_ability(&mut sim.world, foe, ping, 1).unwrap();
    assert_eq!(heard(&mut sim, hero), 0, "the hero holds no ping");
    assert_eq!(heard(&mut sim, foe), 1);
    sim.gas
        .grant_ability(&mut sim.world, hero, ping, 1)
        .unwrap();
    assert_eq!(heard(&mut sim, hero), 1);
    assert_eq!(sim.log(), ["0.000 ping -1", "0.000 ping -1"]);
}

/// Restored into a context that never granted anything, an entity's
/// abilities still answer their events: what a context knows of who may
/// hear an event is rebuilt from the systems it restores.
#[test]
fn a_restored_entitys_abilities_answer_events_in_a_fresh_context() {
    let text = Sim::new().saved_text();
    let mut fresh = Sim::bare();
    fresh.read_back(&text);
    let hero = fresh.hero;
    let ping = fresh.event("Test.Trigger.Ping");
    fresh.fire(hero, ping).unwrap();
    assert_eq!(fresh.log(), ["0.000 ping -1"]);
}

/// A running instance keeps the event that activated it, every part of
/// it (instigator, target, magnitude, object, payload, the client it came
/// from), and hands it whole to its wake-up and its end, and to
/// `instance_event`; saved to text mid-run and restored into a fresh
/// context, it hands over the same event.
#[test]
fn a_running_instance_keeps_every_part_of_its_event_through_a_restore() {
    let run = |restore: bool| {
        let mut sim = Sim::new();
        let (hero, foe) = (sim.hero, sim.foe);
        let event = sim
            .event("Test.Trigger.Recall")
            .instigator(hero)
            .target(foe)
            .magnitude(0.0)
            .object(7)
            .payload(sim.tag("Test.State.Marked"))
            .from_client(ClientId(7));
        let instance = sim.fire(hero, event).unwrap();
        assert_eq!(sim.system(hero).instance_event(instance), Some(event));
        sim.at(0.5);
        if restore {
            let text = sim.saved_text();
            let mut fresh = Sim::bare();
            fresh.read_back(&text);
            assert_eq!(fresh.system(hero).instance_event(instance), Some(event));
            fresh.log.lock().unwrap().extend(sim.log());
            sim = fresh;
        }
        sim.at(2.0);
        assert_eq!(sim.system(hero).instance_event(instance), None);
        (event, sim.log())
    };
    let (event, unsaved) = run(false);
    let seen = format!("{event:?}");
    assert_eq!(
        unsaved,
        [
            format!("start {seen}"),
            format!("wake {seen}"),
            format!("end {seen}")
        ]
    );
    assert_eq!(run(true).1, unsaved);
}

#[test]
fn events_at_the_same_instant_are_handled_in_send_order() {
    let mut sim = Sim::new();
    let hero = sim.hero;
    let idle = sim.gas.pending_timers();
    for i in [3.0, 1.0, 2.0] {
        sim.gas.send_event_at(
            SimTime::from_secs_f64(1.0).unwrap(),
            hero,
            sim.event("Test.Trigger.Ping").magnitude(i),
        );
    }
    sim.gas
        .send_event(hero, sim.event("Test.Trigger.Ping").magnitude(0.0));
    sim.at(5.0);
    // Each ping ended before asking to be woken: none is pending, none
    // came (the log has no wake-up).
    assert_eq!(sim.gas.pending_timers(), idle);
    assert_eq!(
        sim.log(),
        [
            "0.000 ping 0",
            "1.000 ping 3",
            "1.000 ping 1",
            "1.000 ping 2"
        ]
    );
}

// ------------------------------------------------------------- end paths

#[test]
fn teardown_runs_exactly_once_on_every_end_path() {
    // Ended by the behaviour itself.
    let mut sim = Sim::new();
    sim.fire(sim.hero, sim.event("Test.Trigger.Channel"))
        .unwrap();
    sim.at(10.0);
    assert_eq!(sim.teardowns(), 1);

    // Cancelled by tag: owner death (Status.Dead from the death ability).
    let mut sim = Sim::new();
    let hero = sim.hero;
    sim.fire(hero, sim.event("Test.Trigger.Channel")).unwrap();
    sim.fire(hero, sim.event("Combat.Event.Death")).unwrap();
    assert!(sim.has(hero, "Status.Dead"));
    sim.at(10.0);
    assert_eq!(
        sim.log()
            .iter()
            .filter(|l| l.contains("teardown"))
            .collect::<Vec<_>>()
            .len(),
        1
    );
    assert!(sim.log().last().unwrap().contains("CancelledByTag"));

    // Explicit end twice: the second does nothing.
    let mut sim = Sim::new();
    let (hero, foe) = (sim.hero, sim.foe);
    let key = sim
        .fire(hero, sim.event("Test.Trigger.Strike").target(foe))
        .unwrap();
    assert!(sim
        .gas
        .end_ability(&mut sim.world, hero, key, EndReason::Cancelled));
    assert!(!sim
        .gas
        .end_ability(&mut sim.world, hero, key, EndReason::Cancelled));
    sim.at(10.0);
    assert_eq!(sim.log(), ["teardown Cancelled"]);

    // Owner despawned through the context.
    let mut sim = Sim::new();
    let (hero, foe) = (sim.hero, sim.foe);
    sim.fire(hero, sim.event("Test.Trigger.Strike").target(foe))
        .unwrap();
    assert!(sim.gas.despawn(&mut sim.world, hero));
    sim.at(10.0);
    assert_eq!(sim.log(), ["teardown OwnerDespawned"]);

    // Target despawned through the context.
    let mut sim = Sim::new();
    let (hero, foe) = (sim.hero, sim.foe);
    sim.fire(hero, sim.event("Test.Trigger.Strike").target(foe))
        .unwrap();
    sim.gas.despawn(&mut sim.world, foe);
    sim.at(10.0);
    assert_eq!(sim.log(), ["teardown TargetLost"]);
    assert!(!sim.active(hero, "GA_Strike"));

    // Target despawned behind the context's back: noticed at the next wake.
    let mut sim = Sim::new();
    let (hero, foe) = (sim.hero, sim.foe);
    sim.fire(hero, sim.event("Test.Trigger.Strike").target(foe))
        .unwrap();
    sim.world.despawn(foe).unwrap();
    sim.at(1.9);
    assert!(sim.active(hero, "GA_Strike"));
    sim.at(2.0);
    assert_eq!(sim.log(), ["teardown TargetLost"]);

    // Owner despawned behind the context's back: its wake-ups are ignored.
    let mut sim = Sim::new();
    let (hero, foe) = (sim.hero, sim.foe);
    sim.fire(hero, sim.event("Test.Trigger.Strike").target(foe))
        .unwrap();
    sim.world.despawn(hero).unwrap();
    sim.at(10.0);
    assert!(sim.log().is_empty());
    assert_eq!(sim.gas.pending_timers(), 0);
}

#[test]
fn revoking_ends_the_running_instance() {
    let mut sim = Sim::new();
    let (hero, foe) = (sim.hero, sim.foe);
    sim.fire(hero, sim.event("Test.Trigger.Strike").target(foe))
        .unwrap();
    let strike = sim.ability("GA_Strike");
    sim.gas
        .revoke_ability(&mut sim.world, hero, strike)
        .unwrap();
    assert_eq!(sim.log(), ["teardown Revoked"]);
    assert!(!sim.system(hero).has_ability(strike));
    let strike_event = sim.event("Test.Trigger.Strike").target(foe);
    let outcome = sim.gas.handle_event(&mut sim.world, hero, strike_event);
    assert!(outcome.activations.is_empty(), "no longer triggered");
    assert!(sim
        .gas
        .revoke_ability(&mut sim.world, hero, strike)
        .is_err());
}

// ------------------------------------------------------------- authority

#[test]
fn clients_may_only_predict_on_their_own_entities_and_never_server_only() {
    let mut sim = Sim::new();
    let (hero, foe) = (sim.hero, sim.foe);
    let mine = ClientId(7);
    let before = sim.mana(hero);
    let spoof = sim.event("Test.Trigger.Channel").from_client(ClientId(8));
    assert_eq!(
        sim.fire(hero, spoof),
        Err(ActivationFailure::Authority),
        "not the owner"
    );
    assert_eq!(
        sim.fire(foe, sim.event("Test.Trigger.Channel").from_client(mine)),
        Err(ActivationFailure::Authority)
    );
    assert_eq!(
        sim.fire(hero, sim.event("Combat.Event.Death").from_client(mine)),
        Err(ActivationFailure::Authority),
        "death is server-only"
    );
    assert!(!sim.has(hero, "Status.Dead"));
    assert_eq!(sim.mana(hero), before, "rejections change nothing");
    assert!(sim
        .fire(hero, sim.event("Test.Trigger.Channel").from_client(mine))
        .is_ok());
    let rejected = sim
        .gas
        .trace()
        .events()
        .iter()
        .filter(|e| {
            matches!(
                e.kind,
                TraceKind::AbilityFailed {
                    reason: ActivationFailure::Authority,
                    ..
                }
            )
        })
        .count();
    assert_eq!(rejected, 3);
}

// ------------------------------------------------------------- data and loose tags

#[test]
fn shipped_sample_abilities_are_data_only() {
    let mut world = World::new();
    let mut gas = Gas::new(gaskit::combat::default_catalog());
    // Nothing is registered (not even the combat layer), and the samples
    // still work: they are built-in ApplyEffects abilities.
    assert!(!gas.missing_behaviours().is_empty());
    for name in ["GA_Haste", "GA_Heal"] {
        let id = gas.catalog().abilities().get(name).unwrap();
        assert!(matches!(
            gas.catalog().abilities().def(id).behaviour,
            gaskit::Behaviour::ApplyEffects(_)
        ));
    }
    let hero = world.spawn((gas.new_ability_system(),));
    let abilities = gas.catalog().abilities().clone();
    for name in ["GA_Haste", "GA_Heal"] {
        gas.grant_ability(&mut world, hero, abilities.get(name).unwrap(), 1)
            .unwrap();
    }
    let tags = gas.catalog().tags().clone();
    let attack_speed = gas.catalog().attributes().get("AttackSpeed").unwrap();
    let health = gas.catalog().attributes().get("Health").unwrap();

    let buff = GameplayEvent::new(tags.get("Action.Trigger.Ability.Buff").unwrap());
    assert!(gas.handle_event(&mut world, hero, buff).activated());
    assert_eq!(
        world
            .get::<&AbilitySystem>(hero)
            .unwrap()
            .current(attack_speed),
        1.25
    );
    gas.advance_to(&mut world, SimTime::from_secs_f64(20.0).unwrap());
    assert_eq!(
        world
            .get::<&AbilitySystem>(hero)
            .unwrap()
            .current(attack_speed),
        1.0,
        "20 s buff"
    );
    assert_eq!(
        gas.handle_event(&mut world, hero, buff).first_failure(),
        Some(ActivationFailure::Cooldown {
            tag: gas.catalog().tags().get("Cooldown.Ability.Buff").unwrap(),
            remaining: SimDuration::from_secs(40),
        })
    );
    gas.advance_to(&mut world, SimTime::from_secs_f64(60.0).unwrap());
    assert!(
        gas.handle_event(&mut world, hero, buff).activated(),
        "60 s cooldown"
    );

    let damage = gas.catalog().effects().get("GE_Damage").unwrap();
    let slash = tags.get("Combat.DamageType.Slash").unwrap();
    gas.apply_effect(
        &mut world,
        hero,
        EffectSpec::new(damage).with_set_by_caller(slash, 20.0),
    )
    .unwrap();
    let heal = GameplayEvent::new(tags.get("Action.Trigger.Ability.Heal").unwrap());
    assert!(gas.handle_event(&mut world, hero, heal).activated());
    assert_eq!(
        world.get::<&AbilitySystem>(hero).unwrap().current(health),
        32.0
    );
}

#[test]
fn a_new_ability_from_an_extra_file_works_with_no_code_change() {
    let mut builder = gaskit::combat::default_catalog_builder();
    builder
        .tags()
        .add_source("mod.tags", "Action.Trigger.Mod.Bless\nStatus.Blessed\n");
    builder.add_source(
        "mods/bless.ron",
        r#"(
            effects: [(name: "GE_Bless", duration: Duration(Constant(30)),
                       modifiers: [(attribute: "MaxHealth", op: Flat, magnitude: Constant(10))],
                       granted_tags: ["Status.Blessed"])],
            abilities: [(name: "GA_Bless", trigger: "Action.Trigger.Mod.Bless",
                         behaviour: ApplyEffects([(effect: "GE_Bless", to: Target)]))],
        )"#,
    );
    let mut gas = Gas::new(builder.build().unwrap());
    let mut world = World::new();
    let (priest, knight) = (
        world.spawn((gas.new_ability_system(),)),
        world.spawn((gas.new_ability_system(),)),
    );
    let bless = gas.catalog().abilities().get("GA_Bless").unwrap();
    gas.grant_ability(&mut world, priest, bless, 1).unwrap();
    let tag = gas
        .catalog()
        .tags()
        .get("Action.Trigger.Mod.Bless")
        .unwrap();
    assert_eq!(
        gas.handle_event(&mut world, priest, GameplayEvent::new(tag))
            .first_failure(),
        Some(ActivationFailure::TargetRequirements),
        "no target"
    );
    assert!(gas
        .handle_event(&mut world, priest, GameplayEvent::new(tag).target(knight))
        .activated());
    let blessed = gas.catalog().tags().get("Status.Blessed").unwrap();
    let max_health = gas.catalog().attributes().get("MaxHealth").unwrap();
    let knight_system = world.get::<&AbilitySystem>(knight).unwrap();
    assert!(gas.has_tag(&world, knight, blessed));
    assert_eq!(knight_system.current(max_health), 50.0);
}

#[test]
fn loose_tags_count_with_effect_tags_and_remember_what_is_saved() {
    let mut sim = Sim::new();
    let hero = sim.hero;
    let stun = sim.tag("Status.Stunned");
    let style = sim.tag("Combat.Style.Defensive");
    assert!(sim.gas.add_loose_tag(&mut sim.world, hero, stun, false));
    let stun_effect = sim.gas.catalog().effects().get("GE_Stun").unwrap();
    sim.gas
        .apply_effect(
            &mut sim.world,
            hero,
            EffectSpec::new(stun_effect).with_set_by_caller(stun, 1.0),
        )
        .unwrap();
    let owned = sim.gas.owned_tags(&sim.world, hero).unwrap();
    assert_eq!(owned.count(stun), 2);
    assert_eq!(
        sim.gas.remove_loose_tag(&mut sim.world, hero, stun),
        Ok(false),
        "the effect still grants it"
    );
    sim.at(1.0);
    assert!(!sim.has(hero, "Status.Stunned"));
    assert!(
        sim.gas
            .remove_loose_tag(&mut sim.world, hero, stun)
            .is_err(),
        "not held"
    );
    sim.gas.add_loose_tag(&mut sim.world, hero, style, true);
    assert!(sim.system(hero).saved_loose_tags().has_exact(style));
    assert!(!sim.system(hero).saved_loose_tags().has_exact(stun));
}

#[test]
fn unknown_behaviours_and_bad_ability_data_are_reported() {
    let mut sim = Sim::new();
    let error = sim.gas.register_behaviour("Chanel", Hold).unwrap_err();
    assert_eq!(
        error.to_string(),
        "no ability uses a behaviour called `Chanel` (did you mean `Channel`?)"
    );

    let cases: &[(&str, &str)] = &[
        (
            r#"(name: "X", trigger: "Action.Trigger.Nope", behaviour: ApplyEffects([]))"#,
            "unknown tag `Action.Trigger.Nope`",
        ),
        (
            r#"(name: "X", trigger: "Action.Trigger.Ability.Buff", cost: "GE_Mana", behaviour: ApplyEffects([]))"#,
            "unknown effect `GE_Mana`",
        ),
        (
            r#"(name: "X", trigger: "Action.Trigger.Ability.Buff", cooldown: (effect: "GE_Damage"), behaviour: ApplyEffects([]))"#,
            "grants no tag",
        ),
        (
            r#"(name: "X", trigger: "Action.Trigger.Ability.Buff", behaviour: ApplyEffects([(effect: "GE_Dmg")]))"#,
            "unknown effect `GE_Dmg`",
        ),
        (
            r#"(name: "X", trigger: "Action.Trigger.Ability.Buff", behaviour: Registered("Not a name"))"#,
            "invalid behaviour name",
        ),
        (
            r#"(name: "GA_Haste", trigger: "Action.Trigger.Ability.Buff", behaviour: ApplyEffects([]))"#,
            "ability `GA_Haste` is already defined in abilities/samples.ron",
        ),
        (
            r#"(name: "GA Haste", trigger: "Action.Trigger.Ability.Buff", behaviour: ApplyEffects([]))"#,
            "invalid ability name `GA Haste`",
        ),
    ];
    for (ability, expected) in cases {
        let mut builder = gaskit::combat::default_catalog_builder();
        builder.add_source("ab.ron", &format!("(abilities: [\n{ability}\n])"));
        let text = builder.build().expect_err(ability).to_string();
        assert!(text.contains(expected), "expected `{expected}` in:\n{text}");
        assert!(text.contains("ab.ron:2:"), "{text}");
    }
}

#[test]
fn an_ability_pressed_at_the_instant_its_cooldown_ends_is_ready() {
    let mut sim = Sim::new();
    let hero = sim.hero;
    // Queued long before the cooldown exists: expiries still come first.
    let channel = sim.event("Test.Trigger.Channel");
    sim.gas
        .send_event_at(SimTime::from_secs_f64(5.0).unwrap(), hero, channel);
    sim.fire(hero, sim.event("Test.Trigger.Channel")).unwrap();
    sim.at(5.0);
    assert_eq!(
        sim.mana(hero),
        5.0,
        "activated twice: at 0 and at exactly 5"
    );
}

/// A retrigger ends the running instance first, and its teardown may
/// change the world: the checks run again after it. A teardown that
/// despawns its owner refuses the new start (no panic), and one that
/// applies the ability's cooldown refuses it on that cooldown.
#[test]
fn a_retrigger_checks_again_after_the_teardown_it_caused() {
    const TAGS: &str = "Test.Trigger.Flare\nTest.Trigger.Spark\nCooldown.Test.Spark\n";
    const CONTENT: &str = r#"(
        effects: [(name: "GE_Spark_Cooldown", duration: Duration(Constant(3)),
                   granted_tags: ["Cooldown.Test.Spark"])],
        abilities: [
            (name: "GA_Flare", trigger: "Test.Trigger.Flare", retrigger: true,
             behaviour: Registered("Flare")),
            (name: "GA_Spark", trigger: "Test.Trigger.Spark", retrigger: true,
             cooldown: (effect: "GE_Spark_Cooldown"), behaviour: Registered("Spark")),
        ],
    )"#;
    /// Burns out: its teardown despawns its owner.
    struct Flare;
    impl AbilityBehaviour for Flare {
        fn activate(&self, cx: &mut AbilityCx<'_>) {
            cx.wait_delay(SimDuration::from_secs(10));
        }
        fn end(&self, cx: &mut AbilityCx<'_>, _: EndReason) {
            let owner = cx.owner;
            cx.gas.despawn(cx.world, owner);
        }
    }
    /// Commits its cooldown only when it ends.
    struct Spark;
    impl AbilityBehaviour for Spark {
        fn activate(&self, cx: &mut AbilityCx<'_>) {
            cx.wait_delay(SimDuration::from_secs(10));
        }
        fn end(&self, cx: &mut AbilityCx<'_>, _: EndReason) {
            let _ = cx.commit();
        }
    }
    let mut gas = core_context(TAGS, CONTENT);
    gas.register_behaviour("Flare", Flare).unwrap();
    gas.register_behaviour("Spark", Spark).unwrap();
    let mut world = World::new();
    let torch = world.spawn((gas.new_ability_system(),));
    let tag = |gas: &Gas, name: &str| gas.catalog().tags().get(name).unwrap();
    for name in ["GA_Flare", "GA_Spark"] {
        let id = gas.catalog().abilities().get(name).unwrap();
        gas.grant_ability(&mut world, torch, id, 1).unwrap();
    }

    let spark = GameplayEvent::new(tag(&gas, "Test.Trigger.Spark"));
    assert!(gas.handle_event(&mut world, torch, spark).activated());
    let again = gas.handle_event(&mut world, torch, spark);
    assert!(matches!(
        again.first_failure(),
        Some(ActivationFailure::Cooldown { .. })
    ));
    let spark_id = gas.catalog().abilities().get("GA_Spark").unwrap();
    assert!(world
        .get::<&AbilitySystem>(torch)
        .unwrap()
        .active_instance(spark_id)
        .is_none());

    let flare = GameplayEvent::new(tag(&gas, "Test.Trigger.Flare"));
    assert!(gas.handle_event(&mut world, torch, flare).activated());
    let again = gas.handle_event(&mut world, torch, flare);
    assert!(!again.activated());
    assert!(!world.contains(torch), "the teardown despawned it");
    assert_eq!(
        gaskit::invariants::check(&world, &gas),
        Vec::<String>::new()
    );
}

/// `cancel_on_target_tags_added` reads the event's target whoever it is,
/// the owner included: a mending channel aimed at its own caster ends when
/// the caster falls asleep, as one aimed at a friend ends when the friend
/// does.
#[test]
fn cancel_on_target_tags_added_holds_for_a_target_that_is_the_owner() {
    const TAGS: &str = "Test.Trigger.Mend\nTest.State.Asleep\n";
    const CONTENT: &str = r#"(abilities: [
        (name: "GA_Mend", trigger: "Test.Trigger.Mend",
         cancel_on_target_tags_added: ["Test.State.Asleep"], behaviour: Registered("Hold")),
    ])"#;
    let mut gas = core_context(TAGS, CONTENT);
    gas.register_behaviour("Hold", Hold).unwrap();
    let mut world = World::new();
    let mender = world.spawn((gas.new_ability_system(),));
    let friend = world.spawn((gas.new_ability_system(),));
    let mend = gas.catalog().abilities().get("GA_Mend").unwrap();
    gas.grant_ability(&mut world, mender, mend, 1).unwrap();
    let trigger = gas.catalog().tags().get("Test.Trigger.Mend").unwrap();
    let asleep = gas.catalog().tags().get("Test.State.Asleep").unwrap();
    let running = |world: &World| {
        world
            .get::<&AbilitySystem>(mender)
            .unwrap()
            .active_instance(mend)
            .is_some()
    };
    for target in [friend, mender] {
        let event = GameplayEvent::new(trigger).target(target);
        assert!(gas.handle_event(&mut world, mender, event).activated());
        assert!(running(&world));
        gas.add_loose_tag(&mut world, target, asleep, false);
        assert!(!running(&world), "ended when its target fell asleep");
        let ended = gas
            .trace()
            .events()
            .iter()
            .rev()
            .find_map(|e| match &e.kind {
                TraceKind::AbilityEnded { reason, .. } => Some(*reason),
                _ => None,
            });
        assert_eq!(ended, Some(EndReason::TargetGainedTag(asleep)));
        gas.remove_loose_tag(&mut world, target, asleep).unwrap();
    }
    // The JSON-lines trace words the reason as the text trace does.
    let jsonl = gaskit::render_jsonl(&world, gas.catalog(), gas.trace().events());
    assert!(
        jsonl.contains(r#""reason":"target gained Test.State.Asleep""#),
        "{jsonl}"
    );
}

/// Sends its trigger to its owner as it ends, aimed where it was aimed,
/// and logs what became of it: a stance whose end starts an echo, a mark
/// whose end starts a haunting of the same target.
struct SendOnEnd(Tag, Log);

impl AbilityBehaviour for SendOnEnd {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        cx.wait_delay(SimDuration::from_secs(1000));
    }

    fn end(&self, cx: &mut AbilityCx<'_>, reason: EndReason) {
        let mut event = GameplayEvent::new(self.0);
        event.target = cx.event.target;
        let outcome = cx.gas.handle_event(cx.world, cx.owner, event);
        let result = outcome.activations.first().map(|(_, r)| r.is_ok());
        self.1
            .lock()
            .unwrap()
            .push(format!("{reason:?} started {result:?}"));
    }
}

/// What the teardowns of a despawn start on the leaving entity, or aimed
/// at it, is refused: such an instance would outlive its entity, never
/// torn down, its timer pending and, on another entity, aimed at nothing
/// for good.
#[test]
fn a_despawns_teardowns_start_nothing_on_or_aimed_at_the_leaving_entity() {
    const TAGS: &str =
        "Test.Trigger.Stance\nTest.Trigger.Echo\nTest.Trigger.Mark\nTest.Trigger.Haunt\n";
    const CONTENT: &str = r#"(abilities: [
        (name: "GA_Stance", trigger: "Test.Trigger.Stance", behaviour: Registered("Stance")),
        (name: "GA_Echo", trigger: "Test.Trigger.Echo", behaviour: Registered("Hold")),
        (name: "GA_Mark", trigger: "Test.Trigger.Mark", behaviour: Registered("Mark")),
        (name: "GA_Haunt", trigger: "Test.Trigger.Haunt", behaviour: Registered("Hold")),
    ])"#;
    let mut gas = core_context(TAGS, CONTENT);
    let tag = |gas: &Gas, name: &str| gas.catalog().tags().get(name).unwrap();
    let log = Log::default();
    let (echo, haunt) = (
        tag(&gas, "Test.Trigger.Echo"),
        tag(&gas, "Test.Trigger.Haunt"),
    );
    gas.register_behaviour("Stance", SendOnEnd(echo, log.clone()))
        .unwrap();
    gas.register_behaviour("Mark", SendOnEnd(haunt, log.clone()))
        .unwrap();
    gas.register_behaviour("Hold", Hold).unwrap();
    let mut world = World::new();
    let ghost = world.spawn((gas.new_ability_system(),));
    let hunter = world.spawn((gas.new_ability_system(),));
    for (entity, names) in [
        (ghost, ["GA_Stance", "GA_Echo"]),
        (hunter, ["GA_Mark", "GA_Haunt"]),
    ] {
        for name in names {
            let id = gas.catalog().abilities().get(name).unwrap();
            gas.grant_ability(&mut world, entity, id, 1).unwrap();
        }
    }
    let stance = GameplayEvent::new(tag(&gas, "Test.Trigger.Stance"));
    assert!(gas.handle_event(&mut world, ghost, stance).activated());
    let mark = GameplayEvent::new(tag(&gas, "Test.Trigger.Mark")).target(ghost);
    assert!(gas.handle_event(&mut world, hunter, mark).activated());
    assert_eq!(gas.pending_timers(), 2);

    assert!(gas.despawn(&mut world, ghost));
    assert_eq!(
        *log.lock().unwrap(),
        [
            "OwnerDespawned started Some(false)",
            "TargetLost started Some(false)"
        ]
    );
    let haunt_id = gas.catalog().abilities().get("GA_Haunt").unwrap();
    let hunter_system = world.get::<&AbilitySystem>(hunter).unwrap();
    assert!(hunter_system.active_instance(haunt_id).is_none());
    drop(hunter_system);
    assert_eq!(
        gas.pending_timers(),
        0,
        "no wake-up left for a gone instance"
    );
    // Once it has gone, the hunter starts what it likes.
    let other = world.spawn((gas.new_ability_system(),));
    let haunt = GameplayEvent::new(haunt).target(other);
    assert!(gas.handle_event(&mut world, hunter, haunt).activated());
}

/// An ability aimed at its own owner is not cancelled by the tags it owns
/// while active, on the target side as on the owner's: a channel that
/// cancels when its target gains any `Test.State` and owns
/// `Test.State.Channeling` starts on its caster, and another state ends it.
#[test]
fn an_ability_aimed_at_its_owner_is_not_cancelled_by_its_own_tags() {
    const TAGS: &str = "Test.Trigger.Mend\nTest.State.Asleep\nTest.State.Channeling\n";
    const CONTENT: &str = r#"(abilities: [
        (name: "GA_Mend", trigger: "Test.Trigger.Mend",
         activation_owned_tags: ["Test.State.Channeling"],
         cancel_on_target_tags_added: ["Test.State"], behaviour: Registered("Hold")),
    ])"#;
    let mut gas = core_context(TAGS, CONTENT);
    gas.register_behaviour("Hold", Hold).unwrap();
    let mut world = World::new();
    let mender = world.spawn((gas.new_ability_system(),));
    let mend = gas.catalog().abilities().get("GA_Mend").unwrap();
    gas.grant_ability(&mut world, mender, mend, 1).unwrap();
    let trigger = gas.catalog().tags().get("Test.Trigger.Mend").unwrap();
    let asleep = gas.catalog().tags().get("Test.State.Asleep").unwrap();
    let event = GameplayEvent::new(trigger).target(mender);
    assert!(gas.handle_event(&mut world, mender, event).activated());
    let running = |world: &World| {
        world
            .get::<&AbilitySystem>(mender)
            .unwrap()
            .active_instance(mend)
            .is_some()
    };
    assert!(
        running(&world),
        "its own Test.State.Channeling cancels nothing"
    );
    gas.add_loose_tag(&mut world, mender, asleep, false);
    assert!(!running(&world), "another state on its target ends it");
}

/// Ending an instance from game code is a context call like any other:
/// what reacts to its owned tags going (an effect that needs them) does
/// so before the call returns, not at the next one.
#[test]
fn ending_an_ability_from_game_code_reconciles_at_once() {
    let mut sim = Sim::new();
    let hero = sim.hero;
    let channel = sim.fire(hero, sim.event("Test.Trigger.Channel")).unwrap();
    let trance = sim.gas.catalog().effects().get("GE_Trance").unwrap();
    sim.gas
        .apply_effect(&mut sim.world, hero, EffectSpec::new(trance))
        .unwrap();
    assert_eq!(sim.mana(hero), 20.0, "25, less the cost, and the trance");
    assert!(sim
        .gas
        .end_ability(&mut sim.world, hero, channel, EndReason::Cancelled));
    assert_eq!(sim.mana(hero), 15.0, "the trance inhibited at once");
}

/// An instance that a cancelled ability's teardown ends while it starts
/// (the teardown applies a tag the new ability is cancelled by) never
/// activates: its cost is not paid and nothing it would apply lands.
#[test]
fn an_instance_ended_while_it_starts_never_activates() {
    const TAGS: &str = "Test.Trigger.Hum\nTest.Trigger.Bash\nTest.Ability.Hum\nTest.State.Dazed\n";
    const CONTENT: &str = r#"(
        attributes: [(name: "Mana", base: 25, min: 0)],
        effects: [
            (name: "GE_Daze", duration: Duration(Constant(5)), granted_tags: ["Test.State.Dazed"]),
            (name: "GE_Bash_Cost", modifiers: [(attribute: "Mana", op: Flat, magnitude: Constant(-10))]),
        ],
        abilities: [
            (name: "GA_Hum", trigger: "Test.Trigger.Hum", ability_tags: ["Test.Ability.Hum"],
             behaviour: Registered("Backlash")),
            (name: "GA_Bash", trigger: "Test.Trigger.Bash", cost: "GE_Bash_Cost",
             cancel_abilities_with_tags: ["Test.Ability.Hum"],
             cancel_on_tags_added: ["Test.State.Dazed"], behaviour: ApplyEffects([])),
        ],
    )"#;
    /// Runs until cancelled; its teardown dazes its owner.
    struct Backlash(gaskit::EffectId);
    impl AbilityBehaviour for Backlash {
        fn activate(&self, cx: &mut AbilityCx<'_>) {
            cx.wait_delay(SimDuration::from_secs(100));
        }
        fn end(&self, cx: &mut AbilityCx<'_>, _: EndReason) {
            let owner = cx.owner;
            let _ = cx.apply_effect(owner, EffectSpec::new(self.0));
        }
    }
    let mut gas = core_context(TAGS, CONTENT);
    let daze = gas.catalog().effects().get("GE_Daze").unwrap();
    gas.register_behaviour("Backlash", Backlash(daze)).unwrap();
    let mut world = World::new();
    let monk = world.spawn((gas.new_ability_system(),));
    for name in ["GA_Hum", "GA_Bash"] {
        let id = gas.catalog().abilities().get(name).unwrap();
        gas.grant_ability(&mut world, monk, id, 1).unwrap();
    }
    let tag = |gas: &Gas, name: &str| gas.catalog().tags().get(name).unwrap();
    let hum = GameplayEvent::new(tag(&gas, "Test.Trigger.Hum"));
    assert!(gas.handle_event(&mut world, monk, hum).activated());
    let bash = GameplayEvent::new(tag(&gas, "Test.Trigger.Bash"));
    gas.handle_event(&mut world, monk, bash);
    let mana = gas.catalog().attributes().get("Mana").unwrap();
    assert_eq!(
        world.get::<&AbilitySystem>(monk).unwrap().current(mana),
        25.0,
        "no cost paid"
    );
    let bash_id = gas.catalog().abilities().get("GA_Bash").unwrap();
    let dazed = tag(&gas, "Test.State.Dazed");
    let ended = gas.trace().events().iter().find_map(|e| match &e.kind {
        TraceKind::AbilityEnded {
            ability, reason, ..
        } if *ability == bash_id => Some(*reason),
        _ => None,
    });
    assert_eq!(ended, Some(EndReason::CancelledByTag(dazed)));
}

/// A wake that an earlier wake's game code made stale does not happen:
/// the relay, woken by a hit, echoes it; the echo wakes the listener,
/// which moves on to wait for a block; the outer hit then finds the
/// listener no longer waiting for it, and leaves that new wait alone.
#[test]
fn a_wake_made_stale_by_an_earlier_wake_leaves_the_new_wait_alone() {
    const TAGS: &str =
        "Test.Trigger.Relay\nTest.Trigger.Listen\nTest.Hit\nTest.Hit.Echo\nTest.Block\n";
    const CONTENT: &str = r#"(abilities: [
        (name: "GA_Relay", trigger: "Test.Trigger.Relay", behaviour: Registered("Relay")),
        (name: "GA_Listen", trigger: "Test.Trigger.Listen", behaviour: Registered("Listen")),
    ])"#;
    /// Waits for a hit, echoes it to its owner, ends.
    struct Relay(Tag, Tag);
    impl AbilityBehaviour for Relay {
        fn activate(&self, cx: &mut AbilityCx<'_>) {
            cx.wait_event(self.0);
        }
        fn wake(&self, cx: &mut AbilityCx<'_>, _: WakeReason) {
            let owner = cx.owner;
            cx.gas
                .handle_event(cx.world, owner, GameplayEvent::new(self.1));
            cx.end();
        }
    }
    /// Waits for a hit, notes what woke it, then waits for a block.
    struct Listen(Tag, Tag, Log);
    impl AbilityBehaviour for Listen {
        fn activate(&self, cx: &mut AbilityCx<'_>) {
            cx.wait_event(self.0);
        }
        fn wake(&self, cx: &mut AbilityCx<'_>, reason: WakeReason) {
            if let WakeReason::Event(event) = reason {
                self.2.lock().unwrap().push(format!("{:?}", event.tag));
            }
            cx.wait_event(self.1);
        }
    }
    let mut gas = core_context(TAGS, CONTENT);
    let tag = |gas: &Gas, name: &str| gas.catalog().tags().get(name).unwrap();
    let (hit, echo, block) = (
        tag(&gas, "Test.Hit"),
        tag(&gas, "Test.Hit.Echo"),
        tag(&gas, "Test.Block"),
    );
    let log: Log = Arc::default();
    gas.register_behaviour("Relay", Relay(hit, echo)).unwrap();
    gas.register_behaviour("Listen", Listen(hit, block, log.clone()))
        .unwrap();
    let mut world = World::new();
    let bell = world.spawn((gas.new_ability_system(),));
    for name in ["GA_Relay", "GA_Listen"] {
        let id = gas.catalog().abilities().get(name).unwrap();
        gas.grant_ability(&mut world, bell, id, 1).unwrap();
    }
    for trigger in ["Test.Trigger.Relay", "Test.Trigger.Listen"] {
        let event = GameplayEvent::new(tag(&gas, trigger));
        assert!(gas.handle_event(&mut world, bell, event).activated());
    }
    gas.handle_event(&mut world, bell, GameplayEvent::new(hit));
    assert_eq!(
        *log.lock().unwrap(),
        [format!("{echo:?}")],
        "woken once, by the echo"
    );
    let listen = gas.catalog().abilities().get("GA_Listen").unwrap();
    let system = world.get::<&AbilitySystem>(bell).unwrap();
    let key = system.active_instance(listen).unwrap();
    assert_eq!(system.waiting_for(key), Some(gaskit::Wait::Event(block)));
}

/// The same rule on content that knows no combat: a workbench owning
/// `Ui.Panel.Bench`, cancelled on `Ui.Panel`, survives its own panel and
/// closes when the map panel opens.
#[test]
fn a_parent_cancel_tag_spares_only_the_abilitys_own_tag_without_combat() {
    const TAGS: &str = "Test.Trigger.Bench\nUi.Panel.Bench\nUi.Panel.Map\n";
    const CONTENT: &str = r#"(abilities: [
        (name: "GA_Bench", trigger: "Test.Trigger.Bench",
         activation_owned_tags: ["Ui.Panel.Bench"], cancel_on_tags_added: ["Ui.Panel"],
         behaviour: Registered("Hold")),
    ])"#;
    let mut gas = core_context(TAGS, CONTENT);
    gas.register_behaviour("Hold", Hold).unwrap();
    let mut world = World::new();
    let crafter = world.spawn((gas.new_ability_system(),));
    let bench = gas.catalog().abilities().get("GA_Bench").unwrap();
    gas.grant_ability(&mut world, crafter, bench, 1).unwrap();
    let tag = |gas: &Gas, name: &str| gas.catalog().tags().get(name).unwrap();
    let open = GameplayEvent::new(tag(&gas, "Test.Trigger.Bench"));
    assert!(gas.handle_event(&mut world, crafter, open).activated());
    let running = |world: &World| {
        world
            .get::<&AbilitySystem>(crafter)
            .unwrap()
            .active_instance(bench)
            .is_some()
    };
    assert!(running(&world), "its own panel does not close it");
    let map = tag(&gas, "Ui.Panel.Map");
    gas.add_loose_tag(&mut world, crafter, map, false);
    assert!(!running(&world), "another panel does");
}

/// A context on `tags` and `content` alone: the core, no combat.
fn core_context(tags: &str, content: &str) -> Gas {
    let mut builder = CatalogBuilder::new();
    builder.tags().add_source("test.tags", tags);
    builder.add_source("test.ron", content);
    Gas::new(builder.build().unwrap_or_else(|e| panic!("{e}")))
}

/// Waits on the wait it holds.
struct WaitOn(Wait);

impl AbilityBehaviour for WaitOn {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        match self.0 {
            Wait::AttributeBelow(a, v) => cx.wait_attribute_below(a, v),
            Wait::AttributeAbove(a, v) => cx.wait_attribute_above(a, v),
            Wait::Event(t) => cx.wait_event(t),
            Wait::TagAdded(t) => cx.wait_tag_added(t),
            Wait::TagRemoved(t) => cx.wait_tag_removed(t),
            _ => cx.wait_delay(SimDuration::from_secs(1)),
        }
    }
}

/// Grants `GA_Watch` (triggered by `Test.Trigger.Watch`) to `watcher` and
/// starts it; its id.
fn start_watch(gas: &mut Gas, world: &mut World, watcher: Entity) -> AbilityId {
    let watch = gas.catalog().abilities().get("GA_Watch").unwrap();
    gas.grant_ability(world, watcher, watch, 1).unwrap();
    let trigger = gas.catalog().tags().get("Test.Trigger.Watch").unwrap();
    gas.handle_event(world, watcher, GameplayEvent::new(trigger));
    watch
}

/// A wait on something the catalog does not hold (an attribute or tag of
/// another, larger catalog, a threshold that is not a number) ends the
/// instance with `InvalidWait`. It panicked at the next reconcile, or
/// waited for ever and made every later save unrestorable. A valid wait
/// on the same content still waits.
#[test]
fn a_wait_on_what_the_catalog_lacks_ends_the_instance() {
    const TAGS: &str = "Test.Trigger.Watch\n";
    const CONTENT: &str = r#"(attributes: [(name: "Light")],
        abilities: [(name: "GA_Watch", trigger: "Test.Trigger.Watch", behaviour: Registered("Watch"))])"#;
    let larger = core_context(
        // Last in id order, past every id of the smaller catalog.
        "Test.Trigger.Watch\nZz.A\nZz.B\nZz.C\n",
        r#"(attributes: [(name: "Light"), (name: "B"), (name: "C"), (name: "D")])"#,
    );
    let foreign_attribute = larger.catalog().attributes().get("D").unwrap();
    let foreign_tag = larger.catalog().tags().get("Zz.C").unwrap();
    let mine = core_context(TAGS, CONTENT)
        .catalog()
        .attributes()
        .get("Light")
        .unwrap();
    for (wait, valid) in [
        (Wait::AttributeBelow(foreign_attribute, 1.0), false),
        (Wait::AttributeAbove(mine, f64::NAN), false),
        (Wait::Event(foreign_tag), false),
        (Wait::TagRemoved(foreign_tag), false),
        (Wait::AttributeBelow(mine, -1.0), true),
    ] {
        let mut gas = core_context(TAGS, CONTENT);
        gas.register_behaviour("Watch", WaitOn(wait)).unwrap();
        gas.trace_mut().set_filter(TraceFilter::ALL);
        let mut world = World::new();
        let watcher = world.spawn((gas.new_ability_system(),));
        let watch = start_watch(&mut gas, &mut world, watcher);
        gas.advance_by(&mut world, SimDuration::from_secs(1));
        let ended = gas.trace().events().iter().find_map(|e| match e.kind {
            TraceKind::AbilityEnded { reason, .. } => Some(reason),
            _ => None,
        });
        let running = world
            .get::<&AbilitySystem>(watcher)
            .unwrap()
            .active_instance(watch)
            .is_some();
        if valid {
            assert_eq!((ended, running), (None, true), "{wait:?}");
        } else {
            assert_eq!(
                (ended, running),
                (Some(EndReason::InvalidWait), false),
                "{wait:?}"
            );
        }
        let saved = Snapshot::<()>::save(&world, &gas);
        let mut restored = Gas::new(gas.catalog().clone());
        restored.register_behaviour("Watch", WaitOn(wait)).unwrap();
        saved
            .restore(&mut World::new(), &mut restored)
            .unwrap_or_else(|e| panic!("{wait:?}: {e}"));
    }
}

/// Refuses with whatever tag it was built with.
struct RefuseWith(Tag);

impl AbilityBehaviour for RefuseWith {
    fn can_activate(&self, _: &World, _: &Gas, _: &gaskit::Activation<'_>) -> Result<(), Tag> {
        Err(self.0)
    }

    fn activate(&self, cx: &mut AbilityCx<'_>) {
        cx.end();
    }
}

/// Input naming what the catalog does not have, from game code (a server's
/// event, a spec, a loose tag, a behaviour's refusal), is refused or
/// dropped, changing nothing, and rendered without panicking; every save
/// stays restorable. Each was kept, and refused every later restore, or
/// panicked the renderer.
#[test]
fn game_code_naming_what_the_catalog_lacks_changes_nothing() {
    const TAGS: &str = "Test.Trigger.Listen\nTest.Trigger.Refuse\nSetByCaller.Amount\n";
    const CONTENT: &str = r#"(
        attributes: [(name: "Gold")],
        effects: [(name: "GE_Tip", duration: Duration(Constant(5)),
                   modifiers: [(attribute: "Gold", op: Flat, magnitude: Constant(1))])],
        abilities: [
            (name: "GA_Listen", trigger: "Test.Trigger.Listen", behaviour: Registered("Hold")),
            (name: "GA_Refuse", trigger: "Test.Trigger.Refuse", behaviour: Registered("Refuse")),
        ])"#;
    // Last in id order, past every id of the smaller catalog.
    let larger = core_context(&format!("{TAGS}Zz.A\nZz.B\nZz.C\nZz.D\n"), "()");
    let foreign = larger.catalog().tags().get("Zz.D").unwrap();
    let mut gas = core_context(TAGS, CONTENT);
    assert!(!gas.catalog().tags().knows(foreign));
    gas.register_behaviour("Hold", Hold).unwrap();
    gas.register_behaviour("Refuse", RefuseWith(foreign))
        .unwrap();
    gas.trace_mut().set_filter(TraceFilter::ALL);
    let mut world = World::new();
    let owner = world.spawn((gas.new_ability_system(),));
    for name in ["GA_Listen", "GA_Refuse"] {
        let id = gas.catalog().abilities().get(name).unwrap();
        gas.grant_ability(&mut world, owner, id, 1).unwrap();
    }
    let tag = |gas: &Gas, name: &str| gas.catalog().tags().get(name).unwrap();
    let listen = tag(&gas, "Test.Trigger.Listen");
    let tip = gas.catalog().effects().get("GE_Tip").unwrap();
    let amount = tag(&gas, "SetByCaller.Amount");

    // A server's event with a magnitude that is not a number, queued or
    // handled at once, starts nothing.
    let timers = gas.pending_timers();
    gas.send_event(owner, GameplayEvent::new(listen).magnitude(f64::NAN));
    assert_eq!(gas.pending_timers(), timers, "dropped, not queued");
    let outcome = gas.handle_event(
        &mut world,
        owner,
        GameplayEvent::new(listen).magnitude(f64::NAN),
    );
    assert_eq!(
        outcome.first_failure(),
        Some(ActivationFailure::MalformedEvent)
    );
    // A spec whose unread SetByCaller value is not a number, or that
    // carries a tag of another catalog, is refused.
    let unread_nan = EffectSpec::new(tip).with_set_by_caller(amount, f64::NAN);
    assert!(matches!(
        gas.apply_effect(&mut world, owner, unread_nan),
        Err(EffectError::NotFinite { value, .. }) if value.is_nan()
    ));
    assert!(matches!(
        gas.apply_effect(&mut world, owner, EffectSpec::new(tip).with_tag(foreign)),
        Err(EffectError::UnknownSpecTag { .. })
    ));
    // A loose tag of another catalog is not added.
    assert!(!gas.add_loose_tag(&mut world, owner, foreign, true));
    // A refusal naming another catalog's tag renders as `?`.
    let refuse = GameplayEvent::new(tag(&gas, "Test.Trigger.Refuse"));
    assert!(!gas.handle_event(&mut world, owner, refuse).activated());
    let text = gaskit::render_text(&world, gas.catalog(), gas.trace().events());
    assert!(text.contains("fail GA_Refuse"), "{text}");
    assert_eq!(gas.catalog().tags().name(foreign), "?");
    assert_eq!(gas.catalog().tags().subtree(foreign).count(), 0);

    let listen_id = gas.catalog().abilities().get("GA_Listen").unwrap();
    let system = world.get::<&AbilitySystem>(owner).unwrap();
    assert!(system.active_instance(listen_id).is_none());
    assert_eq!(system.effects().effect_count(SimTime::ZERO), 0);
    drop(system);
    let saved = Snapshot::<()>::save(&world, &gas);
    let mut restored = Gas::new(gas.catalog().clone());
    restored.register_behaviour("Hold", Hold).unwrap();
    restored
        .register_behaviour("Refuse", RefuseWith(foreign))
        .unwrap();
    saved.restore(&mut World::new(), &mut restored).unwrap();
}

/// Waits on a tag, then records how it woke.
struct AwaitTag(Wait, Arc<Mutex<Vec<(f64, String)>>>);

impl AbilityBehaviour for AwaitTag {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        match self.0 {
            Wait::TagAdded(t) => cx.wait_tag_added(t),
            Wait::TagRemoved(t) => cx.wait_tag_removed(t),
            _ => unreachable!("a tag wait"),
        }
    }

    fn wake(&self, cx: &mut AbilityCx<'_>, reason: WakeReason) {
        let now = cx.gas.now().as_secs_f64();
        self.1.lock().unwrap().push((now, format!("{reason:?}")));
        cx.end();
    }
}

/// Re-arms, from its own wake, a wait for no stun: with none held, the
/// wait is met again at once.
struct EveryCalmMoment(Arc<Mutex<u32>>);

impl AbilityBehaviour for EveryCalmMoment {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        let stunned = cx.gas.catalog().tags().get("Status.Stunned").unwrap();
        cx.wait_tag_removed(stunned);
    }

    fn wake(&self, cx: &mut AbilityCx<'_>, _reason: WakeReason) {
        *self.0.lock().unwrap() += 1;
        let stunned = cx.gas.catalog().tags().get("Status.Stunned").unwrap();
        cx.wait_tag_removed(stunned);
    }
}

/// A behaviour that re-arms, from its wake, a wait already met woke for
/// ever inside one call, which never returned. The call now stops at the
/// reaction budget, says so in the trace, and returns; the instance keeps
/// its wait, met again the next time its owner is reconciled.
#[test]
fn a_wait_re_armed_already_met_from_its_own_wake_stops_at_the_reaction_budget() {
    const TAGS: &str = "Test.Trigger.Wait\nStatus.Stunned\nStatus.Calm\n";
    const CONTENT: &str = r#"(abilities: [(name: "GA_Wait", trigger: "Test.Trigger.Wait", behaviour: Registered("Loop"))])"#;
    let mut gas = core_context(TAGS, CONTENT);
    gas.trace_mut().set_filter(TraceFilter::ALL);
    let wakes = Arc::new(Mutex::new(0));
    gas.register_behaviour("Loop", EveryCalmMoment(wakes.clone()))
        .unwrap();
    let mut world = World::new();
    let owner = world.spawn((gas.new_ability_system(),));
    let ability = gas.catalog().abilities().get("GA_Wait").unwrap();
    gas.grant_ability(&mut world, owner, ability, 1).unwrap();
    let trigger = GameplayEvent::new(gas.catalog().tags().get("Test.Trigger.Wait").unwrap());
    assert!(gas.handle_event(&mut world, owner, trigger).activated());
    let limits = support::reaction_limits(&gas);
    assert_eq!(limits, [(owner, 1 << 16)]);
    let woken = *wakes.lock().unwrap();
    assert!(woken > 1000 && woken <= 1 << 16, "{woken}");
    let system = world.get::<&AbilitySystem>(owner).unwrap();
    let instance = system.active_instance(ability).expect("still running");
    assert!(
        matches!(system.waiting_for(instance), Some(Wait::TagRemoved(_))),
        "still waiting"
    );
}

/// A tag wait already met when it is set wakes at once, as Unreal's do: a
/// wait for a tag the owner holds, or for one it lacks to be gone (it
/// waited for a change that might never come). One not met waits for the
/// change.
#[test]
fn a_tag_wait_already_met_wakes_at_once() {
    const TAGS: &str = "Test.Trigger.Wait\nStatus.Calm\nStatus.Stunned\n";
    const CONTENT: &str = r#"(abilities: [(name: "GA_Wait", trigger: "Test.Trigger.Wait", behaviour: Registered("Await"))])"#;
    for (holds_calm, removed, expect_at_once) in [
        (true, false, true),   // waits to be calm, is calm
        (false, false, false), // waits to be calm, is not
        (false, true, true),   // waits for no stun, has none
    ] {
        let mut gas = core_context(TAGS, CONTENT);
        let tag = |gas: &Gas, name: &str| gas.catalog().tags().get(name).unwrap();
        let wait = if removed {
            Wait::TagRemoved(tag(&gas, "Status.Stunned"))
        } else {
            Wait::TagAdded(tag(&gas, "Status.Calm"))
        };
        let woken = Arc::new(Mutex::new(Vec::new()));
        gas.register_behaviour("Await", AwaitTag(wait, woken.clone()))
            .unwrap();
        let mut world = World::new();
        let owner = world.spawn((gas.new_ability_system(),));
        let ability = gas.catalog().abilities().get("GA_Wait").unwrap();
        gas.grant_ability(&mut world, owner, ability, 1).unwrap();
        if holds_calm {
            gas.add_loose_tag(&mut world, owner, tag(&gas, "Status.Calm"), false);
        }
        let trigger = GameplayEvent::new(tag(&gas, "Test.Trigger.Wait"));
        assert!(gas.handle_event(&mut world, owner, trigger).activated());
        gas.advance_by(&mut world, SimDuration::from_secs(1));
        let at_once = woken.lock().unwrap().clone();
        if expect_at_once {
            assert_eq!(at_once.len(), 1, "{wait:?}: {at_once:?}");
            assert_eq!(at_once[0].0, 0.0, "{wait:?}: {at_once:?}");
        } else {
            assert!(at_once.is_empty(), "{wait:?}: {at_once:?}");
            gas.add_loose_tag(&mut world, owner, tag(&gas, "Status.Calm"), false);
            assert_eq!(woken.lock().unwrap().len(), 1, "woken by the change");
        }
    }
}

/// A wait set on a host the trace already watches leaves the notices of
/// its lazy ends as they are: it noticed each again, and the copies, moved
/// on at every refresh of the effect, were kept for good (a cooldown
/// re-applied by a loop that waits each time grew them by one a cycle).
#[test]
fn a_wait_on_a_watched_host_notices_its_lazy_ends_once() {
    const TAGS: &str = "Test.Trigger.Watch\nStatus.Marked\nStatus.Calm\n";
    const CONTENT: &str = r#"(
        effects: [(name: "GE_Mark", duration: Duration(Constant(5)), granted_tags: ["Status.Marked"],
                   stacking: (by: Target, limit: 1))],
        abilities: [(name: "GA_Watch", trigger: "Test.Trigger.Watch", behaviour: Registered("Watch"))])"#;
    let mut gas = core_context(TAGS, CONTENT);
    let calm = gas.catalog().tags().get("Status.Calm").unwrap();
    gas.register_behaviour("Watch", WaitOn(Wait::TagAdded(calm)))
        .unwrap();
    gas.trace_mut().set_filter(TraceFilter::ALL);
    let mut world = World::new();
    let watcher = world.spawn((gas.new_ability_system(),));
    let mark = gas.catalog().effects().get("GE_Mark").unwrap();
    assert!(gas.catalog().effects().def(mark).ends_lazily());
    gas.apply_effect(&mut world, watcher, EffectSpec::new(mark))
        .unwrap();
    start_watch(&mut gas, &mut world, watcher);
    for second in 1..=6 {
        gas.advance_to(&mut world, SimTime::from_secs(second));
        gas.apply_effect(&mut world, watcher, EffectSpec::new(mark))
            .unwrap();
        assert_eq!(
            gaskit::invariants::check(&world, &gas),
            Vec::<String>::new(),
            "at {second} s"
        );
    }
}

/// A wait for a tag to be added is not met by an effect applied for no
/// time, which every read treats as gone at once (its tag is noted as
/// appeared, but never held); an application that lasts meets it.
#[test]
fn a_wait_for_a_tag_is_not_met_by_an_effect_applied_for_no_time() {
    const TAGS: &str = "Test.Trigger.Watch\nStatus.Flinch\n";
    const CONTENT: &str = r#"(
        effects: [(name: "GE_Flinch", duration: Duration(SetByCaller("Status.Flinch")),
                   granted_tags: ["Status.Flinch"])],
        abilities: [(name: "GA_Watch", trigger: "Test.Trigger.Watch", behaviour: Registered("Watch"))])"#;
    let mut gas = core_context(TAGS, CONTENT);
    let flinch = gas.catalog().tags().get("Status.Flinch").unwrap();
    gas.register_behaviour("Watch", WaitOn(Wait::TagAdded(flinch)))
        .unwrap();
    let mut world = World::new();
    let watcher = world.spawn((gas.new_ability_system(),));
    let watch = start_watch(&mut gas, &mut world, watcher);
    let effect = gas.catalog().effects().get("GE_Flinch").unwrap();
    assert!(gas.catalog().effects().def(effect).ends_lazily());
    let waiting = |world: &World| {
        let system = world.get::<&AbilitySystem>(watcher).unwrap();
        let instance = system.active_instance(watch).unwrap();
        system.waiting_for(instance)
    };
    let resisted = EffectSpec::new(effect).with_set_by_caller(flinch, 0.0);
    gas.apply_effect(&mut world, watcher, resisted).unwrap();
    assert!(!gas.has_tag(&world, watcher, flinch));
    assert_eq!(
        waiting(&world),
        Some(Wait::TagAdded(flinch)),
        "still waiting"
    );
    let felt = EffectSpec::new(effect).with_set_by_caller(flinch, 1.0);
    gas.apply_effect(&mut world, watcher, felt).unwrap();
    assert_ne!(waiting(&world), Some(Wait::TagAdded(flinch)), "woken");
}
