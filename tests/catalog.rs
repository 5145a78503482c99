//! Loading content: the shipped files, file handling and located errors.

use gaskit::combat::{self, CombatDefs, CONTENT_FILES, TAG_FILES};
use gaskit::{CatalogBuilder, CORE_TAG_FILES};

#[test]
fn shipped_content_loads_without_warnings_and_matches_the_files_on_disk() {
    let catalog = combat::default_catalog();
    assert!(catalog.warnings().is_empty(), "{:?}", catalog.warnings());
    for (path, text) in CONTENT_FILES.iter().chain(TAG_FILES).chain(CORE_TAG_FILES) {
        assert_eq!(&std::fs::read_to_string(path).unwrap(), text, "{path}");
    }
    // Loading the directories from disk gives the same catalog.
    let mut builder = CatalogBuilder::new();
    combat::add_content(&mut builder);
    builder.tags().add_dir("tags");
    builder.add_dir("abilities");
    let from_disk = builder.build().unwrap();
    assert_eq!(from_disk.attributes().len(), catalog.attributes().len());
    assert_eq!(from_disk.tags().len(), catalog.tags().len());
}

#[test]
fn every_shipped_tag_file_is_embedded_by_the_core_or_the_combat_layer() {
    let embedded: Vec<&str> = TAG_FILES
        .iter()
        .chain(CORE_TAG_FILES)
        .map(|(path, _)| *path)
        .collect();
    for entry in std::fs::read_dir("tags").unwrap() {
        let path = entry.unwrap().path();
        let path = format!("tags/{}", path.file_name().unwrap().to_string_lossy());
        assert!(embedded.contains(&path.as_str()), "{path} is not embedded");
    }
}

#[test]
fn a_core_catalog_has_no_combat_content_and_rejects_combat_sections() {
    let core = CatalogBuilder::new().build().unwrap();
    assert!(core.section::<CombatDefs>().is_none());
    assert_eq!(core.modules().count(), 0);
    assert!(core.tags().get("Combat.DamageType.Slash").is_none());
    assert!(core.tags().get("Status.Dead").is_none());
    assert!(core.attributes().is_empty() && core.effects().is_empty());

    let mut builder = CatalogBuilder::new();
    builder.add_source("game.ron", "(items: [])");
    let errors = builder.build().unwrap_err().to_string();
    assert!(
        errors.contains("unknown content section `items`"),
        "{errors}"
    );
    assert!(errors.contains("game.ron:1:2"), "{errors}");
}

#[test]
fn syntax_errors_are_located() {
    let mut builder = combat::default_catalog_builder();
    builder.add_source(
        "broken.ron",
        "(\n  attributes: [\n    (name: \"Mana\" base: 3),\n  ],\n)",
    );
    let errors = builder.build().unwrap_err();
    let d = &errors.0[0];
    assert_eq!((d.file.as_str(), d.line), ("broken.ron", 3));
    assert!(d
        .snippet
        .as_deref()
        .unwrap()
        .contains("(name: \"Mana\" base: 3)"));
}

#[test]
fn unknown_sections_and_fields_are_errors_not_silently_ignored() {
    let mut builder = combat::default_catalog_builder();
    builder.add_source("typo.ron", "(attributez: [])");
    builder.add_source("module_typo.ron", "(spelss: [])");
    builder.add_source(
        "field.ron",
        "(spells: [(name: \"X\", bok: \"Spellbook.Standard\")])",
    );
    let errors = builder.build().unwrap_err();
    let text = errors.to_string();
    assert!(
        text.contains("unknown content section `attributez`"),
        "{text}"
    );
    assert!(text.contains("did you mean `attributes`?"), "{text}");
    assert!(text.contains("unknown content section `spelss`"), "{text}");
    assert!(text.contains("did you mean `spells`?"), "{text}");
    // A module's own fields are checked by the module, located in the file.
    assert!(text.contains("field.ron:1:"), "{text}");
    assert!(text.contains("bok"), "{text}");
}

#[test]
fn errors_from_every_file_are_reported_together() {
    let mut builder = combat::default_catalog_builder();
    builder.add_source("a.ron", "(attributes: [(name: \"A\", max: \"Nope\")])");
    builder.add_source("b.ron", "(attributes: [(name: \"B\", min: \"Nada\")])");
    builder.add_bytes("c.ron", b"(attributes: [(name: \"\xC3\x28\")])");
    let errors = builder.build().unwrap_err();
    let files: Vec<&str> = errors.0.iter().map(|d| d.file.as_str()).collect();
    assert_eq!(files, ["c.ron", "a.ron", "b.ron"]);
    assert!(errors.0[0].message.contains("not valid UTF-8"));
}

#[test]
fn missing_files_and_directories_are_errors() {
    let mut builder = combat::default_catalog_builder();
    builder.add_file("does/not/exist.ron");
    builder.add_dir("does/not/exist");
    let errors = builder.build().unwrap_err();
    assert_eq!(errors.0.len(), 2);
    assert!(errors.0[0].message.contains("cannot read content file"));
    assert!(errors.0[1]
        .message
        .contains("cannot list content directory"));
}

#[test]
fn an_event_triggers_abilities_whose_trigger_is_its_tag_or_an_ancestor() {
    let mut builder = CatalogBuilder::new();
    builder.tags().add_source(
        "t.tags",
        "Farm.Harvest.Wheat\nFarm.Harvest.Corn\nFarm.Sow\nMarket.Open\n",
    );
    builder.add_source(
        "a.ron",
        r#"(abilities: [
            (name: "GA_Reap", trigger: "Farm.Harvest", behaviour: ApplyEffects([])),
            (name: "GA_Sell", trigger: "Market.Open", behaviour: ApplyEffects([])),
            (name: "GA_Glean", trigger: "Farm.Harvest.Wheat", behaviour: ApplyEffects([])),
        ])"#,
    );
    let catalog = builder.build().unwrap();
    let tag = |name: &str| catalog.tags().get(name).unwrap();
    let heard = |name: &str| catalog.abilities().triggered_by(tag(name));
    assert!(heard("Farm.Harvest") && heard("Farm.Harvest.Wheat") && heard("Farm.Harvest.Corn"));
    assert!(heard("Market.Open"));
    assert!(!heard("Farm") && !heard("Farm.Sow") && !heard("Market"));
    // Which ones, in id order: a leaf hears its own trigger and its
    // ancestors'.
    let by = |name: &str| {
        catalog
            .abilities()
            .abilities_triggered_by(tag(name))
            .iter()
            .map(|&id| catalog.abilities().def(id).name.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(by("Farm.Harvest.Wheat"), ["GA_Reap", "GA_Glean"]);
    assert_eq!(by("Farm.Harvest.Corn"), ["GA_Reap"]);
    assert_eq!(by("Farm.Harvest"), ["GA_Reap"]);
    assert_eq!(by("Market.Open"), ["GA_Sell"]);
    assert!(by("Farm.Sow").is_empty() && by("Market").is_empty());
}

/// A definition made twice in one file is reported at the second, not at
/// the first mention of the name (which may be a reference to it).
#[test]
fn a_definition_made_twice_is_reported_where_it_is_made_again() {
    let mut builder = gaskit::CatalogBuilder::new();
    builder.add_source(
        "burn.ron",
        "(effects: [\n    (name: \"GE_Spark\", duration: Infinite, on_removal: [\"GE_Burn\"]),\n    (name: \"GE_Burn\"),\n    (name: \"GE_Burn\"),\n])",
    );
    let errors = builder.build().unwrap_err().to_string();
    assert!(
        errors.contains("effect `GE_Burn` is already defined in burn.ron")
            && errors.contains("burn.ron:4:13"),
        "{errors}"
    );
}

/// The shared attack cooldown is stamped with each swing's interval: an
/// edited `GE_Attack_Cooldown` with a constant duration would override
/// every weapon's interval in silence, so it is a load error naming the
/// file.
#[test]
fn an_attack_cooldown_that_ignores_the_stamp_is_a_load_error() {
    let mut builder = CatalogBuilder::new();
    combat::add_content(&mut builder);
    for (path, text) in TAG_FILES.iter().chain(CORE_TAG_FILES) {
        builder.tags().add_source(path, text);
    }
    for (path, text) in CONTENT_FILES {
        let text = if path.ends_with("effects.ron") {
            let stamped = "duration: Duration(SetByCaller(\"Cooldown.Combat.Attack\"))";
            assert_eq!(text.matches(stamped).count(), 1, "{path}");
            text.replacen(stamped, "duration: Duration(Constant(5))", 1)
        } else {
            text.to_string()
        };
        builder.add_source(path, &text);
    }
    let errors = builder.build().unwrap_err().to_string();
    assert!(
        errors.contains("effect `GE_Attack_Cooldown` must take its duration from SetByCaller(\"Cooldown.Combat.Attack\")")
            && errors.contains("abilities/effects.ron:"),
        "{errors}"
    );
}

/// A refusal or name read with content other than the one that made it
/// (a peer on older content, a log replayed after an update) reads as
/// "?" for what that content does not define, never a panic.
#[test]
fn an_attribute_from_other_content_reads_as_unknown() {
    let build = |source: &str| {
        let mut builder = CatalogBuilder::new();
        builder.add_source("attributes.ron", source);
        builder.build().unwrap()
    };
    let old = build(r#"(attributes: [(name: "Mana")])"#);
    let new = build(r#"(attributes: [(name: "Gold"), (name: "Mana"), (name: "Wood")])"#);
    let wood = new.attributes().get("Wood").unwrap();
    assert!(old.attributes().try_def(wood).is_none());
    assert_eq!(old.attributes().name(wood), "?");
    assert_eq!(new.attributes().name(wood), "Wood");
    let refusal = gaskit::ActivationFailure::Cost { attribute: wood };
    assert_eq!(refusal.detail(&old).as_deref(), Some("?"));
    assert_eq!(refusal.detail(&new).as_deref(), Some("Wood"));
    // A read through the context answers for what the entity holds.
    let mana = old.attributes().get("Mana").unwrap();
    let gas = gaskit::Gas::new(old);
    let mut world = gaskit::hecs::World::new();
    let villager = world.spawn((gas.new_ability_system(),));
    let bare = world.spawn(((),));
    assert_eq!(gas.attribute_value(&world, villager, mana), Some(0.0));
    assert_eq!(gas.attribute_value(&world, villager, wood), None);
    assert_eq!(gas.attribute_value(&world, bare, mana), None);
}
