//! The entity inspector: what it shows of a fighter mid-fight (a reviewed
//! snapshot), what it shows of non-combat content, and that it changes
//! nothing.

use std::sync::Arc;

use gaskit::combat::{CombatComponents, CombatInspect};
use gaskit::inspect::{AbilityStatus, InspectError, Inspector};
use gaskit::prelude::*;
use gaskit::scenario::{Scenario, ScenarioRun};
use gaskit::snapshot;

fn scenario_at(file: &str, seconds: f64) -> ScenarioRun {
    let catalog = Arc::new(gaskit::combat::default_catalog());
    let path = format!("{}/tests/scenarios/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    let scenario = Scenario::parse(&text, file, &catalog).unwrap_or_else(|e| panic!("{e}"));
    let mut run = ScenarioRun::new(catalog, scenario).unwrap();
    run.advance_to(SimTime::from_secs_f64(seconds).unwrap());
    run
}

fn fighter(run: &ScenarioRun, name: &str) -> hecs::Entity {
    run.fighters.iter().find(|(n, _)| n == name).unwrap().1
}

#[test]
fn a_mid_fight_combatant_reads_as_the_reviewed_text() {
    // The mage at 1.5 s: its first swing landed at 0, Wind Strike waits in
    // the weave queue for the tick at 2.4, the attack cooldown runs.
    let run = scenario_at("melee_cast_melee_weave.ron", 1.5);
    let mage = fighter(&run, "mage");
    let inspector = Inspector::new().with(CombatInspect(run.runtime.clone()));
    let seen = inspector.inspect(&run.world, &run.gas, mage).unwrap();
    insta::assert_snapshot!(seen.to_string());
}

/// The magic damage bonus is shown as the percent the items give (and the
/// max hit reads): a wand's `magic_damage: 2` is +2 %.
#[test]
fn the_magic_damage_bonus_reads_as_the_items_percent() {
    let run = scenario_at("melee_cast_melee_weave.ron", 0.0);
    let mage = fighter(&run, "mage");
    let defs = run.runtime.defs();
    let wand = defs.item_named("Oak Wand").unwrap();
    let weapon = defs.tags[gaskit::combat::native::ITEM_SLOT_WEAPON];
    run.world
        .get::<&mut gaskit::combat::Combatant>(mage)
        .unwrap()
        .equipment
        .put(weapon, wand, 1);
    let inspector = Inspector::new().with(CombatInspect(run.runtime.clone()));
    let seen = inspector.inspect(&run.world, &run.gas, mage).unwrap();
    let text = seen.to_string();
    assert!(text.contains("magic damage +2%"), "{text}");
}

/// A garden: nothing of combat. Growth has a points cap, a fertiliser
/// pushes past it, rain falls on a period, a greenhouse only works while
/// the garden is sheltered, and watering costs water it may not have.
const GARDEN_TAGS: &str = "Garden.Sheltered\nGarden.Wet\nGarden.Prize\nCooldown.Water\nAction.Trigger.Water\nAction.Trigger.Prune\nAction.Trigger.Graft\n";
const GARDEN: &str = r#"(
    attributes: [
        (name: "Growth", base: 10, cap: 0.5),
        (name: "Water", base: 3, min: 0, max: 10),
    ],
    effects: [
        (name: "GE_Fertiliser", duration: Duration(Constant(60)),
         modifiers: [(attribute: "Growth", op: Points, magnitude: Constant(0.8))]),
        (name: "GE_Rain", duration: Duration(Constant(10)), period: (seconds: 2.0),
         granted_tags: ["Garden.Wet"],
         modifiers: [(attribute: "Water", op: Flat, magnitude: Constant(1))]),
        (name: "GE_Greenhouse", duration: Infinite,
         ongoing_requirements: (all: ["Garden.Sheltered"]),
         modifiers: [(attribute: "Growth", op: Mult, magnitude: Constant(2))]),
        (name: "GE_Water_Cost", modifiers: [(attribute: "Water", op: Flat, magnitude: Constant(-5))]),
        (name: "GE_Water_Cooldown", duration: Duration(Constant(4)), granted_tags: ["Cooldown.Water"]),
    ],
    abilities: [
        (name: "GA_Water", trigger: "Action.Trigger.Water", cost: "GE_Water_Cost",
         behaviour: ApplyEffects([])),
        (name: "GA_Prune", trigger: "Action.Trigger.Prune",
         cooldown: (effect: "GE_Water_Cooldown"), behaviour: ApplyEffects([])),
        (name: "GA_Graft", trigger: "Action.Trigger.Graft", target_required: (any: ["Garden.Wet"]),
         cooldown: (effect: "GE_Water_Cooldown"), behaviour: ApplyEffects([])),
    ],
)"#;

#[test]
fn a_garden_shows_sources_caps_periods_inhibition_and_refusals() {
    let mut builder = CatalogBuilder::new();
    builder.tags().add_source("garden.tags", GARDEN_TAGS);
    builder.add_source("garden.ron", GARDEN);
    let mut gas = Gas::new(builder.build().unwrap_or_else(|e| panic!("{e}")));
    let mut world = hecs::World::new();
    let plot = world.spawn((Name("plot".into()), gas.new_ability_system()));
    let gardener = world.spawn((Name("gardener".into()), gas.new_ability_system()));
    let catalog = gas.catalog().clone();
    let effect = |name: &str| EffectSpec::new(catalog.effects().get(name).unwrap());
    let ability = |name: &str| catalog.abilities().get(name).unwrap();
    for name in ["GE_Fertiliser", "GE_Rain", "GE_Greenhouse"] {
        gas.apply_effect(&mut world, plot, effect(name).with_source(gardener))
            .unwrap();
    }
    let prize = catalog.tags().get("Garden.Prize").unwrap();
    gas.add_loose_tag(&mut world, plot, prize, true);
    gas.grant_ability(&mut world, plot, ability("GA_Water"), 1)
        .unwrap();
    gas.grant_ability(&mut world, plot, ability("GA_Prune"), 2)
        .unwrap();
    gas.grant_ability(&mut world, plot, ability("GA_Graft"), 1)
        .unwrap();
    let prune = catalog.tags().get("Action.Trigger.Prune").unwrap();
    gas.handle_event(&mut world, plot, GameplayEvent::new(prune));
    gas.advance_to(&mut world, SimTime::from_secs(3));

    let seen = Inspector::new().inspect(&world, &gas, plot).unwrap();
    assert_eq!(seen.entity, "plot");
    assert_eq!(seen.at, SimTime::from_secs(3));
    // Growth: 10 × (1 + 0.5 capped from 0.8); the greenhouse is inhibited.
    let growth = &seen.attributes[0];
    assert_eq!(
        (growth.name.as_str(), growth.base, growth.current),
        ("Growth", 10.0, 15.0)
    );
    assert!(
        (growth.points_lost - 0.3).abs() < 1e-12,
        "{}",
        growth.points_lost
    );
    assert_eq!(growth.sources.len(), 1);
    assert_eq!(
        (
            growth.sources[0].source.as_str(),
            growth.sources[0].op,
            growth.sources[0].value
        ),
        ("GE_Fertiliser", "points", 0.8)
    );
    // Water: rained into the base at 2 (periodic effects hold no
    // modifier); bounded by [0, 10].
    let water = &seen.attributes[1];
    assert_eq!(
        (water.base, water.current, water.min, water.max),
        (4.0, 4.0, Some(0.0), Some(10.0))
    );
    assert!(water.sources.is_empty());

    let tags: Vec<(&str, u32, Vec<&str>)> = seen
        .tags
        .iter()
        .map(|t| {
            (
                t.tag.as_str(),
                t.count,
                t.from.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        tags,
        [
            ("Cooldown.Water", 1, vec!["GE_Water_Cooldown"]),
            ("Garden.Prize", 1, vec!["loose (saved)"]),
            ("Garden.Wet", 1, vec!["GE_Rain"]),
        ]
    );

    let rain = seen.effects.iter().find(|e| e.effect == "GE_Rain").unwrap();
    assert_eq!(rain.period, Some(SimDuration::from_secs(2)));
    assert_eq!(rain.next_tick, Some(SimTime::from_secs(4)));
    assert_eq!(rain.remaining, Some(SimDuration::from_secs(7)));
    assert_eq!(rain.source.as_deref(), Some("gardener"));
    let greenhouse = seen
        .effects
        .iter()
        .find(|e| e.effect == "GE_Greenhouse")
        .unwrap();
    assert!(greenhouse.inhibited && greenhouse.remaining.is_none());

    // Watering costs 5 of the 4 held: refused, naming what it lacks; the
    // cooldown of pruning has 1 s left.
    let status = |name: &str| {
        seen.abilities
            .iter()
            .find(|a| a.ability == name)
            .map(|a| (a.level, a.status.clone()))
            .unwrap()
    };
    let (level, AbilityStatus::Refused { detail, .. }) = status("GA_Water") else {
        panic!("{:?}", status("GA_Water"));
    };
    assert_eq!(level, 1);
    assert!(
        detail.as_deref().is_some_and(|d| d.contains("Water")),
        "{detail:?}"
    );
    assert_eq!(
        status("GA_Prune"),
        (
            2,
            AbilityStatus::OnCooldown {
                tag: "Cooldown.Water".into(),
                remaining: SimDuration::from_secs(1)
            }
        )
    );
    // Grafting needs a target, which the bare trigger event lacks, and
    // shares pruning's cooldown: the cooldown is what it reports.
    assert_eq!(
        status("GA_Graft"),
        (
            1,
            AbilityStatus::OnCooldown {
                tag: "Cooldown.Water".into(),
                remaining: SimDuration::from_secs(1)
            }
        )
    );

    // The data form is serde: every section is there by name.
    let json = serde_json::to_value(&seen).unwrap();
    for key in [
        "entity",
        "at",
        "attributes",
        "tags",
        "effects",
        "abilities",
        "sections",
    ] {
        assert!(json.get(key).is_some(), "{key} missing");
    }
    // The text names what the data holds.
    let text = seen.to_string();
    assert!(
        text.contains("GE_Fertiliser") && text.contains("points lost to the cap"),
        "{text}"
    );
    assert!(
        text.contains("inhibited") && text.contains("every 2.000s, next at 4.000"),
        "{text}"
    );

    // Bad input is an error naming what, never a panic.
    let rock = world.spawn((Name("rock".into()),));
    assert_eq!(
        Inspector::new().inspect(&world, &gas, rock).unwrap_err(),
        InspectError::NoAbilitySystem("rock".into())
    );
    world.despawn(rock).unwrap();
    assert_eq!(
        Inspector::new().inspect(&world, &gas, rock).unwrap_err(),
        InspectError::NoSuchEntity(rock)
    );
}

#[test]
fn inspecting_changes_nothing() {
    let mut run = scenario_at("melee_cast_melee_weave.ron", 3.0);
    let before = snapshot::checksum::<CombatComponents>(&run.world, &run.gas);
    let events = run.gas.trace().next_seq();
    let word = run.gas.rng().get_word_pos();
    let inspector = Inspector::new().with(CombatInspect(run.runtime.clone()));
    for (_, entity) in &run.fighters {
        inspector.inspect(&run.world, &run.gas, *entity).unwrap();
    }
    assert_eq!(
        snapshot::checksum::<CombatComponents>(&run.world, &run.gas),
        before
    );
    assert_eq!(run.gas.trace().next_seq(), events);
    assert_eq!(run.gas.rng().get_word_pos(), word);
}
