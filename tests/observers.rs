//! Observers on content that is not combat: a workshop where a smith
//! hammers planks, tires and rests. What an observer sees is the trace's
//! vocabulary in the trace's order, filtered by kind, tag and entity.

mod support;

use std::sync::{Arc, Mutex};

use gaskit::prelude::*;
use hecs::{Entity, World};

const TAGS: &str = "
Status.Tired
Status.Tired.Very
Status.Inspired
Cooldown.Hammer
Ability.Trigger.Hammer
GameplayCue.Work
GameplayCue.Work.Hammer
GameplayCue.Work.Saw
GameplayCue.Rest
Quest.Shed.Built
Quest.Kind.Main
Craft.Fine
";

const CONTENT: &str = r#"(
    attributes: [
        (name: "MaxEnergy", base: 100),
        (name: "Energy", min: 0, max: "MaxEnergy", clamp_base: true, starts_at: "MaxEnergy"),
        (name: "Planks"),
        (name: "Morale", base: 10),
    ],
    effects: [
        (name: "GE_Hammer", modifiers: [
            (attribute: "Planks", op: Flat, magnitude: Constant(2)),
            (attribute: "Energy", op: Flat, magnitude: Constant(-15)),
         ],
         cues: [(tag: "GameplayCue.Work.Hammer", on: Execute)]),
        (name: "GE_Saw", modifiers: [(attribute: "Energy", op: Flat, magnitude: Constant(-5))],
         cues: [(tag: "GameplayCue.Work.Saw", on: Execute)]),
        (name: "GE_Rest", modifiers: [(attribute: "Energy", op: Flat, magnitude: Constant(50))],
         cues: [(tag: "GameplayCue.Rest", on: Execute)]),
        (name: "GE_Tired", duration: Duration(Constant(2)), granted_tags: ["Status.Tired.Very"],
         modifiers: [(attribute: "Morale", op: Flat, magnitude: Constant(-1))],
         stacking: (by: Target, limit: 3, on_expiry: RemoveOneAndRefresh),
         cues: [(tag: "GameplayCue.Work", on: Add), (tag: "GameplayCue.Work", on: Remove)]),
        (name: "GE_Inspired", duration: Infinite, granted_tags: ["Status.Inspired"]),
        (name: "GE_Hammer_Cooldown", duration: Duration(SetByCaller("Cooldown.Hammer")),
         granted_tags: ["Cooldown.Hammer"]),
    ],
    abilities: [
        (name: "GA_Hammer", trigger: "Ability.Trigger.Hammer",
         activation_blocked: (any: ["Status.Tired"]),
         cooldown: (effect: "GE_Hammer_Cooldown", seconds: 1),
         behaviour: ApplyEffects([(effect: "GE_Hammer", to: Owner)])),
        (name: "GA_Polish", trigger: "Ability.Trigger.Hammer",
         behaviour: ApplyEffects([(effect: "GE_Saw", to: Owner)])),
    ],
)"#;

struct Workshop {
    world: World,
    gas: Gas,
    smith: Entity,
    apprentice: Entity,
}

impl Workshop {
    fn new() -> Self {
        let mut builder = CatalogBuilder::new();
        builder.tags().add_source("workshop.tags", TAGS);
        builder.add_source("workshop.ron", CONTENT);
        let mut gas = Gas::new(builder.build().unwrap());
        gas.trace_mut().set_filter(TraceFilter::ALL);
        let mut world = World::new();
        let smith = world.spawn((Name("smith".into()), gas.new_ability_system()));
        let apprentice = world.spawn((Name("apprentice".into()), gas.new_ability_system()));
        let hammer = gas.catalog().abilities().get("GA_Hammer").unwrap();
        gas.grant_ability(&mut world, smith, hammer, 1).unwrap();
        Workshop {
            world,
            gas,
            smith,
            apprentice,
        }
    }

    fn tag(&self, name: &str) -> Tag {
        self.gas.catalog().tags().get(name).unwrap()
    }

    fn attribute(&self, name: &str) -> AttributeId {
        self.gas.catalog().attributes().get(name).unwrap()
    }

    fn spec(&self, name: &str) -> EffectSpec {
        EffectSpec::new(self.gas.catalog().effects().get(name).unwrap())
    }

    fn apply(&mut self, to: Entity, name: &str) {
        let spec = self.spec(name);
        self.gas.apply_effect(&mut self.world, to, spec).unwrap();
    }

    fn hammer(&mut self) {
        let trigger = self.tag("Ability.Trigger.Hammer");
        self.gas.send_event(self.smith, GameplayEvent::new(trigger));
        self.gas.advance_by(&mut self.world, SimDuration::ZERO);
    }

    fn at(&mut self, secs: f64) {
        let to = SimTime::from_secs_f64(secs).unwrap();
        self.gas.advance_to(&mut self.world, to);
    }

    fn energy(&self, of: Entity) -> f64 {
        let energy = self.attribute("Energy");
        self.world
            .get::<&AbilitySystem>(of)
            .unwrap()
            .current(energy)
    }

    fn render(&self, event: &TraceEvent) -> String {
        gaskit::render_line(&self.world, self.gas.catalog(), event)
    }
}

/// A list shared between a test and its observer.
type Shared<T> = Arc<Mutex<Vec<T>>>;

/// A shared list an observer fills, twice: one to move into the observer.
fn collector<T: Send + 'static>() -> (Shared<T>, Shared<T>) {
    let list = Arc::new(Mutex::new(Vec::new()));
    (list.clone(), list)
}

/// Registers an observer of every [`GameRecord`]; the list it fills.
fn observe_game_records(gas: &mut Gas) -> Shared<GameRecord> {
    let (records, log) = collector::<GameRecord>();
    gas.observe(
        Observe::records::<GameRecord>(TraceCategory::GAME),
        move |_, _, seen| {
            if let Some(record) = seen.record::<GameRecord>() {
                log.lock().unwrap().push(*record);
            }
        },
    );
    records
}

#[test]
fn observers_see_exactly_the_trace_in_its_order_even_when_one_acts() {
    let mut shop = Workshop::new();
    let (seen, all) = collector::<TraceEvent>();
    shop.gas
        .observe(Observe::everything(), move |_world, _gas, observed| {
            if let Some(event) = observed.event() {
                all.lock().unwrap().push(event.clone());
            }
        });
    // An observer that acts: below 50 energy the smith rests, at once.
    let (smith, energy) = (shop.smith, shop.attribute("Energy"));
    let rest = shop.spec("GE_Rest");
    shop.gas.observe(
        Observe::below(energy, Threshold::Value(50.0)).of(smith),
        move |world, gas, _seen| {
            gas.apply_effect(world, smith, rest.clone()).unwrap();
        },
    );
    for (secs, step) in [(0.0, 0), (1.0, 1), (2.0, 2), (3.0, 3), (3.5, 4)] {
        shop.at(secs);
        shop.hammer();
        if step == 4 {
            shop.apply(smith, "GE_Tired");
            shop.apply(shop.apprentice, "GE_Saw");
        }
    }
    shop.at(10.0);

    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.as_slice(), shop.gas.trace().events());
    let lines: Vec<String> = seen.iter().map(|e| shop.render(e)).collect();
    // The fourth hammer takes the smith from 55 to 40. The observer is told
    // at the end of the call that crossed the line (the hammer effect's
    // application, inside the ability), so its rest lands after that
    // execution and before the ability ends.
    let crossing = lines
        .iter()
        .position(|l| l.ends_with("smith  Energy 55 -> 40"))
        .unwrap_or_else(|| panic!("{lines:#?}"));
    assert_eq!(
        lines[crossing..crossing + 7],
        [
            "   3.000  smith  Energy 55 -> 40",
            "   3.000  smith  execute GE_Hammer",
            "   3.000  smith  cue GameplayCue.Work.Hammer execute 2",
            "   3.000  smith  Energy 40 -> 90",
            "   3.000  smith  execute GE_Rest",
            "   3.000  smith  cue GameplayCue.Rest execute 50",
            "   3.000  smith  end GA_Hammer (completed)",
        ]
    );
    assert_eq!(shop.energy(smith), 90.0);
}

#[test]
fn a_threshold_is_told_once_per_crossing() {
    let mut shop = Workshop::new();
    let (crossings, log) = collector::<f64>();
    let (energy, max) = (shop.attribute("Energy"), shop.attribute("MaxEnergy"));
    let half = Threshold::FractionOf {
        attribute: max,
        fraction: 0.5,
    };
    shop.gas.observe(
        Observe::below(energy, half).of(shop.smith),
        move |_world, _gas, seen| {
            if let Some(TraceKind::AttributeChanged { new, .. }) = seen.kind() {
                log.lock().unwrap().push(*new);
            }
        },
    );
    let smith = shop.smith;
    // 100 → 85 → 70 → 55 → 40 (crossed) → 25 (still below) → 75 (back up)
    // → 60 → 45 (crossed again).
    for _ in 0..5 {
        shop.apply(smith, "GE_Hammer");
    }
    shop.apply(smith, "GE_Rest");
    shop.apply(smith, "GE_Hammer");
    shop.apply(smith, "GE_Hammer");
    // The apprentice crossing is not the smith's.
    for _ in 0..5 {
        shop.apply(shop.apprentice, "GE_Hammer");
    }
    assert_eq!(*crossings.lock().unwrap(), [40.0, 45.0]);
}

/// A fraction of an attribute the entity does not hold (another, larger
/// catalog's) is never met; delivering the change panicked.
#[test]
fn a_threshold_on_an_attribute_the_entity_lacks_is_never_met() {
    let mut shop = Workshop::new();
    let names: Vec<String> = (0..40).map(|i| format!("(name: \"A{i}\")")).collect();
    let mut builder = CatalogBuilder::new();
    builder.add_source(
        "other.ron",
        &format!("(attributes: [{}])", names.join(", ")),
    );
    let foreign = builder.build().unwrap().attributes().get("A39").unwrap();
    let (crossings, log) = collector::<f64>();
    let energy = shop.attribute("Energy");
    let threshold = Threshold::FractionOf {
        attribute: foreign,
        fraction: 0.5,
    };
    shop.gas
        .observe(Observe::below(energy, threshold), move |_world, _gas, _| {
            log.lock().unwrap().push(0.0);
        });
    let smith = shop.smith;
    for _ in 0..5 {
        shop.apply(smith, "GE_Hammer");
    }
    assert_eq!(shop.energy(smith), 25.0, "the hammering went on");
    assert!(crossings.lock().unwrap().is_empty());
}

#[test]
fn tag_observers_are_parent_aware_and_see_net_changes_only() {
    let mut shop = Workshop::new();
    let (changes, log) = collector::<(Entity, String)>();
    let tired = shop.tag("Status.Tired");
    for observe in [Observe::tag_added(tired), Observe::tag_removed(tired)] {
        let log = log.clone();
        shop.gas.observe(observe, move |_world, gas, seen| {
            if let Some(TraceKind::TagChanged {
                entity,
                tag,
                present,
            }) = seen.kind()
            {
                let sign = if *present { "+" } else { "-" };
                let name = gas.catalog().tags().name(*tag);
                log.lock().unwrap().push((*entity, format!("{sign}{name}")));
            }
        });
    }
    let (smith, apprentice) = (shop.smith, shop.apprentice);
    shop.apply(smith, "GE_Tired");
    // A second stack holds the tag once more: no change of presence.
    shop.apply(smith, "GE_Tired");
    shop.apply(apprentice, "GE_Inspired");
    shop.apply(apprentice, "GE_Tired");
    shop.at(10.0);
    assert_eq!(
        *changes.lock().unwrap(),
        [
            (smith, "+Status.Tired.Very".to_owned()),
            (apprentice, "+Status.Tired.Very".to_owned()),
            // The apprentice's single stack runs out at 2 s; the smith's
            // two run out one at a time (2 s, then 4 s).
            (apprentice, "-Status.Tired.Very".to_owned()),
            (smith, "-Status.Tired.Very".to_owned()),
        ]
    );
}

#[test]
fn cue_observers_match_the_cue_tree_and_carry_what_caused_the_cue() {
    let mut shop = Workshop::new();
    let (cues, log) = collector::<(String, String, f64, Option<Entity>, Option<String>, bool)>();
    let work = shop.tag("GameplayCue.Work");
    shop.gas
        .observe(Observe::cue(work), move |_world, gas, seen| {
            if let Some(TraceKind::Cue {
                source,
                cue,
                event,
                effect,
                magnitude,
                tags,
                ..
            }) = seen.kind()
            {
                let catalog = gas.catalog();
                let fine = catalog.tags().get("Craft.Fine").unwrap();
                log.lock().unwrap().push((
                    catalog.tags().name(*cue).to_owned(),
                    format!("{event:?}"),
                    *magnitude,
                    *source,
                    effect.map(|e| catalog.effects().def(e).name.clone()),
                    tags.has(fine),
                ));
            }
        });
    let (smith, apprentice) = (shop.smith, shop.apprentice);
    let fine = shop.tag("Craft.Fine");
    let hammer = shop
        .spec("GE_Hammer")
        .with_source(apprentice)
        .with_tag(fine);
    shop.gas
        .apply_effect(&mut shop.world, smith, hammer)
        .unwrap();
    shop.apply(smith, "GE_Saw");
    // Resting's cue is not under GameplayCue.Work.
    shop.apply(smith, "GE_Rest");
    shop.apply(smith, "GE_Tired");
    shop.apply(smith, "GE_Tired");
    shop.at(10.0);
    let hammer_cue = shop.tag("GameplayCue.Work.Hammer");
    let described: TagSet = std::iter::once(fine).collect();
    shop.gas.fire_cue(smith, None, hammer_cue, 7.0, &described);
    shop.gas.advance_by(&mut shop.world, SimDuration::ZERO);

    let entry = |cue: &str, event: &str, magnitude, source, effect: Option<&str>, fine| {
        (
            cue.to_owned(),
            event.to_owned(),
            magnitude,
            source,
            effect.map(str::to_owned),
            fine,
        )
    };
    assert_eq!(
        *cues.lock().unwrap(),
        [
            // The first modifier's magnitude, the source, the spec's tags.
            entry(
                "GameplayCue.Work.Hammer",
                "Execute",
                2.0,
                Some(apprentice),
                Some("GE_Hammer"),
                true
            ),
            entry(
                "GameplayCue.Work.Saw",
                "Execute",
                -5.0,
                None,
                Some("GE_Saw"),
                false
            ),
            entry(
                "GameplayCue.Work",
                "Add",
                -1.0,
                None,
                Some("GE_Tired"),
                false
            ),
            // Stacked: the add cue again, for two stacks.
            entry(
                "GameplayCue.Work",
                "Add",
                -2.0,
                None,
                Some("GE_Tired"),
                false
            ),
            // Removed with one stack left of two: its magnitude for one.
            entry(
                "GameplayCue.Work",
                "Remove",
                -1.0,
                None,
                Some("GE_Tired"),
                false
            ),
            // Fired by game code: no effect, the tags it was given.
            entry("GameplayCue.Work.Hammer", "Execute", 7.0, None, None, true),
        ]
    );
}

/// A lasting effect keeps the application it came from (source, spec
/// tags) in parts; its add and remove cues still report them, the remove
/// cue two seconds later when it expires.
#[test]
fn a_lasting_effect_s_cues_carry_its_application_s_source_and_tags() {
    let mut shop = Workshop::new();
    let (cues, log) = collector::<(String, f64, Option<Entity>, bool)>();
    let work = shop.tag("GameplayCue.Work");
    let fine = shop.tag("Craft.Fine");
    shop.gas
        .observe(Observe::cue(work), move |_world, _gas, seen| {
            if let Some(TraceKind::Cue {
                source,
                event,
                tags,
                ..
            }) = seen.kind()
            {
                let at = seen.event().map_or(-1.0, |e| e.time.as_secs_f64());
                log.lock()
                    .unwrap()
                    .push((format!("{event:?}"), at, *source, tags.has(fine)));
            }
        });
    let (smith, apprentice) = (shop.smith, shop.apprentice);
    let tired = shop.spec("GE_Tired").with_source(apprentice).with_tag(fine);
    shop.gas
        .apply_effect(&mut shop.world, smith, tired)
        .unwrap();
    shop.at(3.0);
    assert_eq!(
        *cues.lock().unwrap(),
        [
            ("Add".to_owned(), 0.0, Some(apprentice), true),
            ("Remove".to_owned(), 2.0, Some(apprentice), true),
        ]
    );
}

#[test]
fn effect_observers_see_applications_stacks_blocks_and_removals() {
    let mut shop = Workshop::new();
    let (kinds, log) = collector::<String>();
    shop.gas.observe(
        Observe::effects().of(shop.smith),
        move |world, gas, seen| {
            if let Some(event) = seen.event() {
                let line = gaskit::render_line(world, gas.catalog(), event);
                log.lock().unwrap().push(line);
            }
        },
    );
    let smith = shop.smith;
    shop.apply(smith, "GE_Tired");
    shop.at(1.0);
    shop.apply(smith, "GE_Tired");
    shop.at(10.0);
    assert_eq!(
        *kinds.lock().unwrap(),
        [
            "   0.000  smith  effect+ GE_Tired 2.000s",
            // The second stack refreshes the window (the default)...
            "   1.000  smith  effect+ GE_Tired x2 2.000s",
            // ... and each stack then runs out on its own window.
            "   3.000  smith  stacks GE_Tired x1",
            "   5.000  smith  effect- GE_Tired expired",
        ]
    );
}

#[test]
fn ability_observers_see_activations_refusals_and_ends() {
    let mut shop = Workshop::new();
    let (lines, log) = collector::<String>();
    shop.gas
        .observe(Observe::abilities(), move |world, gas, seen| {
            if let Some(event) = seen.event() {
                let line = gaskit::render_line(world, gas.catalog(), event);
                log.lock().unwrap().push(line);
            }
        });
    shop.hammer();
    shop.hammer();
    shop.at(2.0);
    let smith = shop.smith;
    shop.apply(smith, "GE_Tired");
    shop.hammer();
    assert_eq!(
        *lines.lock().unwrap(),
        [
            "   0.000  smith  activate GA_Hammer",
            "   0.000  smith  end GA_Hammer (completed)",
            "   0.000  smith  fail GA_Hammer: Not ready yet. [Cooldown.Hammer, 1.000s left]",
            "   2.000  smith  fail GA_Hammer: You cannot do that right now. [Status.Tired.Very]",
        ]
    );
}

#[test]
fn hooks_and_observers_are_plain_closures() {
    let mut shop = Workshop::new();
    let planks = shop.attribute("Planks");
    let inspired = shop.spec("GE_Inspired");
    // No annotations: the closure's argument types come from the signature.
    shop.gas.add_hook(move |world, gas, target, execution| {
        let made = world
            .get::<&AbilitySystem>(target)
            .map_or(0.0, |s| s.current(planks));
        if execution.effect == gas.catalog().effects().get("GE_Hammer").unwrap() && made >= 4.0 {
            gas.apply_effect(world, target, inspired.clone()).unwrap();
        }
    });
    let seen = Arc::new(Mutex::new(0));
    let count = seen.clone();
    shop.gas.observe(Observe::effects(), move |_, _, _| {
        *count.lock().unwrap() += 1;
    });
    let smith = shop.smith;
    shop.apply(smith, "GE_Hammer");
    let is_inspired = |shop: &Workshop| {
        let inspired = shop.tag("Status.Inspired");
        assert!(shop.world.get::<&AbilitySystem>(smith).is_ok());
        shop.gas.has_tag(&shop.world, smith, inspired)
    };
    assert!(!is_inspired(&shop));
    shop.apply(smith, "GE_Hammer");
    assert!(is_inspired(&shop), "the hook acted on the second hammer");
    // Two executions and the effect the hook added.
    assert_eq!(*seen.lock().unwrap(), 3);
}

#[test]
fn nobody_listening_means_nothing_is_kept() {
    let mut shop = Workshop::new();
    shop.gas.trace_mut().set_filter(TraceFilter::NONE);
    let smith = shop.smith;
    shop.apply(smith, "GE_Tired");
    shop.hammer();
    shop.at(5.0);
    assert!(shop.gas.trace().events().is_empty());
    // What game code asks before building a costly record or cue.
    assert!(!shop.gas.traces(TraceCategory::CUES));
    // One observer of cues: cues are delivered, the trace still keeps none.
    let (cues, log) = collector::<Tag>();
    let work = shop.tag("GameplayCue.Work");
    shop.gas.observe(Observe::cue(work), move |_, _, seen| {
        if let Some(TraceKind::Cue { cue, .. }) = seen.kind() {
            log.lock().unwrap().push(*cue);
        }
    });
    // An observer counts as wanting its category, and only its category.
    assert!(shop.gas.traces(TraceCategory::CUES));
    assert!(!shop.gas.traces(TraceCategory::EFFECTS));
    shop.apply(smith, "GE_Saw");
    assert_eq!(*cues.lock().unwrap(), [shop.tag("GameplayCue.Work.Saw")]);
    assert!(shop.gas.trace().events().is_empty());
}

#[test]
fn game_records_reach_observers_and_both_renderers() {
    let mut shop = Workshop::new();
    let records = observe_game_records(&mut shop.gas);
    let (built, main) = (shop.tag("Quest.Shed.Built"), shop.tag("Quest.Kind.Main"));
    let record = GameRecord::new(built, shop.smith)
        .other(shop.apprentice)
        .magnitude(12.0)
        .payload(main);
    shop.gas.record_game(record);
    shop.gas.advance_by(&mut shop.world, SimDuration::ZERO);
    assert_eq!(*records.lock().unwrap(), [record]);

    let events = shop.gas.trace().events();
    let text = gaskit::render_text(&shop.world, shop.gas.catalog(), events);
    assert_eq!(
        text,
        "   0.000  smith  Quest.Shed.Built -> apprentice 12 [Quest.Kind.Main]\n"
    );
    let json = gaskit::render_jsonl(&shop.world, shop.gas.catalog(), events);
    assert_eq!(
        json,
        "{\"t\":0,\"kind\":\"game\",\"source\":\"smith\",\"target\":\"apprentice\",\
         \"tag\":\"Quest.Shed.Built\",\"magnitude\":12,\"payload\":\"Quest.Kind.Main\"}\n"
    );
    // Filtered out, a record is neither kept nor built.
    shop.gas.trace_mut().clear();
    shop.gas
        .trace_mut()
        .set_filter(TraceFilter::ALL.without(TraceCategory::GAME));
    assert!(
        shop.gas.traces(TraceCategory::GAME),
        "an observer still wants it"
    );
}

/// A record passed as a closure is built only when the trace records its
/// category or an observer watches it, and then is kept and delivered as
/// one passed built.
#[test]
fn a_record_built_on_demand_is_built_only_when_wanted() {
    let mut shop = Workshop::new();
    let built = Arc::new(Mutex::new(0_u32));
    let record = GameRecord::new(shop.tag("Quest.Shed.Built"), shop.smith).magnitude(3.0);
    let build = |built: &Arc<Mutex<u32>>| {
        let built = Arc::clone(built);
        move || {
            *built.lock().unwrap() += 1;
            record
        }
    };
    // Nobody records or watches it: never built.
    shop.gas.trace_mut().set_filter(TraceFilter::NONE);
    shop.gas
        .record_game_with(TraceCategory::GAME, build(&built));
    assert_eq!(*built.lock().unwrap(), 0);
    assert!(shop.gas.trace().events().is_empty());
    // Recorded: built once and kept, as `record_game` keeps it.
    shop.gas.trace_mut().set_filter(TraceFilter::ALL);
    shop.gas
        .record_game_with(TraceCategory::GAME, build(&built));
    assert_eq!(*built.lock().unwrap(), 1);
    shop.gas.record_game(record);
    let kept: Vec<_> = shop
        .gas
        .trace()
        .events()
        .iter()
        .map(|e| (e.time, e.kind.record::<GameRecord>().copied()))
        .collect();
    assert_eq!(kept, [(SimTime::ZERO, Some(record)); 2]);
    // Only observed: built once more and delivered, not kept.
    shop.gas.trace_mut().clear();
    shop.gas.trace_mut().set_filter(TraceFilter::NONE);
    let records = observe_game_records(&mut shop.gas);
    shop.gas
        .record_game_with(TraceCategory::GAME, build(&built));
    shop.gas.advance_by(&mut shop.world, SimDuration::ZERO);
    assert_eq!(*built.lock().unwrap(), 2);
    assert_eq!(*records.lock().unwrap(), [record]);
    assert!(shop.gas.trace().events().is_empty());
}

/// One observation as a line: the event as the trace renders it, or the
/// execution's target.
fn describe(world: &World, gas: &Gas, seen: &Observation) -> String {
    match seen.event() {
        Some(event) => gaskit::render_line(world, gas.catalog(), event),
        None => format!("execution on {:?}", seen.subject()),
    }
}

/// An observer registered by another while observations are delivered
/// hears those that follow in the same delivery, not the one being
/// delivered, and everything after; each observation reaches the first
/// observer once.
#[test]
fn an_observer_registered_during_a_delivery_hears_what_follows() {
    let mut shop = Workshop::new();
    let (first_saw, first_log) = collector::<String>();
    let (second_saw, second_log) = collector::<String>();
    let registered = Arc::new(Mutex::new(false));
    shop.gas
        .observe(Observe::everything(), move |world, gas, seen| {
            first_log.lock().unwrap().push(describe(world, gas, seen));
            let mut registered = registered.lock().unwrap();
            if !*registered {
                *registered = true;
                let log = second_log.clone();
                gas.observe(Observe::everything(), move |world, gas, seen| {
                    log.lock().unwrap().push(describe(world, gas, seen));
                });
            }
        });
    let smith = shop.smith;
    shop.apply(smith, "GE_Hammer");
    let first_call = first_saw.lock().unwrap().clone();
    assert!(
        first_call.len() > 2,
        "one hammer blow is several observations: {first_call:?}"
    );
    assert_eq!(*second_saw.lock().unwrap(), first_call[1..]);
    shop.apply(smith, "GE_Saw");
    let first = first_saw.lock().unwrap().clone();
    let second = second_saw.lock().unwrap().clone();
    assert!(first.len() > first_call.len());
    assert_eq!(second, first[1..], "both hear the second call whole");
}

/// A record type whose values fall in two categories: a chime is loud or
/// soft.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Chime {
    bell: Entity,
    loud: bool,
}

impl gaskit::TraceRecord for Chime {
    fn kind(&self) -> &'static str {
        "chime"
    }
    fn category(&self) -> TraceCategory {
        TraceCategory::game(if self.loud { 5 } else { 6 })
    }
    fn parties(&self) -> (Entity, Option<Entity>) {
        (self.bell, None)
    }
    fn describe(&self, _: &gaskit::trace::RenderCx<'_>) -> String {
        "chimes".into()
    }
    fn json(&self, _: &gaskit::trace::RenderCx<'_>, _: &mut gaskit::trace::JsonFields) {}
}

/// An observer of a record type under one category hears only that
/// category's records of the type, even when another observer asks for
/// every category.
#[test]
fn a_record_observer_hears_only_its_category() {
    let mut shop = Workshop::new();
    let bell = shop.smith;
    let (loud, heard) = collector::<Chime>();
    shop.gas.observe(
        Observe::records::<Chime>(TraceCategory::game(5)),
        move |_, _, seen| {
            if let Some(chime) = seen.record::<Chime>() {
                heard.lock().unwrap().push(*chime);
            }
        },
    );
    shop.gas.observe(Observe::everything(), |_, _, _| {});
    shop.gas.record_game(Chime { bell, loud: true });
    shop.gas.record_game(Chime { bell, loud: false });
    shop.at(1.0);
    assert_eq!(*loud.lock().unwrap(), [Chime { bell, loud: true }]);
}

/// A restore forgets what the abandoned timeline left undelivered: a cue
/// game code fired between steps, then rolled back past, is not told to
/// observers of the restored one (it was, at the next call).
#[test]
fn a_restore_forgets_observations_the_abandoned_timeline_left() {
    let mut shop = Workshop::new();
    let (told, log) = collector::<f64>();
    let saw = shop.tag("GameplayCue.Work.Saw");
    shop.gas
        .observe(Observe::cue(saw), move |_world, _gas, observed| {
            if let Some(TraceKind::Cue { magnitude, .. }) = observed.kind() {
                log.lock().unwrap().push(*magnitude);
            }
        });
    let saved = gaskit::snapshot::Snapshot::<()>::save(&shop.world, &shop.gas);
    let smith = shop.smith;
    shop.gas.fire_cue(smith, None, saw, 1.0, &TagSet::new());
    saved.restore(&mut shop.world, &mut shop.gas).unwrap();
    shop.gas.advance_by(&mut shop.world, SimDuration::ZERO);
    assert!(
        told.lock().unwrap().is_empty(),
        "{:?}",
        told.lock().unwrap()
    );
    // Fired in the restored timeline, it is told.
    shop.gas.fire_cue(smith, None, saw, 2.0, &TagSet::new());
    shop.gas.advance_by(&mut shop.world, SimDuration::ZERO);
    assert_eq!(*told.lock().unwrap(), [2.0]);
}

/// An observer can be removed: from the next observation on it hears
/// nothing, the others go on, and one that removes itself from its own
/// callback hears nothing more either (an observer watching a visitor who
/// has left). Removing one twice, or an id never given, says so.
#[test]
fn an_observer_removed_hears_nothing_more() {
    let mut shop = Workshop::new();
    let (kept, kept_log) = collector::<String>();
    let (removed, removed_log) = collector::<String>();
    let (once, once_log) = collector::<String>();
    let work = shop.tag("GameplayCue.Work");
    shop.gas.observe(Observe::cue(work), move |_, gas, _| {
        kept_log.lock().unwrap().push(format!("{}", gas.now()));
    });
    let id = shop.gas.observe(Observe::cue(work), move |_, gas, _| {
        removed_log.lock().unwrap().push(format!("{}", gas.now()));
    });
    // Hears one cue, then removes itself.
    let own = Arc::new(Mutex::new(None));
    let own_id = own.clone();
    let self_removing = shop.gas.observe(Observe::cue(work), move |_, gas, _| {
        once_log.lock().unwrap().push(format!("{}", gas.now()));
        let id = own_id.lock().unwrap().expect("registered");
        assert!(gas.unobserve(id));
    });
    *own.lock().unwrap() = Some(self_removing);
    let smith = shop.smith;
    shop.apply(smith, "GE_Saw");
    assert!(shop.gas.unobserve(id));
    assert!(!shop.gas.unobserve(id), "already removed");
    shop.at(1.0);
    shop.apply(smith, "GE_Saw");
    assert_eq!(kept.lock().unwrap().len(), 2);
    assert_eq!(removed.lock().unwrap().len(), 1);
    assert_eq!(once.lock().unwrap().len(), 1);
    assert!(!shop.gas.unobserve(self_removing));
}

/// An observer that causes what it observes (it re-applies the saw whose
/// cue it hears) kept one call going for ever. Delivery now stops after
/// its budget of observations, drops what is still queued, records a
/// `reaction_limit` naming the smith, and the call returns with the
/// context usable.
#[test]
fn an_observer_that_causes_what_it_observes_stops_at_the_delivery_budget() {
    let mut shop = Workshop::new();
    let saw = shop.tag("GameplayCue.Work.Saw");
    let spec = shop.spec("GE_Saw");
    let smith = shop.smith;
    let heard = Arc::new(Mutex::new(0u32));
    let count = heard.clone();
    shop.gas.observe(Observe::cue(saw), move |world, gas, _| {
        *count.lock().unwrap() += 1;
        let _ = gas.apply_effect(world, smith, spec.clone());
    });
    shop.apply(smith, "GE_Saw");
    let limits = support::reaction_limits(&shop.gas);
    assert_eq!(limits, [(smith, 1 << 16)]);
    let heard_then = *heard.lock().unwrap();
    assert!(heard_then > 1000, "{heard_then}");
    // The context goes on: the next call delivers afresh.
    shop.at(1.0);
    shop.apply(smith, "GE_Rest");
    assert!(shop.energy(smith) > 0.0);
}

/// An observer that restores a snapshot (a checkpoint reload when energy
/// runs low) abandons the timeline it was told of: what else that
/// timeline queued in the same batch (the hammer's cue, its execution) is
/// not handed to other observers afterwards, in the restored world.
#[test]
fn an_observer_that_restores_ends_the_abandoned_timelines_deliveries() {
    let mut shop = Workshop::new();
    let smith = shop.smith;
    let checkpoint = gaskit::snapshot::Snapshot::<()>::save(&shop.world, &shop.gas);
    let energy = shop.attribute("Energy");
    shop.gas.observe(
        Observe::below(energy, Threshold::Value(90.0)).of(smith),
        move |world, gas, _| checkpoint.restore(world, gas).unwrap(),
    );
    let (heard, log) = collector::<Tag>();
    shop.gas.observe(
        Observe::cue(shop.tag("GameplayCue.Work")),
        move |_, _, seen| {
            if let Observation::Event(event) = seen {
                if let TraceKind::Cue { cue, .. } = event.kind {
                    log.lock().unwrap().push(cue);
                }
            }
        },
    );
    let (executions, log) = collector::<Entity>();
    shop.gas.observe(Observe::executions(), move |_, _, seen| {
        if let Observation::Execution { target, .. } = seen {
            log.lock().unwrap().push(*target);
        }
    });
    shop.apply(smith, "GE_Hammer");
    assert_eq!(shop.energy(smith), 100.0, "the checkpoint was restored");
    assert_eq!(heard.lock().unwrap().len(), 0, "the abandoned hammer's cue");
    assert_eq!(executions.lock().unwrap().len(), 0, "and its execution");
    // The restored timeline is told of what happens in it.
    shop.apply(smith, "GE_Saw");
    assert_eq!(shop.energy(smith), 95.0);
    assert_eq!(heard.lock().unwrap().len(), 1, "the saw's cue");
}

/// An entity despawned through the context with an effect whose add cue
/// started something (a glow) plays that effect's remove cue as it goes,
/// so an observer can stop what it started; nothing went out before.
#[test]
fn a_despawn_plays_the_remove_cues_of_started_effects() {
    let mut shop = Workshop::new();
    let apprentice = shop.apprentice;
    let (heard, log) = collector::<(CueEvent, Entity)>();
    shop.gas.observe(
        Observe::cue(shop.tag("GameplayCue.Work")),
        move |_, _, seen| {
            if let Observation::Event(event) = seen {
                if let TraceKind::Cue {
                    event: cue_event,
                    target,
                    ..
                } = event.kind
                {
                    log.lock().unwrap().push((cue_event, target));
                }
            }
        },
    );
    shop.apply(apprentice, "GE_Tired");
    assert_eq!(*heard.lock().unwrap(), [(CueEvent::Add, apprentice)]);
    assert!(shop.gas.despawn(&mut shop.world, apprentice));
    assert_eq!(
        *heard.lock().unwrap(),
        [(CueEvent::Add, apprentice), (CueEvent::Remove, apprentice)]
    );
}

/// An observer that restores a snapshot in the middle of an event's
/// handling ends that handling: the hammer's blow crosses the threshold
/// whose observer reloads the checkpoint, and the polish the same event
/// triggers after it does not run in the restored world (it did, paying
/// 5 energy the restored timeline never spent).
#[test]
fn an_observer_that_restores_ends_the_event_being_handled() {
    let mut shop = Workshop::new();
    let smith = shop.smith;
    let polish = shop.gas.catalog().abilities().get("GA_Polish").unwrap();
    shop.gas
        .grant_ability(&mut shop.world, smith, polish, 1)
        .unwrap();
    let checkpoint = gaskit::snapshot::Snapshot::<()>::save(&shop.world, &shop.gas);
    let energy = shop.attribute("Energy");
    shop.gas.observe(
        Observe::below(energy, Threshold::Value(90.0)).of(smith),
        move |world, gas, _| checkpoint.restore(world, gas).unwrap(),
    );
    let trigger = shop.tag("Ability.Trigger.Hammer");
    let outcome = shop
        .gas
        .handle_event(&mut shop.world, smith, GameplayEvent::new(trigger));
    assert_eq!(
        shop.energy(smith),
        100.0,
        "the checkpoint, and nothing after it"
    );
    let hammer = shop.gas.catalog().abilities().get("GA_Hammer").unwrap();
    let started: Vec<AbilityId> = outcome.activations.iter().map(|(a, _)| *a).collect();
    assert_eq!(started, [hammer], "the polish never started");
}

/// Toils as it ends: a teardown that costs its owner energy.
struct ToilOnEnd;

impl AbilityBehaviour for ToilOnEnd {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        cx.wait_delay(SimDuration::from_secs(100));
    }

    fn end(&self, cx: &mut AbilityCx<'_>, _: EndReason) {
        let toil = cx.gas.catalog().effects().get("GE_Toil").unwrap();
        let owner = cx.owner;
        let _ = cx.apply_effect(owner, EffectSpec::new(toil));
    }
}

/// A yard where `GA_Watch` (its teardown toils, 15 energy of 100) runs
/// on a smith, retriggering or not; the smith, the watch and its trigger.
fn yard(retrigger: bool) -> (Gas, World, Entity, AbilityId, Tag) {
    let mut builder = CatalogBuilder::new();
    builder
        .tags()
        .add_source("yard.tags", "Ability.Trigger.Watch\n");
    builder.add_source(
        "yard.ron",
        &format!(
            r#"(
        attributes: [(name: "Energy", base: 100)],
        effects: [(name: "GE_Toil", modifiers: [(attribute: "Energy", op: Flat, magnitude: Constant(-15))])],
        abilities: [(name: "GA_Watch", trigger: "Ability.Trigger.Watch", retrigger: {retrigger},
                     behaviour: Registered("Toil"))],
    )"#
        ),
    );
    let mut gas = Gas::new(builder.build().unwrap_or_else(|e| panic!("{e}")));
    gas.register_behaviour("Toil", ToilOnEnd).unwrap();
    let mut world = World::new();
    let smith = world.spawn((gas.new_ability_system(),));
    let watch = gas.catalog().abilities().get("GA_Watch").unwrap();
    gas.grant_ability(&mut world, smith, watch, 1).unwrap();
    let trigger = gas.catalog().tags().get("Ability.Trigger.Watch").unwrap();
    (gas, world, smith, watch, trigger)
}

/// Restores `checkpoint` once `smith`'s energy falls below 90.
fn reload_when_tired(gas: &mut Gas, smith: Entity, checkpoint: gaskit::snapshot::Snapshot<()>) {
    let energy = gas.catalog().attributes().get("Energy").unwrap();
    gas.observe(
        Observe::below(energy, Threshold::Value(90.0)).of(smith),
        move |world, gas, _| checkpoint.restore(world, gas).unwrap(),
    );
}

/// An observer that restores a snapshot while a despawn runs its
/// teardowns ends the despawn: the restored entity stays, with its
/// running watch. (The despawn went on in the restored world, played the
/// restored effects' departures and took the entity out of it.)
#[test]
fn an_observer_that_restores_ends_the_despawn_being_run() {
    let (mut gas, mut world, smith, watch, trigger) = yard(false);
    assert!(gas
        .handle_event(&mut world, smith, GameplayEvent::new(trigger))
        .activated());
    let checkpoint = gaskit::snapshot::Snapshot::<()>::save(&world, &gas);
    reload_when_tired(&mut gas, smith, checkpoint);
    assert!(
        !gas.despawn(&mut world, smith),
        "abandoned with its timeline"
    );
    assert!(world.contains(smith), "the restored smith stays");
    let energy = gas.catalog().attributes().get("Energy").unwrap();
    assert_eq!(gas.attribute_value(&world, smith, energy), Some(100.0));
    let system = world.get::<&AbilitySystem>(smith).unwrap();
    assert!(system.active_instance(watch).is_some(), "still watching");
}

/// The same for a retrigger: the running watch's teardown reloads a
/// checkpoint from before it started, and the new watch belonged to the
/// abandoned timeline, so none runs. (It started in the restored world.)
#[test]
fn an_observer_that_restores_ends_the_retrigger_being_run() {
    let (mut gas, mut world, smith, watch, trigger) = yard(true);
    let checkpoint = gaskit::snapshot::Snapshot::<()>::save(&world, &gas);
    reload_when_tired(&mut gas, smith, checkpoint);
    assert!(gas
        .handle_event(&mut world, smith, GameplayEvent::new(trigger))
        .activated());
    assert!(!gas
        .handle_event(&mut world, smith, GameplayEvent::new(trigger))
        .activated());
    let system = world.get::<&AbilitySystem>(smith).unwrap();
    assert!(
        system.active_instance(watch).is_none(),
        "the checkpoint's yard"
    );
}
