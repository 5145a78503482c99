//! Attributes: the modifier pipeline, bounds, derived attributes, breakdown,
//! and the worked examples of seeds 001 and 003.

use gaskit::{
    AttributeError, AttributeId, Attributes, Catalog, CatalogBuilder, Gas, LoadErrors, ModOp,
    SourceId,
};
use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The seed-001 stat table (subset) and seed-003 profile, as content data.
const STATS: &str = r#"(
    attributes: [
        (name: "Damage10", base: 10),
        (name: "HealthRegen", base: 0),
        (name: "UltimateCooldown", base: 60, mode: Interval, cap: 0.60),
        (name: "Vitality", base: 3),
        (name: "Strength", base: 10),
        (name: "AttackPower", base: 20),
        (name: "HeroMaxHealth", base: 1),
        (name: "Armor", base: 0, min: 0, max: 50),
        (name: "CombatPower", base: 0),
        (name: "MaxHealth", base: 40, min: 1),
        (name: "Health", base: 40, min: 0, max: "MaxHealth", clamp_base: true),
        (name: "Damage", meta: true, drains: "Health"),
    ],
    derived: [
        (name: "Hero", rules: [
            (target: "CombatPower", terms: [("AttackPower", 1), ("Armor", 0.25)]),
            (target: "HeroMaxHealth", base: 100, terms: [("Vitality", 10)]),
            (target: "Armor", base: 5, terms: [("Strength", 0.5)]),
        ]),
    ],
)"#;

fn catalog() -> Catalog {
    let mut builder = CatalogBuilder::new();
    builder.add_source("stats.ron", STATS);
    builder.build().unwrap_or_else(|e| panic!("{e}"))
}

/// A context over `content` alone (one file, `name`).
fn gas_over(name: &str, content: &str) -> Gas {
    let mut builder = CatalogBuilder::new();
    builder.add_source(name, content);
    Gas::new(builder.build().unwrap_or_else(|e| panic!("{e}")))
}

fn id(catalog: &Catalog, name: &str) -> AttributeId {
    catalog.attributes().get(name).unwrap()
}

fn close(actual: f64, expected: f64) -> bool {
    (actual - expected).abs() < 1e-9
}

const WORKSHOP: SourceId = SourceId(1);
const CARD: SourceId = SourceId(2);
const BERSERKER: SourceId = SourceId(3);
const UPGRADE: SourceId = SourceId(4);

// ------------------------------------------------------------- seed 001

#[test]
fn seed_001_damage_flat_then_mult() {
    let c = catalog();
    let (schema, damage) = (c.attributes(), id(&c, "Damage10"));
    let mut a = Attributes::new(schema);
    a.add_modifier(schema, damage, ModOp::Flat, 14.40, WORKSHOP)
        .unwrap();
    a.add_modifier(schema, damage, ModOp::Mult, 2.40, CARD)
        .unwrap();
    a.add_modifier(schema, damage, ModOp::Mult, 1.30, BERSERKER)
        .unwrap();
    assert!(close(a.current(damage), 24.40 * 3.12));
    assert_eq!(format!("{:.2}", a.current(damage)), "76.13");
    // +15 points apply before the multipliers.
    a.add_modifier(schema, damage, ModOp::Points, 0.15, UPGRADE)
        .unwrap();
    assert!(close(a.current(damage), 24.40 * 1.15 * 3.12));
    assert_eq!(format!("{:.2}", a.current(damage)), "87.55");
}

#[test]
fn seed_001_flat_accumulator_makes_zero_bases_reachable() {
    let c = catalog();
    let (schema, regen) = (c.attributes(), id(&c, "HealthRegen"));
    let mut a = Attributes::new(schema);
    a.add_modifier(schema, regen, ModOp::Mult, 1.60, CARD)
        .unwrap();
    assert_eq!(
        a.current(regen),
        0.0,
        "a factor on a zero base does nothing"
    );
    a.add_modifier(schema, regen, ModOp::Flat, 4.00, WORKSHOP)
        .unwrap();
    assert_eq!(format!("{:.2}", a.current(regen)), "6.40");
}

#[test]
fn seed_001_interval_cooldown_and_the_cap() {
    let c = catalog();
    let (schema, ult) = (c.attributes(), id(&c, "UltimateCooldown"));
    let mut a = Attributes::new(schema);
    a.add_modifier(schema, ult, ModOp::Points, 0.08, WORKSHOP)
        .unwrap();
    a.add_modifier(schema, ult, ModOp::Points, 0.30, CARD)
        .unwrap();
    assert_eq!(format!("{:.1}", a.current(ult)), "37.2");
    a.add_modifier(schema, ult, ModOp::Points, 0.30, BERSERKER)
        .unwrap();
    assert_eq!(format!("{:.1}", a.current(ult)), "24.0");

    let breakdown = a.breakdown(schema, ult);
    assert!(close(breakdown.points_sum, 0.68));
    assert!(close(breakdown.points_applied, 0.60));
    assert!(close(breakdown.points_lost, 0.08), "8 points lost");
    assert!(breakdown.cap_ate_points());
    // A fourth source would do nothing at all.
    a.add_modifier(schema, ult, ModOp::Points, 0.30, UPGRADE)
        .unwrap();
    assert_eq!(format!("{:.1}", a.current(ult)), "24.0");
}

#[test]
fn interval_attributes_divide_by_their_multiplier() {
    let c = catalog();
    let (schema, ult) = (c.attributes(), id(&c, "UltimateCooldown"));
    let mut a = Attributes::new(schema);
    // A 1.25 speed-up shortens the 60 s span to 48 s (a Direct attribute
    // would grow to 75).
    a.add_modifier(schema, ult, ModOp::Mult, 1.25, CARD)
        .unwrap();
    assert!(close(a.current(ult), 48.0), "{}", a.current(ult));
    // Flat adds before, points shrink before the division.
    a.add_modifier(schema, ult, ModOp::Flat, 15.0, WORKSHOP)
        .unwrap();
    assert!(close(a.current(ult), 60.0));
    a.add_modifier(schema, ult, ModOp::Points, 0.20, UPGRADE)
        .unwrap();
    assert!(close(a.current(ult), 75.0 * 0.8 / 1.25));
}

// ------------------------------------------------------------- pipeline

#[test]
fn newest_override_wins_and_removal_restores_the_formula() {
    let c = catalog();
    let (schema, damage) = (c.attributes(), id(&c, "Damage10"));
    let mut a = Attributes::new(schema);
    a.add_modifier(schema, damage, ModOp::Flat, 5.0, WORKSHOP)
        .unwrap();
    a.add_modifier(schema, damage, ModOp::Override, 99.0, CARD)
        .unwrap();
    a.add_modifier(schema, damage, ModOp::Override, 7.0, BERSERKER)
        .unwrap();
    assert_eq!(a.current(damage), 7.0);
    a.remove_modifiers(schema, BERSERKER);
    assert_eq!(a.current(damage), 99.0);
    a.remove_modifiers(schema, CARD);
    assert_eq!(a.current(damage), 15.0);
}

#[test]
fn bounds_apply_last_and_can_follow_another_attribute() {
    let c = catalog();
    let schema = c.attributes();
    let (health, max_health) = (id(&c, "Health"), id(&c, "MaxHealth"));
    let mut a = Attributes::new(schema);
    assert_eq!((a.current(health), a.current(max_health)), (40.0, 40.0));
    a.add_modifier(schema, health, ModOp::Flat, 100.0, CARD)
        .unwrap();
    assert_eq!(a.current(health), 40.0, "Health ≤ MaxHealth");
    a.remove_modifiers(schema, CARD);

    // A MaxHealth buff does not heal; a MaxHealth drop clamps Health, and
    // because Health clamps its base, the loss stays after the drop ends.
    let changes = a
        .add_modifier(schema, max_health, ModOp::Flat, 20.0, CARD)
        .unwrap();
    assert_eq!((a.current(max_health), a.current(health)), (60.0, 40.0));
    assert_eq!(changes.len(), 1, "only MaxHealth changed");
    a.remove_modifiers(schema, CARD);
    let changes = a
        .add_modifier(schema, max_health, ModOp::Mult, 0.5, CARD)
        .unwrap();
    assert_eq!((a.current(max_health), a.current(health)), (20.0, 20.0));
    assert_eq!(
        changes.iter().map(|c| c.attribute).collect::<Vec<_>>(),
        [max_health, health]
    );
    a.remove_modifiers(schema, CARD);
    assert_eq!((a.current(max_health), a.current(health)), (40.0, 20.0));
    assert_eq!(a.base(health), 20.0);
}

#[test]
fn non_finite_writes_are_rejected_and_change_nothing() {
    let c = catalog();
    let (schema, damage) = (c.attributes(), id(&c, "Damage10"));
    let mut a = Attributes::new(schema);
    let before = a.clone();
    for value in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert!(a
            .add_modifier(schema, damage, ModOp::Mult, value, CARD)
            .is_err());
        assert!(a.set_base(schema, damage, value).is_err());
    }
    assert_eq!(a, before);
}

#[test]
fn negative_points_are_ignored_and_shown() {
    let c = catalog();
    let (schema, damage) = (c.attributes(), id(&c, "Damage10"));
    let mut a = Attributes::new(schema);
    a.add_modifier(schema, damage, ModOp::Points, -0.20, CARD)
        .unwrap();
    assert_eq!(a.current(damage), 10.0);
    let breakdown = a.breakdown(schema, damage);
    assert!(close(breakdown.points_lost, -0.20));
    assert!(breakdown
        .to_string()
        .contains("use Mult below 1 for a penalty"));
}

// ------------------------------------------------------------- history

/// Applies random modifiers in random orders, with random detours of
/// apply/remove, and checks every order yields bit-identical values.
#[test]
fn results_are_independent_of_application_order_and_history() {
    let c = catalog();
    let schema = c.attributes();
    // Not Health: `clamp_base` makes its base deliberately stateful.
    let targets = [
        "Damage10",
        "UltimateCooldown",
        "HealthRegen",
        "MaxHealth",
        "Armor",
        "Strength",
    ]
    .map(|n| id(&c, n));
    let ops = [ModOp::Flat, ModOp::Points, ModOp::Mult];
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for round in 0..300 {
        let count = 1 + (rng.next_u32() % 24) as usize;
        let mods: Vec<(AttributeId, ModOp, f64, SourceId)> = (0..count)
            .map(|i| {
                let attribute = targets[(rng.next_u32() % targets.len() as u32) as usize];
                let op = ops[(rng.next_u32() % 3) as usize];
                let raw = (rng.next_u32() % 10_000) as f64 / 997.0;
                let value = match op {
                    ModOp::Mult => 0.5 + raw / 10.0,
                    ModOp::Points => raw / 50.0 - 0.05,
                    _ => raw - 3.0,
                };
                (attribute, op, value, SourceId(i as u64 % 5))
            })
            .collect();

        let apply_all = |order: &[usize], detours: bool, rng: &mut ChaCha8Rng| {
            let mut a = Attributes::with_profile(schema, schema.profile("Hero").unwrap()).unwrap();
            for &i in order {
                let (attribute, op, value, source) = mods[i];
                if detours && rng.next_u32() % 3 == 0 {
                    // Apply and remove an unrelated buff around this one.
                    let noise = SourceId(1_000 + i as u64);
                    a.add_modifier(schema, attribute, ModOp::Mult, 1.0 + value.abs(), noise)
                        .unwrap();
                    a.remove_modifiers(schema, noise);
                }
                a.add_modifier(schema, attribute, op, value, source)
                    .unwrap();
            }
            a
        };
        let forward: Vec<usize> = (0..count).collect();
        let reference = apply_all(&forward, false, &mut rng);
        let mut shuffled = forward.clone();
        for i in (1..shuffled.len()).rev() {
            shuffled.swap(i, (rng.next_u32() as usize) % (i + 1));
        }
        let other = apply_all(&shuffled, true, &mut rng);
        for attribute in schema.ids().filter(|&a| !schema.def(a).clamp_base) {
            assert_eq!(
                reference.current(attribute).to_bits(),
                other.current(attribute).to_bits(),
                "round {round}: {} differs",
                schema.name(attribute)
            );
        }
    }
}

#[test]
fn a_million_apply_remove_cycles_leave_values_bit_identical() {
    let c = catalog();
    let schema = c.attributes();
    let (damage, ult) = (id(&c, "Damage10"), id(&c, "UltimateCooldown"));
    let mut a = Attributes::new(schema);
    a.add_modifier(schema, damage, ModOp::Flat, 0.1, WORKSHOP)
        .unwrap();
    a.add_modifier(schema, ult, ModOp::Points, 0.3, WORKSHOP)
        .unwrap();
    let start = a.clone();
    for _ in 0..1_000_000 {
        a.add_modifier(schema, damage, ModOp::Mult, 1.1, CARD)
            .unwrap();
        a.add_modifier(schema, ult, ModOp::Points, 0.07, CARD)
            .unwrap();
        a.remove_modifiers(schema, CARD);
    }
    assert_eq!(a.current(damage).to_bits(), start.current(damage).to_bits());
    assert_eq!(a.current(ult).to_bits(), start.current(ult).to_bits());
    assert_eq!(a.modifier_count(), start.modifier_count());
}

// ------------------------------------------------------------- seed 003

#[test]
fn seed_003_rules_chain_in_dependency_order() {
    let c = catalog();
    let schema = c.attributes();
    let hero = schema.profile("Hero").unwrap();
    let mut a = Attributes::with_profile(schema, hero).unwrap();
    let [vitality, strength, max_health, armor, combat_power, attack_power] = [
        "Vitality",
        "Strength",
        "HeroMaxHealth",
        "Armor",
        "CombatPower",
        "AttackPower",
    ]
    .map(|n| id(&c, n));
    assert_eq!(a.current(max_health), 100.0 + 3.0 * 10.0);
    assert_eq!(a.current(armor), 5.0 + 10.0 * 0.5);
    assert_eq!(
        a.current(combat_power),
        20.0 + 10.0 * 0.25,
        "reads Armor after Armor's own rule"
    );

    // Authored first, CombatPower still runs after Armor, its source.
    let order: Vec<&str> = schema
        .profile_rules(hero)
        .map(|(t, _, _)| schema.name(t))
        .collect();
    assert_eq!(order, ["HeroMaxHealth", "Armor", "CombatPower"]);

    // A source change flows through the chain; modifiers layer on the rule's base.
    a.set_base(schema, strength, 30.0).unwrap();
    assert_eq!((a.current(armor), a.current(combat_power)), (20.0, 25.0));
    a.add_modifier(schema, armor, ModOp::Flat, 4.0, CARD)
        .unwrap();
    assert_eq!((a.current(armor), a.current(combat_power)), (24.0, 26.0));
    // Target bounds apply after the rule: Armor ≤ 50.
    a.set_base(schema, strength, 1000.0).unwrap();
    assert_eq!(a.current(armor), 50.0);
    a.add_modifier(schema, vitality, ModOp::Mult, 2.0, CARD)
        .unwrap();
    assert_eq!(a.current(max_health), 160.0);
    a.set_base(schema, attack_power, 0.0).unwrap();
    assert_eq!(a.current(combat_power), 12.5);
}

#[test]
fn seed_003_non_finite_result_leaves_the_target_unchanged() {
    let mut builder = CatalogBuilder::new();
    builder.add_source(
        "huge.ron",
        r#"(attributes: [(name: "Big"), (name: "Out")],
            derived: [(name: "P", rules: [(target: "Out", base: 1, terms: [("Big", 1e300)])])])"#,
    );
    let c = builder.build().unwrap();
    let schema = c.attributes();
    let (big, out) = (id(&c, "Big"), id(&c, "Out"));
    let mut a = Attributes::with_profile(schema, schema.profile("P").unwrap()).unwrap();
    a.set_base(schema, big, 2.0).unwrap();
    assert_eq!(a.current(out), 1.0 + 2e300);
    a.set_base(schema, big, 1e300).unwrap();
    assert_eq!(a.current(out), 1.0 + 2e300, "1e600 overflows: unchanged");
}

/// A profile id from another catalog (here one with more profiles) is
/// refused by every way of making an entity's attributes; it panicked.
#[test]
fn a_profile_from_another_catalog_is_refused() {
    let mut builder = CatalogBuilder::new();
    builder.add_source(
        "many.ron",
        r#"(attributes: [(name: "A"), (name: "B")],
            derived: [(name: "P", rules: [(target: "B", base: 1, terms: [("A", 2)])]),
                      (name: "Q", rules: [(target: "B", base: 2, terms: [("A", 1)])])])"#,
    );
    let many = builder.build().unwrap();
    let foreign = many.attributes().profile("Q").unwrap();
    let mut builder = CatalogBuilder::new();
    builder.add_source("few.ron", r#"(attributes: [(name: "A"), (name: "B")])"#);
    let gas = Gas::new(builder.build().unwrap());
    let schema = gas.catalog().attributes();
    assert_eq!(schema.profile_count(), 1, "the rule-less one alone");
    let refused = Err(AttributeError::UnknownProfile(foreign));
    assert_eq!(Attributes::with_profile(schema, foreign), refused);
    assert_eq!(Attributes::with_bases(schema, foreign, &[]), refused);
    let error = gas.new_ability_system_with_profile(foreign).unwrap_err();
    assert_eq!(
        error.to_string(),
        "derived profile #2 is not in this schema"
    );
    assert!(gas.new_ability_system_with(foreign, &[]).is_err());
    assert_eq!(schema.profile_rules(foreign).count(), 0);
}

fn profile_errors(profile: &str) -> LoadErrors {
    let text = format!(
        "(attributes: [(name: \"A\"), (name: \"B\"), (name: \"C\"), (name: \"M\", meta: true, drains: \"C\")],\n derived: [\n{profile}\n])"
    );
    let mut builder = CatalogBuilder::new();
    builder.add_source("profile.ron", &text);
    builder.build().expect_err("the profile is invalid")
}

#[test]
fn seed_003_rejections_name_the_rule() {
    let cases: &[(&str, &str)] = &[
        (
            r#"(name: "P", rules: [(target: "A", terms: [("B", 1)]), (target: "A", terms: [("C", 1)])])"#,
            "rule 2 (target `A`): attribute `A` is already the target of rule 1",
        ),
        (
            r#"(name: "P", rules: [(target: "Nope")])"#,
            "rule 1 (target `Nope`): unknown attribute `Nope`",
        ),
        (
            r#"(name: "P", rules: [(target: "A", terms: [("Bee", 1)])])"#,
            "unknown attribute `Bee`",
        ),
        (
            r#"(name: "P", rules: [(target: "A", base: inf)])"#,
            "base must be finite, found inf",
        ),
        (
            r#"(name: "P", rules: [(target: "A", terms: [("B", NaN)])])"#,
            "coefficient of `B` must be finite",
        ),
        (r#"(name: "P", rules: [])"#, "has no rules"),
        (
            r#"(name: "P", rules: [(target: "M", terms: [("B", 1)])])"#,
            "rule 1 (target `M`): attribute `M` is a meta attribute, which holds nothing between executions",
        ),
        (
            r#"(name: "P", rules: [(target: "A"), (target: "B"), (target: "C"), (target: "A"), (target: "B"), (target: "C"), (target: "A"), (target: "B"), (target: "C")])"#,
            "has 9 rules; at most 8 are allowed",
        ),
        (
            r#"(name: "P", rules: [(target: "A", terms: [("B", 1), ("B", 1), ("B", 1), ("B", 1), ("B", 1), ("B", 1), ("B", 1), ("B", 1), ("C", 1)])])"#,
            "rule 1 (target `A`): 9 terms; at most 8 are allowed",
        ),
    ];
    for (profile, expected) in cases {
        let errors = profile_errors(profile);
        let text = errors.to_string();
        assert!(text.contains(expected), "expected `{expected}` in:\n{text}");
        assert!(
            errors
                .0
                .iter()
                .all(|d| d.file == "profile.ron" && d.line >= 1),
            "{text}"
        );
    }
    let unknown = profile_errors(r#"(name: "P", rules: [(target: "A", terms: [("Bee", 1)])])"#);
    assert_eq!(unknown.0[0].suggestion.as_deref(), Some("B"));
}

#[test]
fn seed_003_cycles_are_reported_with_their_whole_path() {
    let errors = profile_errors(
        r#"(name: "P", rules: [
            (target: "A", terms: [("C", 1)]),
            (target: "B", terms: [("A", 1)]),
            (target: "C", terms: [("B", 0.5)]),
        ])"#,
    );
    let text = errors.to_string();
    assert!(text.contains("rules form a cycle A → B → C → A"), "{text}");
    assert!(
        text.contains("rule 1 `A`, rule 2 `B`, rule 3 `C`"),
        "{text}"
    );

    let two = profile_errors(
        r#"(name: "P", rules: [(target: "B", terms: [("A", 1)]), (target: "A", terms: [("B", 1)])])"#,
    );
    assert!(two.to_string().contains("cycle A → B → A"), "{two}");
}

// ------------------------------------------------------------- data errors

fn content_errors(attributes: &str) -> LoadErrors {
    let mut builder = CatalogBuilder::new();
    builder.add_source("base.ron", r#"(attributes: [(name: "Health")])"#);
    builder.add_source("attrs.ron", &format!("(attributes: [\n{attributes}\n])"));
    builder.build().expect_err("the content is invalid")
}

#[test]
fn bad_attribute_definitions_are_located_errors() {
    let cases: &[(&str, &str, u32)] = &[
        (
            r#"(name: "Mana", max: "MaxMana")"#,
            "unknown attribute `MaxMana`",
            2,
        ),
        (
            r#"(name: "Health")"#,
            "attribute `Health` is already defined in base.ron",
            2,
        ),
        (
            r#"(name: "Bad Name")"#,
            "invalid attribute name `Bad Name`",
            2,
        ),
        (
            r#"(name: "Mana", base: NaN)"#,
            "base must be a finite number",
            2,
        ),
        (
            r#"(name: "Mana", min: 5, max: 1)"#,
            "min 5 is above max 1",
            2,
        ),
        (r#"(name: "Mana", max: "Mana")"#, "cannot bound itself", 2),
        (
            r#"(name: "Mana", cap: -0.5)"#,
            "cap must not be negative",
            2,
        ),
        (r#"(name: "Mana", colour: 3)"#, "colour", 2),
        (
            r#"(name: "Hit", meta: true, drains: "Health", min: 0)"#,
            "meta attribute `Hit`: its bounds would never apply",
            2,
        ),
        (
            "(name: \"Shield\", starts_at: \"Cap\"),\n(name: \"Cap\", base: 100, max: \"Shield\")",
            "attribute `Shield` cannot start at `Cap`: `Cap` follows `Shield`",
            2,
        ),
        (
            "(name: \"X\", max: \"Y\"),\n(name: \"Y\", max: \"X\")",
            "attribute bounds form a cycle X → Y → X",
            2,
        ),
    ];
    for (text, expected, line) in cases {
        let errors = content_errors(text);
        let rendered = errors.to_string();
        assert!(
            rendered.contains(expected),
            "expected `{expected}` in:\n{rendered}"
        );
        assert_eq!(errors.0[0].line, *line, "{rendered}");
    }
}

#[test]
fn the_shipped_attribute_set_has_what_combat_needs() {
    let c = gaskit::combat::default_catalog();
    let schema = c.attributes();
    for name in ["Health", "MaxHealth", "Damage", "AttackSpeed"] {
        assert!(schema.get(name).is_some(), "{name}");
    }
    let a = Attributes::new(schema);
    assert_eq!(a.current(schema.get("AttackSpeed").unwrap()), 1.0);
    assert!(schema.def(schema.get("Damage").unwrap()).meta);
}

#[test]
fn breakdown_lists_every_source_per_accumulator() {
    let c = catalog();
    let (schema, damage) = (c.attributes(), id(&c, "Damage10"));
    let mut a = Attributes::new(schema);
    a.add_modifier(schema, damage, ModOp::Flat, 14.40, WORKSHOP)
        .unwrap();
    a.add_modifier(schema, damage, ModOp::Mult, 1.30, BERSERKER)
        .unwrap();
    a.add_modifier(schema, damage, ModOp::Mult, 2.40, CARD)
        .unwrap();
    let b = a.breakdown(schema, damage);
    assert_eq!(b.base, 10.0);
    assert_eq!(
        b.flat
            .iter()
            .map(|c| (c.source, c.value))
            .collect::<Vec<_>>(),
        [(WORKSHOP, 14.40)]
    );
    assert_eq!(
        b.mult
            .iter()
            .map(|c| (c.source, c.value))
            .collect::<Vec<_>>(),
        [(BERSERKER, 1.30), (CARD, 2.40)]
    );
    assert_eq!(b.value.to_bits(), a.current(damage).to_bits());
    let names = |s: SourceId| match s {
        WORKSHOP => "Workshop Lv 12".to_owned(),
        CARD => "Card Damage Lv 3".to_owned(),
        _ => "Card Berserker Lv 5".to_owned(),
    };
    assert_eq!(
        b.render(names),
        "Damage10 (Direct) = 76.13
  base           10.00
  flat          +14.40  Workshop Lv 12
  mult         ×1.3000  Card Berserker Lv 5
               ×2.4000  Card Damage Lv 3
  formula   (10.00 + 14.40) × (1 + 0.0000) × 3.1200 = 76.1280
"
    );

    let ult = id(&c, "UltimateCooldown");
    for (source, value) in [(WORKSHOP, 0.08), (CARD, 0.30), (BERSERKER, 0.30)] {
        a.add_modifier(schema, ult, ModOp::Points, value, source)
            .unwrap();
    }
    let text = a.breakdown(schema, ult).to_string();
    assert!(
        text.contains("points sum 68.00 pp, cap 60.00 pp, applied 60.00 pp"),
        "{text}"
    );
    assert!(
        text.contains("WARNING: 8.00 pp of bonus are lost to the cap and do nothing"),
        "{text}"
    );
}

#[test]
fn saved_values_list_base_then_current_and_round_trip() {
    let c = catalog();
    let schema = c.attributes();
    let (health, max_health) = (id(&c, "Health"), id(&c, "MaxHealth"));
    let mut a = Attributes::new(schema);
    a.add_modifier(schema, max_health, ModOp::Mult, 0.5, CARD)
        .unwrap();
    assert_eq!((a.base(health), a.current(health)), (20.0, 20.0));
    assert_eq!((a.base(max_health), a.current(max_health)), (40.0, 20.0));
    let text = ron::to_string(&a).unwrap();
    // Base and current values are saved as two lists, one value per
    // attribute each, whatever the in-memory layout.
    let list = |field: &str| -> Vec<f64> {
        let start = text.find(&format!("{field}:[")).unwrap() + field.len() + 2;
        let end = start + text[start..].find(']').unwrap();
        text[start..end]
            .split(',')
            .map(|v| v.parse().unwrap())
            .collect()
    };
    let (base, current) = (list("base"), list("current"));
    assert_eq!((base.len(), current.len()), (schema.len(), schema.len()));
    assert_eq!(
        (base[max_health.index()], current[max_health.index()]),
        (40.0, 20.0)
    );
    let back: Attributes = ron::from_str(&text).unwrap();
    assert_eq!(back, a);
    assert_eq!(back.current(max_health), 20.0);

    // A current list one value short is refused when read, naming both counts.
    let short_start = text.find("current:[").unwrap() + "current:[".len();
    let first_comma = short_start + text[short_start..].find(',').unwrap();
    let short = format!("{}{}", &text[..short_start], &text[first_comma + 1..]);
    let error = ron::from_str::<Attributes>(&short).unwrap_err().to_string();
    assert!(
        error.contains(&format!(
            "{} base values and {} current",
            schema.len(),
            schema.len() - 1
        )),
        "{error}"
    );
}

/// Starting values follow their chain whatever the file's order (Shield
/// starts at Health, which starts at MaxHealth: Shield listed first read
/// Health before it had started, 0), a base the spawn gives wins over the
/// start (a wounded respawn kept full health), and a start at a meta
/// attribute or round a loop is a load error.
#[test]
fn starting_values_follow_their_chain_and_yield_to_a_given_base() {
    let mut builder = CatalogBuilder::new();
    builder.add_source(
        "start.ron",
        r#"(attributes: [
            (name: "Shield", starts_at: "Health"),
            (name: "MaxHealth", base: 100, min: 1),
            (name: "Health", min: 0, max: "MaxHealth", starts_at: "MaxHealth"),
        ])"#,
    );
    let gas = Gas::new(builder.build().unwrap());
    let id = |name: &str| gas.catalog().attributes().get(name).unwrap();
    let fresh = gas.new_ability_system();
    assert_eq!(fresh.current(id("Health")), 100.0);
    assert_eq!(fresh.current(id("Shield")), 100.0, "after Health started");
    let wounded = gas
        .new_ability_system_with(gaskit::ProfileId::NONE, &[(id("Health"), 30.0)])
        .unwrap();
    assert_eq!(wounded.current(id("Health")), 30.0, "the given base stays");
    assert_eq!(wounded.current(id("Shield")), 30.0);

    for (content, expected) in [
        (
            r#"(attributes: [(name: "Damage", meta: true), (name: "Ward", starts_at: "Damage")])"#,
            "attribute `Ward` cannot start at `Damage`",
        ),
        (
            r#"(attributes: [(name: "A", starts_at: "B"), (name: "B", starts_at: "A")])"#,
            "attribute `A` cannot start at `B`",
        ),
    ] {
        let mut builder = CatalogBuilder::new();
        builder.add_source("bad.ron", content);
        let errors = builder.build().unwrap_err().to_string();
        assert!(errors.contains(expected), "{expected}\nin\n{errors}");
    }
}

/// An effect's held modifiers arrive together: a `clamp_base` attribute
/// bounded by what they change is clamped once, against the bound they
/// make, whatever order the effect lists them in. (Written one at a time,
/// a halving listed before a bonus clamped a ward's Charge to the halved
/// capacity for good: 50 where the other order kept 60.)
#[test]
fn an_effects_modifiers_clamp_once_whatever_their_order() {
    let mut gas = gas_over(
        "ward.ron",
        r#"(
        attributes: [
            (name: "Capacity", base: 100),
            (name: "Charge", min: 0, max: "Capacity", clamp_base: true, starts_at: "Capacity"),
        ],
        effects: [
            (name: "GE_HalveThenBoost", duration: Infinite, modifiers: [
                (attribute: "Capacity", op: Mult, magnitude: Constant(0.5)),
                (attribute: "Capacity", op: Flat, magnitude: Constant(20)),
            ]),
            (name: "GE_BoostThenHalve", duration: Infinite, modifiers: [
                (attribute: "Capacity", op: Flat, magnitude: Constant(20)),
                (attribute: "Capacity", op: Mult, magnitude: Constant(0.5)),
            ]),
        ],
    )"#,
    );
    let mut world = hecs::World::new();
    let capacity = gas.catalog().attributes().get("Capacity").unwrap();
    let charge = gas.catalog().attributes().get("Charge").unwrap();
    for name in ["GE_HalveThenBoost", "GE_BoostThenHalve"] {
        let ward = world.spawn((gas.new_ability_system(),));
        let effect = gas.catalog().effects().get(name).unwrap();
        gas.apply_effect(&mut world, ward, gaskit::EffectSpec::new(effect))
            .unwrap();
        assert_eq!(gas.attribute_value(&world, ward, capacity), Some(60.0));
        assert_eq!(
            gas.attribute_value(&world, ward, charge),
            Some(60.0),
            "{name}"
        );
    }
}

/// A meta attribute bounded with `clamp_base` bounds what it drains: a
/// negative hit on a `min: 0` Hit heals nothing. (Without `clamp_base`
/// the bound would never apply, which is a load error.)
#[test]
fn a_clamped_meta_attribute_bounds_what_it_drains() {
    let mut gas = gas_over(
        "orchard.ron",
        r#"(
        attributes: [
            (name: "Sap", base: 50),
            (name: "Blight", meta: true, drains: "Sap", min: 0, clamp_base: true),
        ],
        effects: [
            (name: "GE_Rot", modifiers: [(attribute: "Blight", op: Flat, magnitude: Constant(10))]),
            (name: "GE_Cure", modifiers: [(attribute: "Blight", op: Flat, magnitude: Constant(-10))]),
        ],
    )"#,
    );
    let mut world = hecs::World::new();
    let tree = world.spawn((gas.new_ability_system(),));
    let sap = gas.catalog().attributes().get("Sap").unwrap();
    for (effect, expected) in [("GE_Rot", 40.0), ("GE_Cure", 40.0), ("GE_Rot", 30.0)] {
        let id = gas.catalog().effects().get(effect).unwrap();
        gas.apply_effect(&mut world, tree, gaskit::EffectSpec::new(id))
            .unwrap();
        assert_eq!(
            gas.attribute_value(&world, tree, sap),
            Some(expected),
            "{effect}"
        );
    }
}

/// A starting value is read once what it starts at has settled, even when
/// that depends on another starting value through a bound: a shield
/// starting at a capacity capped by Health starts full, whichever is
/// listed first. (It started at 0 when listed before Health, which had
/// not started yet.)
#[test]
fn a_starting_value_waits_for_the_starts_its_source_depends_on() {
    let shield_first = r#"(attributes: [
        (name: "Shield", starts_at: "ShieldCap"),
        (name: "ShieldCap", base: 1000, max: "Health"),
        (name: "MaxHealth", base: 100),
        (name: "Health", min: 0, max: "MaxHealth", starts_at: "MaxHealth"),
    ])"#;
    let health_first = r#"(attributes: [
        (name: "MaxHealth", base: 100),
        (name: "Health", min: 0, max: "MaxHealth", starts_at: "MaxHealth"),
        (name: "Shield", starts_at: "ShieldCap"),
        (name: "ShieldCap", base: 1000, max: "Health"),
    ])"#;
    for content in [shield_first, health_first] {
        let mut builder = CatalogBuilder::new();
        builder.add_source("shield.ron", content);
        let catalog = builder.build().unwrap_or_else(|e| panic!("{e}"));
        let values = Attributes::new(catalog.attributes());
        assert_eq!(values.current(id(&catalog, "Health")), 100.0);
        assert_eq!(values.current(id(&catalog, "ShieldCap")), 100.0);
        assert_eq!(values.current(id(&catalog, "Shield")), 100.0, "{content}");
    }
}

/// A stack applied again reads its target without its own modifiers: a
/// trellis that adds half the plant's Height reads the Height the plant
/// has without it, so its second stack doubles the first's bonus rather
/// than compounding it, and a full stack refreshed keeps the bonus it
/// had. (It read the Height with its own bonus in, so each application
/// fed on the last: 20 became 25, a refresh 15 became 17.5.)
#[test]
fn a_stack_applied_again_reads_its_target_without_its_own_bonus() {
    let garden = |limit: u32| {
        let gas = gas_over(
            "garden.ron",
            &format!(
                r#"(
            attributes: [(name: "Height", base: 10)],
            effects: [(name: "GE_Trellis", duration: Duration(Constant(10)),
                modifiers: [(attribute: "Height", op: Flat,
                             magnitude: Attribute(attribute: "Height", coefficient: 0.5))],
                stacking: (by: Target, limit: {limit}, duration: Refresh))],
        )"#
            ),
        );
        let mut world = hecs::World::new();
        let plant = world.spawn((gas.new_ability_system(),));
        (gas, world, plant)
    };
    for (limit, heights) in [(2, [15.0, 20.0, 20.0]), (1, [15.0, 15.0, 15.0])] {
        let (mut gas, mut world, plant) = garden(limit);
        let trellis = gas.catalog().effects().get("GE_Trellis").unwrap();
        let height = gas.catalog().attributes().get("Height").unwrap();
        for expected in heights {
            gas.apply_effect(&mut world, plant, gaskit::EffectSpec::new(trellis))
                .unwrap();
            assert_eq!(
                gas.attribute_value(&world, plant, height),
                Some(expected),
                "limit {limit}"
            );
        }
    }
}
