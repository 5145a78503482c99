//! `Gas::can_activate` on content that is not combat: a farm. The query
//! says "ready" or names exactly what refuses, and asking changes nothing.

use gaskit::prelude::*;
use gaskit::snapshot;
use hecs::{Entity, World};

const TAGS: &str = "
Ability.Trigger.Plow
Ability.Trigger.Harvest
Ability.Trigger.Sing
Ability.Trigger.Water
Ability.Trigger.Sow
Ability.Trigger.Till
Ability.Trigger.Whistle
Ability.Work
Ability.Work.Field
Ability.Song
Cooldown.Plow
Season.Autumn
Status.Soaked
Status.Soaked.Drenched
Status.Asleep
SetByCaller.Water
";

const CONTENT: &str = r#"(
    attributes: [(name: "Stamina", base: 100, min: 0), (name: "Crops"), (name: "Moisture")],
    effects: [
        (name: "GE_Plow_Cost", modifiers: [(attribute: "Stamina", op: Flat, magnitude: Constant(-40))]),
        (name: "GE_Plow_Cooldown", duration: Duration(SetByCaller("Cooldown.Plow")),
         granted_tags: ["Cooldown.Plow"]),
        (name: "GE_Drench", duration: Duration(Constant(5)), granted_tags: ["Status.Soaked.Drenched"]),
        (name: "GE_Sleep", duration: Infinite, granted_tags: ["Status.Asleep"]),
        (name: "GE_Harvest", modifiers: [(attribute: "Crops", op: Flat, magnitude: Constant(10))]),
        (name: "GE_Water", modifiers: [(attribute: "Moisture", op: Flat,
         magnitude: SetByCaller("SetByCaller.Water"))]),
        // Sowing may take or not: a roll the query must not make.
        (name: "GE_Sow", chance: 0.5, modifiers: [(attribute: "Crops", op: Flat, magnitude: Constant(1))]),
    ],
    abilities: [
        (name: "GA_Plow", trigger: "Ability.Trigger.Plow", ability_tags: ["Ability.Work"],
         activation_blocked: (any: ["Status.Soaked", "Status.Asleep"]),
         cost: "GE_Plow_Cost", cooldown: (effect: "GE_Plow_Cooldown", seconds: 2),
         behaviour: ApplyEffects([])),
        (name: "GA_Harvest", trigger: "Ability.Trigger.Harvest", ability_tags: ["Ability.Work"],
         activation_required: (all: ["Season.Autumn"]),
         target_required: (none: ["Status.Asleep"]),
         behaviour: ApplyEffects([(effect: "GE_Harvest", to: Owner)])),
        (name: "GA_Sing", trigger: "Ability.Trigger.Sing", ability_tags: ["Ability.Song"],
         block_abilities_with_tags: ["Ability.Work"],
         behaviour: Registered("Sing")),
        (name: "GA_Water", trigger: "Ability.Trigger.Water",
         behaviour: ApplyEffects([(effect: "GE_Water", to: Owner, event_magnitude: "SetByCaller.Water")])),
        (name: "GA_Sow", trigger: "Ability.Trigger.Sow",
         behaviour: ApplyEffects([(effect: "GE_Sow", to: Owner)])),
        (name: "GA_Till", trigger: "Ability.Trigger.Till", ability_tags: ["Ability.Work.Field"],
         behaviour: ApplyEffects([])),
        (name: "GA_Whistle", trigger: "Ability.Trigger.Whistle",
         block_abilities_with_tags: ["Ability.Work.Field"], behaviour: Registered("Sing")),
    ],
)"#;

/// A song that goes on until cancelled.
struct Sing;

impl AbilityBehaviour for Sing {
    fn activate(&self, _cx: &mut AbilityCx<'_>) {}
}

struct Farm {
    world: World,
    gas: Gas,
    farmer: Entity,
    field: Entity,
}

impl Farm {
    fn new() -> Self {
        let mut builder = CatalogBuilder::new();
        builder.tags().add_source("farm.tags", TAGS);
        builder.add_source("farm.ron", CONTENT);
        let mut gas = Gas::new(builder.build().unwrap());
        gas.register_behaviour("Sing", Sing).unwrap();
        let mut world = World::new();
        let farmer = world.spawn((Name("farmer".into()), gas.new_ability_system()));
        let field = world.spawn((Name("field".into()), gas.new_ability_system()));
        for ability in [
            "GA_Plow",
            "GA_Harvest",
            "GA_Sing",
            "GA_Water",
            "GA_Sow",
            "GA_Till",
            "GA_Whistle",
        ] {
            let id = gas.catalog().abilities().get(ability).unwrap();
            gas.grant_ability(&mut world, farmer, id, 1).unwrap();
        }
        Farm {
            world,
            gas,
            farmer,
            field,
        }
    }

    fn tag(&self, name: &str) -> Tag {
        self.gas.catalog().tags().get(name).unwrap()
    }

    fn ability(&self, name: &str) -> AbilityId {
        self.gas.catalog().abilities().get(name).unwrap()
    }

    fn can(&self, ability: &str) -> Result<(), ActivationFailure> {
        let id = self.ability(ability);
        self.gas.can_activate(&self.world, self.farmer, id, None)
    }

    fn can_with(&self, ability: &str, event: &GameplayEvent) -> Result<(), ActivationFailure> {
        let id = self.ability(ability);
        self.gas
            .can_activate(&self.world, self.farmer, id, Some(event))
    }

    fn press(&mut self, trigger: &str) {
        let event = GameplayEvent::new(self.tag(trigger));
        self.gas.handle_event(&mut self.world, self.farmer, event);
    }

    fn apply(&mut self, to: Entity, effect: &str) {
        let id = self.gas.catalog().effects().get(effect).unwrap();
        self.gas
            .apply_effect(&mut self.world, to, EffectSpec::new(id))
            .unwrap();
    }

    /// Everything a query could disturb: the state checksum (attributes,
    /// tags, effects, instances, timers, the RNG) and the trace.
    fn fingerprint(&self) -> (u64, usize) {
        (
            snapshot::checksum::<()>(&self.world, &self.gas),
            self.gas.trace().events().len(),
        )
    }
}

#[test]
fn a_ready_ability_says_so_and_each_refusal_names_what_refuses() {
    let mut farm = Farm::new();
    assert_eq!(farm.can("GA_Plow"), Ok(()));

    // The cooldown, with exactly the time left.
    farm.press("Ability.Trigger.Plow");
    farm.gas
        .advance_to(&mut farm.world, SimTime::from_millis(500));
    assert_eq!(
        farm.can("GA_Plow"),
        Err(ActivationFailure::Cooldown {
            tag: farm.tag("Cooldown.Plow"),
            remaining: SimDuration::from_millis(1500),
        })
    );

    // The cost: 60 stamina left, 40 a furrow; then 20 left.
    farm.gas.advance_to(&mut farm.world, SimTime::from_secs(2));
    farm.press("Ability.Trigger.Plow");
    farm.gas.advance_to(&mut farm.world, SimTime::from_secs(4));
    assert_eq!(
        farm.can("GA_Plow"),
        Err(ActivationFailure::Cost {
            attribute: farm.gas.catalog().attributes().get("Stamina").unwrap(),
        })
    );

    // The tag held (the leaf, not the query's parent).
    let farmer = farm.farmer;
    farm.apply(farmer, "GE_Drench");
    assert_eq!(
        farm.can("GA_Plow"),
        Err(ActivationFailure::BlockedByTags {
            tag: Some(farm.tag("Status.Soaked.Drenched")),
        })
    );

    // The required tag missing.
    let field = farm.field;
    let at_field = GameplayEvent::new(farm.tag("Ability.Trigger.Harvest")).target(field);
    assert_eq!(
        farm.can_with("GA_Harvest", &at_field),
        Err(ActivationFailure::MissingTags {
            tag: Some(farm.tag("Season.Autumn")),
        })
    );
    let autumn = farm.tag("Season.Autumn");
    farm.gas
        .add_loose_tag(&mut farm.world, farmer, autumn, false);
    assert_eq!(farm.can_with("GA_Harvest", &at_field), Ok(()));

    // The event's target does not qualify, or there is none.
    farm.apply(field, "GE_Sleep");
    assert_eq!(
        farm.can_with("GA_Harvest", &at_field),
        Err(ActivationFailure::TargetRequirements)
    );
    assert_eq!(
        farm.can("GA_Harvest"),
        Err(ActivationFailure::TargetRequirements)
    );

    // The running ability that blocks it, and the running ability itself.
    farm.press("Ability.Trigger.Sing");
    assert_eq!(
        farm.can("GA_Harvest"),
        Err(ActivationFailure::BlockedByAbility(Some(
            farm.ability("GA_Sing")
        )))
    );
    assert_eq!(farm.can("GA_Sing"), Err(ActivationFailure::AlreadyActive));

    // The event cannot feed the ability's effect.
    assert_eq!(
        farm.can("GA_Water"),
        Err(ActivationFailure::CannotApply(
            farm.gas.catalog().effects().get("GE_Water").unwrap()
        ))
    );
    let watering = GameplayEvent::new(farm.tag("Ability.Trigger.Water")).magnitude(3.0);
    assert_eq!(farm.can_with("GA_Water", &watering), Ok(()));
}

#[test]
fn asking_changes_nothing_whatever_the_answer() {
    let mut farm = Farm::new();
    farm.press("Ability.Trigger.Plow");
    farm.press("Ability.Trigger.Sing");
    let farmer = farm.farmer;
    farm.apply(farmer, "GE_Drench");
    let before = farm.fingerprint();
    for ability in ["GA_Plow", "GA_Harvest", "GA_Sing", "GA_Water", "GA_Sow"] {
        let _ = farm.can(ability);
        assert_eq!(farm.fingerprint(), before, "asking about {ability}");
    }
    // A ready ability whose effect rolls a chance: the query rolls nothing.
    assert_eq!(farm.can("GA_Sow"), Ok(()));
    let mut rng = farm.gas.rng().clone();
    let _ = farm.can("GA_Sow");
    assert_eq!(*farm.gas.rng(), rng);
    // Activating does roll.
    farm.press("Ability.Trigger.Sow");
    use rand_chacha::rand_core::Rng;
    let _ = rng.next_u64();
    assert_eq!(*farm.gas.rng(), rng, "one roll for the one chance");
}

#[test]
fn a_refusal_names_what_refused_in_both_traces_and_keeps_the_player_message() {
    let mut farm = Farm::new();
    farm.gas.trace_mut().set_filter(TraceFilter::ALL);
    farm.press("Ability.Trigger.Plow");
    farm.gas
        .advance_to(&mut farm.world, SimTime::from_millis(500));
    farm.press("Ability.Trigger.Plow");
    farm.press("Ability.Trigger.Sing");
    farm.press("Ability.Trigger.Harvest");
    let refusals: Vec<&TraceEvent> = farm
        .gas
        .trace()
        .events()
        .iter()
        .filter(|e| matches!(e.kind, TraceKind::AbilityFailed { .. }))
        .collect();
    let text: Vec<String> = refusals
        .iter()
        .map(|e| gaskit::render_line(&farm.world, farm.gas.catalog(), e))
        .collect();
    assert_eq!(
        text,
        [
            "   0.500  farmer  fail GA_Plow: Not ready yet. [Cooldown.Plow, 1.500s left]",
            "   0.500  farmer  fail GA_Harvest: You cannot do that right now. [GA_Sing is running]",
        ]
    );
    let json: Vec<String> = refusals
        .iter()
        .map(|e| gaskit::render_json(&farm.world, farm.gas.catalog(), e))
        .collect();
    assert_eq!(
        json,
        [
            "{\"t\":0.5,\"kind\":\"ability_failed\",\"source\":\"farmer\",\"target\":null,\
             \"ability\":\"GA_Plow\",\"reason\":\"Activation.Fail.Cooldown\",\
             \"message\":\"Not ready yet.\",\"cooldown\":\"Cooldown.Plow\",\"remaining\":1.5}",
            "{\"t\":0.5,\"kind\":\"ability_failed\",\"source\":\"farmer\",\"target\":null,\
             \"ability\":\"GA_Harvest\",\"reason\":\"Activation.Fail.BlockedByTags\",\
             \"message\":\"You cannot do that right now.\",\"blocked_by_ability\":\"GA_Sing\"}",
        ]
    );
}

/// A blocked tag blocks the abilities tagged with it or with a tag under
/// it, as `cancel_abilities_with_tags` cancels: blocking `Ability.Work`
/// blocks tilling (`Ability.Work.Field`), while blocking
/// `Ability.Work.Field` leaves plowing (`Ability.Work`) free.
#[test]
fn a_blocked_parent_tag_blocks_the_abilities_tagged_under_it_and_not_above() {
    let mut farm = Farm::new();
    assert_eq!(farm.can("GA_Till"), Ok(()));
    farm.press("Ability.Trigger.Sing");
    let sing = farm.ability("GA_Sing");
    assert_eq!(
        farm.can("GA_Till"),
        Err(ActivationFailure::BlockedByAbility(Some(sing)))
    );
    farm.press("Ability.Trigger.Till");
    let till = farm.ability("GA_Till");
    assert!(farm
        .gas
        .trace()
        .events()
        .iter()
        .all(|e| !matches!(&e.kind, gaskit::TraceKind::AbilityActivated { ability, .. } if *ability == till)));

    let mut farm = Farm::new();
    farm.press("Ability.Trigger.Whistle");
    assert_eq!(farm.can("GA_Plow"), Ok(()), "a child blocks no parent");
    assert_eq!(
        farm.can("GA_Till"),
        Err(ActivationFailure::BlockedByAbility(Some(
            farm.ability("GA_Whistle")
        )))
    );
}

/// The query asks first whether the event would reach the ability at all:
/// of two abilities one event routes between by `trigger_when` (a
/// scarecrow's rattle toggled on and off), the one the owner's state
/// routes it away from is refused with the tag that decides it, and the
/// other is ready. It said both were ready, and an AI asking first was
/// misled. Sending the event still toggles once per press.
#[test]
fn an_ability_the_event_would_not_reach_by_trigger_when_is_refused() {
    let mut builder = CatalogBuilder::new();
    builder.tags().add_source("farm.tags", TAGS);
    builder
        .tags()
        .add_source("rattle.tags", "Ability.Trigger.Rattle\nStatus.Rattling\n");
    builder.add_source("farm.ron", CONTENT);
    builder.add_source(
        "rattle.ron",
        r#"(
        effects: [(name: "GE_Rattling", duration: Infinite, granted_tags: ["Status.Rattling"]),
                  (name: "GE_Still", remove_effects_with_tags: ["Status.Rattling"])],
        abilities: [
            (name: "GA_Rattle_On", trigger: "Ability.Trigger.Rattle",
             trigger_when: (none: ["Status.Rattling"]),
             behaviour: ApplyEffects([(effect: "GE_Rattling", to: Owner)])),
            (name: "GA_Rattle_Off", trigger: "Ability.Trigger.Rattle",
             trigger_when: (all: ["Status.Rattling"]),
             behaviour: ApplyEffects([(effect: "GE_Still", to: Owner)])),
        ],
    )"#,
    );
    let mut gas = Gas::new(builder.build().unwrap());
    gas.register_behaviour("Sing", Sing).unwrap();
    let mut world = World::new();
    let scarecrow = world.spawn((gas.new_ability_system(),));
    let (on, off) = {
        let abilities = gas.catalog().abilities();
        (
            abilities.get("GA_Rattle_On").unwrap(),
            abilities.get("GA_Rattle_Off").unwrap(),
        )
    };
    for id in [on, off] {
        gas.grant_ability(&mut world, scarecrow, id, 1).unwrap();
    }
    let rattling = gas.catalog().tags().get("Status.Rattling").unwrap();
    let rattle = GameplayEvent::new(gas.catalog().tags().get("Ability.Trigger.Rattle").unwrap());
    assert_eq!(
        gas.can_activate(&world, scarecrow, on, Some(&rattle)),
        Ok(())
    );
    assert_eq!(
        gas.can_activate(&world, scarecrow, off, Some(&rattle)),
        Err(ActivationFailure::MissingTags {
            tag: Some(rattling)
        })
    );
    let pressed = gas.handle_event(&mut world, scarecrow, rattle);
    assert_eq!(pressed.activations.len(), 1, "one press, one toggle");
    assert!(gas.has_tag(&world, scarecrow, rattling));
    assert_eq!(
        gas.can_activate(&world, scarecrow, on, Some(&rattle)),
        Err(ActivationFailure::BlockedByTags {
            tag: Some(rattling)
        })
    );
    assert_eq!(
        gas.can_activate(&world, scarecrow, off, Some(&rattle)),
        Ok(())
    );
    gas.handle_event(&mut world, scarecrow, rattle);
    assert!(!gas.has_tag(&world, scarecrow, rattling));
}
