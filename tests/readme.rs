//! The README's RON examples load as they are written: a user copies them
//! first, so a key renamed, a required key missing or a name they use but
//! never declare fails here rather than in the user's game.

use gaskit::prelude::*;
use gaskit::scenario::Scenario;

/// The README's ```ron blocks, in order.
fn ron_blocks() -> Vec<String> {
    let readme = include_str!("../README.md");
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in readme.lines() {
        match (&mut current, line.trim_start()) {
            (None, "```ron") => current = Some(String::new()),
            (Some(_), "```") => blocks.extend(current.take()),
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

/// Builds a catalog from `sources` with the core tags and `tags`.
fn build(tags: &str, sources: &[&str]) -> Result<Catalog, LoadErrors> {
    let mut builder = CatalogBuilder::new();
    builder.tags().add_source("readme.tags", tags);
    for (i, source) in sources.iter().enumerate() {
        builder.add_source(&format!("readme_{i}.ron"), source);
    }
    builder.build()
}

#[test]
fn the_readmes_content_examples_load() {
    let blocks = ron_blocks();
    assert_eq!(blocks.len(), 6, "the README's RON examples: {blocks:#?}");
    let (attributes, effects, life) = (&blocks[0], &blocks[1], &blocks[2]);
    assert!(attributes.contains("attributes:") && effects.contains("effects:"));

    // The attributes alone, then the effects on top of them.
    build("", &[attributes]).unwrap_or_else(|e| panic!("{e}"));
    let catalog =
        build("Cooldown.Combat.Attack\n", &[attributes, effects]).unwrap_or_else(|e| panic!("{e}"));
    let poison = catalog.effects().get("Poison").unwrap();
    assert!(catalog.effects().def(poison).period.is_some());

    // The life rule, beside the MaxHealth its Health reads.
    build(
        "Status.Dead\n",
        &[life, r#"(attributes: [(name: "MaxHealth", base: 40)])"#],
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn the_readmes_scenario_example_parses_against_the_shipped_catalog() {
    let blocks = ron_blocks();
    let scenario = blocks.last().unwrap();
    assert!(scenario.contains("timeline:"));
    let catalog = std::sync::Arc::new(gaskit::combat::default_catalog());
    let parsed = Scenario::parse(scenario, "README.md", &catalog).unwrap_or_else(|e| panic!("{e}"));
    // Its timeline does what it says: at 10 s bob wields the Oak Wand.
    let mut run = gaskit::scenario::ScenarioRun::new(catalog.clone(), parsed).unwrap();
    run.advance_to(SimTime::from_secs(11));
    let bob = run.fighter("bob").unwrap();
    let defs = catalog.section::<gaskit::combat::CombatDefs>().unwrap();
    let weapon = defs.tags[gaskit::combat::native::ITEM_SLOT_WEAPON];
    let wielded = run
        .world
        .get::<&gaskit::combat::Combatant>(bob)
        .unwrap()
        .equipment
        .in_slot(weapon)
        .map(|(item, _)| item);
    assert_eq!(wielded, defs.item_named("Oak Wand"));
}
