//! The GAS vocabulary effects speak in data, on content that is not
//! combat: a garden. Chance to apply, conditional effects, effects applied
//! on expiry and on removal, abilities granted while an effect is active,
//! and abilities that wait on an attribute or an effect.

use std::sync::{Arc, Mutex};

use gaskit::prelude::*;
use gaskit::{invariants, snapshot};
use hecs::{Entity, World};

const TAGS: &str = "
Status.Wet
Status.Blooming
Status.Withered
Status.Shaded
Garden.Echo
Ability.Trigger.Pollinate
Ability.Trigger.Watch
Ability.Bee
Record.Dry
Record.Soaked
Record.WardGone
";

const CONTENT: &str = r#"(
    attributes: [
        (name: "Water", base: 50, min: 0, max: 100),
        (name: "Growth"),
        (name: "Petals"),
        (name: "Seeds"),
        (name: "Pollen"),
    ],
    effects: [
        (name: "GE_Rain", duration: Duration(Constant(4)), granted_tags: ["Status.Wet"]),
        // Sunshine grows the plant; on a wet plant it also makes it bloom.
        (name: "GE_Sun", modifiers: [(attribute: "Growth", op: Flat, magnitude: Constant(1))],
         conditional: [(effect: "GE_Bloom", when: (all: ["Status.Wet"]))]),
        // Soaking wets the plant; the bloom it may cause is judged on the
        // plant as it was before the soak.
        (name: "GE_Soak", duration: Duration(Constant(2)), granted_tags: ["Status.Wet"],
         conditional: [(effect: "GE_Bloom", when: (all: ["Status.Wet"]))]),
        // A bloom sets seed if it runs its course, withers if cut short,
        // and lets bees pollinate while it lasts (unless shaded).
        (name: "GE_Bloom", duration: Duration(Constant(3)), granted_tags: ["Status.Blooming"],
         ongoing_requirements: (none: ["Status.Shaded"]),
         granted_abilities: ["GA_Pollinate"],
         on_expiry: ["GE_Seed"], on_removal: ["GE_Wither"]),
        (name: "GE_Seed", modifiers: [(attribute: "Seeds", op: Flat, magnitude: Scaled([1, 2, 3]))]),
        (name: "GE_Wither", duration: Infinite, granted_tags: ["Status.Withered"]),
        (name: "GE_Shade", duration: Duration(Constant(1)), granted_tags: ["Status.Shaded"]),
        (name: "GE_Petal", chance: 0.3, modifiers: [(attribute: "Petals", op: Flat, magnitude: Constant(1))]),
        (name: "GE_Never", chance: 0.0, modifiers: [(attribute: "Petals", op: Flat, magnitude: Constant(1))]),
        (name: "GE_Drink", modifiers: [(attribute: "Water", op: Flat, magnitude: Constant(-15))]),
        (name: "GE_Pour", modifiers: [(attribute: "Water", op: Flat, magnitude: Constant(40))]),
        (name: "GE_Ward", duration: Duration(Constant(5))),
        (name: "GE_Pollen", modifiers: [(attribute: "Pollen", op: Flat, magnitude: Constant(1))]),
        // Bad data: every echo removes the one before, whose removal echoes.
        (name: "GE_Echo", duration: Duration(Constant(5)), granted_tags: ["Garden.Echo"],
         remove_effects_with_tags: ["Garden.Echo"], on_removal: ["GE_Echo"]),
    ],
    abilities: [
        (name: "GA_Pollinate", trigger: "Ability.Trigger.Pollinate", ability_tags: ["Ability.Bee"],
         behaviour: Registered("Buzz")),
        (name: "GA_Watch", trigger: "Ability.Trigger.Watch", behaviour: Registered("Watch")),
    ],
)"#;

/// Pollinates once, then hums on until something ends it.
struct Buzz {
    pollen: EffectId,
}

impl AbilityBehaviour for Buzz {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        let owner = cx.owner;
        cx.apply_effect(owner, EffectSpec::new(self.pollen))
            .unwrap();
    }
}

/// Watches the plant: waits for it to dry out (Water below 30), then to be
/// soaked (above 60), then for its own ward to end, recording each.
struct Watch {
    water: AttributeId,
    ward: EffectId,
    dry: Tag,
    soaked: Tag,
    ward_gone: Tag,
}

impl AbilityBehaviour for Watch {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        cx.wait_attribute_below(self.water, 30.0);
    }

    fn wake(&self, cx: &mut AbilityCx<'_>, reason: WakeReason) {
        let owner = cx.owner;
        match reason {
            WakeReason::Attribute { value, .. } if value < 30.0 => {
                cx.gas
                    .record_game(GameRecord::new(self.dry, owner).magnitude(value));
                cx.wait_attribute_above(self.water, 60.0);
            }
            WakeReason::Attribute { value, .. } => {
                cx.gas
                    .record_game(GameRecord::new(self.soaked, owner).magnitude(value));
                match cx.apply_effect(owner, EffectSpec::new(self.ward)) {
                    Ok(ApplyOutcome::Added(key)) => cx.wait_effect_removed(key),
                    _ => cx.end(),
                }
            }
            WakeReason::EffectRemoved(_) => {
                cx.gas.record_game(GameRecord::new(self.ward_gone, owner));
                cx.end();
            }
            _ => cx.end(),
        }
    }
}

fn builder() -> CatalogBuilder {
    let mut builder = CatalogBuilder::new();
    builder.tags().add_source("garden.tags", TAGS);
    builder.add_source("garden.ron", CONTENT);
    builder
}

struct Garden {
    world: World,
    gas: Gas,
    plant: Entity,
    gardener: Entity,
}

impl Garden {
    fn new(seed: u64) -> Self {
        let catalog = builder().build().unwrap();
        let mut gas = Gas::with_seed(catalog, seed);
        gas.trace_mut()
            .set_filter(TraceFilter::ALL.without(TraceCategory::TAGS));
        let ids = gas.catalog();
        let effect = |name: &str| ids.effects().get(name).unwrap();
        let tag = |name: &str| ids.tags().get(name).unwrap();
        let buzz = Buzz {
            pollen: effect("GE_Pollen"),
        };
        let watch = Watch {
            water: ids.attributes().get("Water").unwrap(),
            ward: effect("GE_Ward"),
            dry: tag("Record.Dry"),
            soaked: tag("Record.Soaked"),
            ward_gone: tag("Record.WardGone"),
        };
        gas.register_behaviour("Buzz", buzz).unwrap();
        gas.register_behaviour("Watch", watch).unwrap();
        let mut world = World::new();
        let plant = world.spawn((Name("plant".into()), gas.new_ability_system()));
        let gardener = world.spawn((Name("gardener".into()), gas.new_ability_system()));
        Garden {
            world,
            gas,
            plant,
            gardener,
        }
    }

    fn id(&self, effect: &str) -> EffectId {
        self.gas.catalog().effects().get(effect).unwrap()
    }

    fn ability(&self, name: &str) -> AbilityId {
        self.gas.catalog().abilities().get(name).unwrap()
    }

    /// Grants `ability` to the plant at `level` (game code's grant).
    fn grant(&mut self, ability: AbilityId, level: u32) {
        self.gas
            .grant_ability(&mut self.world, self.plant, ability, level)
            .unwrap();
    }

    fn apply(&mut self, effect: &str) -> ApplyOutcome {
        let spec = EffectSpec::new(self.id(effect)).with_source(self.gardener);
        self.gas
            .apply_effect(&mut self.world, self.plant, spec)
            .unwrap()
    }

    fn at(&mut self, secs: f64) {
        let to = SimTime::from_secs_f64(secs).unwrap();
        self.gas.advance_to(&mut self.world, to);
    }

    fn value(&self, attribute: &str) -> f64 {
        let id = self.gas.catalog().attributes().get(attribute).unwrap();
        self.world
            .get::<&AbilitySystem>(self.plant)
            .unwrap()
            .current(id)
    }

    fn has(&self, tag: &str) -> bool {
        let tag = self.gas.catalog().tags().get(tag).unwrap();
        self.gas.has_tag(&self.world, self.plant, tag)
    }

    fn system(&self) -> hecs::Ref<'_, AbilitySystem> {
        self.world.get::<&AbilitySystem>(self.plant).unwrap()
    }

    fn press(&mut self, trigger: &str) {
        let tag = self.gas.catalog().tags().get(trigger).unwrap();
        self.gas
            .handle_event(&mut self.world, self.plant, GameplayEvent::new(tag));
    }

    fn lines(&self) -> Vec<String> {
        gaskit::render_text(&self.world, self.gas.catalog(), self.gas.trace().events())
            .lines()
            .map(str::to_owned)
            .collect()
    }

    fn assert_sound(&self) {
        let broken = invariants::check(&self.world, &self.gas);
        assert!(broken.is_empty(), "{broken:#?}");
    }
}

#[test]
fn chance_rolls_on_the_context_rng_and_a_miss_is_a_block() {
    let petals = |seed| {
        let mut garden = Garden::new(seed);
        let outcomes: Vec<bool> = (0..200)
            .map(|_| !matches!(garden.apply("GE_Petal"), ApplyOutcome::Blocked(_)))
            .collect();
        (outcomes, garden)
    };
    let (outcomes, garden) = petals(9);
    let landed = outcomes.iter().filter(|&&l| l).count();
    assert_eq!(garden.value("Petals"), landed as f64);
    assert!((35..=85).contains(&landed), "{landed} of 200 at 30 %");
    assert_eq!(petals(9).0, outcomes, "the same seed, the same petals");
    assert_ne!(petals(10).0, outcomes);
    let lines = garden.lines();
    assert!(lines.contains(&"   0.000  plant  blocked GE_Petal chance".to_owned()));
    let blocked = garden
        .gas
        .trace()
        .events()
        .iter()
        .find(|e| matches!(e.kind, TraceKind::EffectBlocked { .. }))
        .unwrap();
    let json = gaskit::render_json(&garden.world, garden.gas.catalog(), blocked);
    assert!(
        json.ends_with("\"effect\":\"GE_Petal\",\"reason\":\"chance\"}"),
        "{json}"
    );

    let mut garden = Garden::new(1);
    for _ in 0..20 {
        assert_eq!(
            garden.apply("GE_Never"),
            ApplyOutcome::Blocked(BlockReason::Chance)
        );
    }
    assert_eq!(garden.value("Petals"), 0.0);
}

#[test]
fn a_conditional_effect_applies_only_when_the_target_matches() {
    let mut garden = Garden::new(1);
    garden.apply("GE_Sun");
    assert!(!garden.has("Status.Blooming"), "dry: no bloom");
    garden.apply("GE_Rain");
    garden.apply("GE_Sun");
    assert!(garden.has("Status.Blooming"));
    assert_eq!(garden.value("Growth"), 2.0);
    // The bloom came from the sun's source.
    let bloom = garden.id("GE_Bloom");
    let system = garden.system();
    let (key, _) = system
        .effects()
        .effects(garden.gas.now())
        .find(|&(_, id)| id == bloom)
        .unwrap();
    drop(system);
    let lines = garden.lines();
    let bloomed = lines
        .iter()
        .position(|l| l.ends_with("plant  effect+ GE_Bloom 3.000s from gardener"))
        .unwrap();
    assert!(lines[bloomed - 1].ends_with("execute GE_Sun"), "{lines:#?}");
    assert!(garden
        .system()
        .effects()
        .effect(key, garden.gas.now())
        .is_some());
    garden.assert_sound();
}

#[test]
fn a_conditional_query_sees_the_target_before_the_application() {
    let mut garden = Garden::new(1);
    garden.apply("GE_Soak");
    assert!(
        !garden.has("Status.Blooming"),
        "the soak's own wetness does not count"
    );
    garden.apply("GE_Soak");
    assert!(garden.has("Status.Blooming"), "wet from the first soak");
}

#[test]
fn expiry_and_removal_each_apply_their_own_effects() {
    let mut garden = Garden::new(1);
    garden.apply("GE_Rain");
    let sun = EffectSpec::new(garden.id("GE_Sun"))
        .with_source(garden.gardener)
        .with_level(2);
    let plant = garden.plant;
    garden
        .gas
        .apply_effect(&mut garden.world, plant, sun)
        .unwrap();
    garden.at(3.0);
    // Ran its course: seeds at the sun's level (2), no withering.
    assert_eq!(garden.value("Seeds"), 2.0);
    assert!(!garden.has("Status.Withered"));

    garden.apply("GE_Rain");
    garden.apply("GE_Sun");
    assert!(garden.has("Status.Blooming"));
    let bloom = garden.id("GE_Bloom");
    garden
        .gas
        .remove_effects_of(&mut garden.world, plant, bloom);
    // Cut short: withered, no more seeds.
    assert!(garden.has("Status.Withered"));
    assert_eq!(garden.value("Seeds"), 2.0);
    let lines = garden.lines();
    let removed = lines
        .iter()
        .position(|l| l.ends_with("effect- GE_Bloom removed"))
        .unwrap();
    assert!(
        lines[removed + 1].ends_with("effect+ GE_Wither from gardener"),
        "{lines:#?}"
    );
    garden.assert_sound();
}

#[test]
fn an_effect_grants_abilities_while_it_is_active_and_uninhibited() {
    let mut garden = Garden::new(1);
    let pollinate = garden.ability("GA_Pollinate");
    assert!(!garden.system().has_ability(pollinate));
    garden.apply("GE_Rain");
    garden.apply("GE_Sun");
    assert!(garden.system().has_ability(pollinate));
    garden.assert_sound();

    // A bee starts pollinating; shade inhibits the bloom, which takes the
    // ability away and ends the running instance.
    garden.press("Ability.Trigger.Pollinate");
    assert_eq!(garden.value("Pollen"), 1.0);
    assert!(garden.system().active_instance(pollinate).is_some());
    garden.apply("GE_Shade");
    assert!(!garden.system().has_ability(pollinate));
    assert!(garden.system().active_instance(pollinate).is_none());
    assert!(garden
        .lines()
        .contains(&"   0.000  plant  end GA_Pollinate (revoked)".to_owned()));
    garden.assert_sound();

    // The shade passes: the bloom resumes and grants it again, until it
    // expires.
    garden.at(1.0);
    assert!(garden.system().has_ability(pollinate));
    garden.assert_sound();
    garden.at(3.0);
    assert!(!garden.system().has_ability(pollinate));
    garden.assert_sound();
}

#[test]
fn an_ability_granted_twice_stays_until_its_last_grant_goes() {
    let mut garden = Garden::new(1);
    let pollinate = garden.ability("GA_Pollinate");
    let plant = garden.plant;
    // Two blooms (non-stacking: two instances) and game code's own grant.
    garden.apply("GE_Rain");
    garden.apply("GE_Sun");
    garden.at(1.0);
    garden.apply("GE_Sun");
    garden.assert_sound();
    garden.at(3.0);
    assert!(
        garden.system().has_ability(pollinate),
        "the second bloom holds it"
    );
    garden.grant(pollinate, 3);
    garden.at(4.0);
    assert!(
        garden.system().has_ability(pollinate),
        "game code granted it too"
    );
    garden.assert_sound();
    garden
        .gas
        .revoke_ability(&mut garden.world, plant, pollinate)
        .unwrap();
    assert!(!garden.system().has_ability(pollinate));

    // Revoking by hand while an effect grants it leaves the effect's grant.
    garden.apply("GE_Rain");
    garden.apply("GE_Sun");
    garden.grant(pollinate, 1);
    garden
        .gas
        .revoke_ability(&mut garden.world, plant, pollinate)
        .unwrap();
    assert!(garden.system().has_ability(pollinate));
    garden.assert_sound();
}

#[test]
fn an_ability_waits_on_attribute_thresholds_and_on_an_effects_end() {
    let mut garden = Garden::new(1);
    let watch = garden.ability("GA_Watch");
    garden.grant(watch, 1);
    garden.press("Ability.Trigger.Watch");
    garden.at(1.0);
    garden.apply("GE_Drink"); // 35: not yet
    garden.at(2.0);
    garden.apply("GE_Drink"); // 20: dry
    garden.at(3.0);
    garden.apply("GE_Pour"); // 60: not above 60
    garden.apply("GE_Drink"); // 45
    garden.at(4.0);
    garden.apply("GE_Pour"); // 85: soaked; the ward goes up for 5 s
    garden.at(20.0);
    let records: Vec<String> = garden
        .lines()
        .into_iter()
        .filter(|l| l.contains("Record."))
        .collect();
    assert_eq!(
        records,
        [
            "   2.000  plant  Record.Dry 20",
            "   4.000  plant  Record.Soaked 85",
            "   9.000  plant  Record.WardGone",
        ]
    );
    assert!(garden.system().active_instance(watch).is_none());
}

#[test]
fn a_wait_already_met_wakes_at_once() {
    let mut garden = Garden::new(1);
    for _ in 0..3 {
        garden.apply("GE_Drink"); // 5
    }
    let watch = garden.ability("GA_Watch");
    garden.grant(watch, 1);
    garden.press("Ability.Trigger.Watch");
    assert!(garden
        .lines()
        .contains(&"   0.000  plant  Record.Dry 5".to_owned()));
}

#[test]
fn a_follow_up_loop_in_data_stops_at_the_limit_with_an_error() {
    let mut garden = Garden::new(1);
    garden.apply("GE_Echo");
    let before_second = snapshot::checksum::<()>(&garden.world, &garden.gas);
    garden.apply("GE_Echo");
    assert_ne!(
        snapshot::checksum::<()>(&garden.world, &garden.gas),
        before_second
    );
    let failures: Vec<String> = garden
        .lines()
        .into_iter()
        .filter(|l| l.contains("effect failed"))
        .collect();
    assert_eq!(
        failures,
        ["   0.000  plant  effect failed: effect `GE_Echo` not applied: one operation caused \
          more than 1024 follow-up effects (do its on_removal, on_expiry or conditional effects loop?)"]
    );
    // The garden is whole and the context usable: one echo stands.
    let echo = garden.id("GE_Echo");
    assert_eq!(garden.system().stack_count(echo, garden.gas.now()), 1);
    garden.assert_sound();
    garden.apply("GE_Rain");
    assert!(garden.has("Status.Wet"));
}

#[test]
fn stack_counts_read_over_every_instance() {
    let mut garden = Garden::new(1);
    let rain = garden.id("GE_Rain");
    assert_eq!(garden.system().stack_count(rain, garden.gas.now()), 0);
    garden.apply("GE_Rain");
    garden.apply("GE_Rain");
    assert_eq!(
        garden.system().stack_count(rain, garden.gas.now()),
        2,
        "two instances of one stack"
    );
}

#[test]
fn bad_vocabulary_is_a_load_error_naming_the_effect() {
    let mut broken = builder();
    broken.add_source(
        "broken.ron",
        r#"(effects: [
            (name: "GE_Odds", chance: 1.5),
            (name: "GE_Gift", duration: Infinite, granted_abilities: ["GA_Polinate"]),
            (name: "GE_Flash", on_expiry: ["GE_Seed"]),
            (name: "GE_Ping", conditional: [(effect: "GE_Pong")]),
            (name: "GE_Pong", conditional: [(effect: "GE_Ping")]),
            (name: "GE_Lost", duration: Infinite, on_removal: ["GE_Sed"]),
        ])"#,
    );
    let errors = broken.build().unwrap_err().to_string();
    for expected in [
        "chance must be between 0 and 1, found 1.5",
        "effect `GE_Gift`: unknown ability `GA_Polinate`",
        "GA_Pollinate",
        "an instant effect has no lifetime, so it neither expires nor is removed",
        "conditional effects loop: GE_Ping → GE_Pong → GE_Ping",
        "effect `GE_Lost`: unknown effect `GE_Sed`",
    ] {
        assert!(
            errors.contains(expected),
            "missing `{expected}` in:\n{errors}"
        );
    }
    assert!(errors.contains("broken.ron"), "{errors}");
}

#[test]
fn follow_ups_keep_their_order_at_any_frame_step() {
    let run = |step_ms: u64| {
        let mut garden = Garden::new(4);
        let log = Arc::new(Mutex::new(Vec::new()));
        let seen = log.clone();
        garden
            .gas
            .observe(Observe::effects(), move |world, gas, observed| {
                if let Some(event) = observed.event() {
                    seen.lock()
                        .unwrap()
                        .push(gaskit::render_line(world, gas.catalog(), event));
                }
            });
        garden.apply("GE_Rain");
        garden.apply("GE_Sun");
        garden.apply("GE_Soak");
        let step = SimDuration::from_millis(step_ms);
        let end = SimTime::from_secs(8);
        while garden.gas.now() < end {
            let to = (garden.gas.now() + step).min(end);
            garden.gas.advance_to(&mut garden.world, to);
        }
        let seen = log.lock().unwrap().clone();
        seen
    };
    let reference = run(1);
    assert!(
        reference.iter().any(|l| l.contains("GE_Seed")),
        "{reference:#?}"
    );
    for step in [16, 100, 1000, 8000] {
        assert_eq!(run(step), reference, "step {step} ms");
    }
}

/// On its way out, puts back the effect that grants its own ability.
struct Replant {
    sprout: EffectId,
}

impl AbilityBehaviour for Replant {
    fn activate(&self, _cx: &mut AbilityCx<'_>) {}

    fn end(&self, cx: &mut AbilityCx<'_>, _reason: EndReason) {
        let owner = cx.owner;
        cx.apply_effect(owner, EffectSpec::new(self.sprout))
            .unwrap();
    }
}

/// A revoke whose instance's teardown applies an effect granting the same
/// ability leaves the ability granted, held by that effect, as the
/// effect's own revoke would: the grant is dropped only if nothing holds
/// it once the teardown has run.
#[test]
fn a_revoke_keeps_a_grant_the_revoked_instances_teardown_made_again() {
    let mut builder = builder();
    builder
        .tags()
        .add_source("replant.tags", "Ability.Trigger.Replant\n");
    builder.add_source(
        "replant.ron",
        r#"(
        effects: [(name: "GE_Sprout", duration: Infinite, granted_abilities: ["GA_Replant"])],
        abilities: [(name: "GA_Replant", trigger: "Ability.Trigger.Replant",
                     behaviour: Registered("Replant"))],
    )"#,
    );
    let catalog = builder.build().unwrap();
    let mut gas = Gas::new(catalog);
    let sprout = gas.catalog().effects().get("GE_Sprout").unwrap();
    let replant = gas.catalog().abilities().get("GA_Replant").unwrap();
    let trigger = gas.catalog().tags().get("Ability.Trigger.Replant").unwrap();
    gas.register_behaviour("Replant", Replant { sprout })
        .unwrap();
    let mut world = World::new();
    let plant = world.spawn((gas.new_ability_system(),));
    gas.grant_ability(&mut world, plant, replant, 1).unwrap();
    assert!(gas
        .handle_event(&mut world, plant, GameplayEvent::new(trigger))
        .activated());

    gas.revoke_ability(&mut world, plant, replant).unwrap();
    let system = world.get::<&AbilitySystem>(plant).unwrap();
    assert!(system.has_ability(replant), "the sprout holds it again");
    assert_eq!(system.stack_count(sprout, gas.now()), 1);
    drop(system);
    let broken = invariants::check(&world, &gas);
    assert!(broken.is_empty(), "{broken:#?}");
}

/// An `ApplyEffects` ability whose own application ends it (it spends the
/// effect that grants it, which revokes it) applies nothing more: an
/// ended instance acts no more. The rest of its list was applied after
/// the trace had said it ended.
#[test]
fn an_apply_effects_ability_that_its_own_application_ends_applies_no_more() {
    let mut builder = builder();
    builder
        .tags()
        .add_source("spend.tags", "Ability.Trigger.Spend\nStatus.Charged\n");
    builder.add_source(
        "spend.ron",
        r#"(
        effects: [
            (name: "GE_Charge", duration: Infinite, granted_tags: ["Status.Charged"],
             granted_abilities: ["GA_Spend"]),
            (name: "GE_Spend_Charge", remove_effects_with_tags: ["Status.Charged"]),
        ],
        abilities: [(name: "GA_Spend", trigger: "Ability.Trigger.Spend",
                     behaviour: ApplyEffects([(effect: "GE_Spend_Charge", to: Owner),
                                              (effect: "GE_Pollen", to: Owner)]))],
    )"#,
    );
    let catalog = builder.build().unwrap();
    let mut gas = Gas::new(catalog);
    gas.trace_mut().set_filter(TraceFilter::ALL);
    let charge = gas.catalog().effects().get("GE_Charge").unwrap();
    let spend = gas.catalog().abilities().get("GA_Spend").unwrap();
    let pollen = gas.catalog().attributes().get("Pollen").unwrap();
    let trigger = gas.catalog().tags().get("Ability.Trigger.Spend").unwrap();
    let mut world = World::new();
    let plant = world.spawn((gas.new_ability_system(),));
    gas.apply_effect(&mut world, plant, EffectSpec::new(charge))
        .unwrap();
    assert!(gas
        .handle_event(&mut world, plant, GameplayEvent::new(trigger))
        .activated());
    let system = world.get::<&AbilitySystem>(plant).unwrap();
    assert!(!system.has_ability(spend), "spent, so revoked");
    assert_eq!(system.current(pollen), 0.0, "nothing after its end");
    drop(system);
    let ended: Vec<_> = gas
        .trace()
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::AbilityEnded { reason, .. } => Some(*reason),
            _ => None,
        })
        .collect();
    assert_eq!(ended, [EndReason::Revoked]);
    let broken = invariants::check(&world, &gas);
    assert!(broken.is_empty(), "{broken:#?}");
}

/// The check for conditional loops visits each effect once: a generated
/// lattice of 30 layers, each effect applying both of the next layer's
/// (2^30 paths from the top), loads at once, and the same lattice with a
/// way back to the top is refused naming the loop. The check followed
/// every path, so such content did not finish loading.
#[test]
fn the_conditional_loop_check_is_linear_in_the_effects() {
    let lattice = |back: bool| {
        let layers = 30;
        let mut effects = Vec::new();
        for layer in 0..layers {
            for side in ["L", "R"] {
                let next: Vec<String> = if layer + 1 < layers {
                    ["L", "R"]
                        .iter()
                        .map(|s| format!("(effect: \"GE_{}{s}\")", layer + 1))
                        .collect()
                } else if back && side == "L" {
                    vec!["(effect: \"GE_0L\")".to_owned()]
                } else {
                    vec![]
                };
                effects.push(format!(
                    "(name: \"GE_{layer}{side}\", conditional: [{}])",
                    next.join(", ")
                ));
            }
        }
        let mut builder = builder();
        builder.add_source(
            "lattice.ron",
            &format!("(effects: [{}])", effects.join(",\n")),
        );
        builder.build()
    };
    assert!(lattice(false).is_ok());
    let errors = lattice(true).unwrap_err().to_string();
    assert!(
        errors.contains("conditional effects loop: GE_0L → GE_1L → GE_2L"),
        "{errors}"
    );
    assert!(errors.contains("GE_29L → GE_0L"), "{errors}");
}
