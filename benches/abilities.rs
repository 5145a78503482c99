//! Event dispatch → activation → commit for an instant ability; the
//! side-effect-free `can_activate` query.
//!
//! Run: `cargo bench --bench abilities`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use gaskit::prelude::*;

const CONTENT: &str = r#"(
    attributes: [(name: "Mana", base: 1000000000, min: 0)],
    effects: [
        (name: "GE_Cost", modifiers: [(attribute: "Mana", op: Flat, magnitude: Constant(-1))]),
        (name: "GE_Tick", modifiers: [(attribute: "Damage", op: Flat, magnitude: Constant(0))]),
        (name: "GE_Quick_Cooldown", duration: Duration(SetByCaller("Cooldown.Ability.Eat")),
         granted_tags: ["Cooldown.Ability.Eat"]),
    ],
    abilities: [
        (name: "GA_Instant", trigger: "Action.Trigger.Ability.Eat", cost: "GE_Cost",
         activation_blocked: (any: ["Status.Dead", "Status.Stunned"]),
         behaviour: ApplyEffects([(effect: "GE_Tick", to: Owner)])),
        (name: "GA_WithCooldown", trigger: "Action.Trigger.Ability.Buff",
         cooldown: (effect: "GE_Quick_Cooldown", seconds: 1),
         behaviour: ApplyEffects([(effect: "GE_Tick", to: Owner)])),
    ],
)"#;

fn bench(c: &mut Criterion) {
    let mut builder = gaskit::combat::default_catalog_builder();
    builder.add_source("bench.ron", CONTENT);
    let catalog = builder.build().unwrap();
    let tags = catalog.tags().clone();
    let abilities = catalog.abilities().clone();
    let mut gas = Gas::new(catalog);
    gas.trace_mut().set_filter(gaskit::TraceFilter::NONE);
    let mut world = hecs::World::new();
    let hero = world.spawn((gas.new_ability_system(),));
    for name in ["GA_Instant", "GA_WithCooldown"] {
        gas.grant_ability(&mut world, hero, abilities.get(name).unwrap(), 1)
            .unwrap();
    }

    let instant = GameplayEvent::new(tags.get("Action.Trigger.Ability.Eat").unwrap());
    c.bench_function("event -> activate -> commit cost -> apply -> end", |b| {
        b.iter(|| black_box(gas.handle_event(&mut world, black_box(hero), black_box(instant))))
    });

    let with_cooldown = GameplayEvent::new(tags.get("Action.Trigger.Ability.Buff").unwrap());
    let second = SimDuration::from_secs(1);
    c.bench_function(
        "event -> activate -> commit cooldown -> apply -> end, then expire",
        |b| {
            b.iter(|| {
                black_box(gas.handle_event(&mut world, black_box(hero), black_box(with_cooldown)));
                gas.advance_by(&mut world, second);
            })
        },
    );

    let instant_ability = abilities.get("GA_Instant").unwrap();
    c.bench_function("can_activate (ready: tags, cost, effects dry run)", |b| {
        b.iter(|| {
            black_box(gas.can_activate(
                &world,
                black_box(hero),
                black_box(instant_ability),
                Some(&instant),
            ))
        })
    });
    let cooled = abilities.get("GA_WithCooldown").unwrap();
    gas.handle_event(&mut world, hero, with_cooldown);
    assert!(gas.can_activate(&world, hero, cooled, None).is_err());
    c.bench_function("can_activate (refused: cooldown, with time left)", |b| {
        b.iter(|| black_box(gas.can_activate(&world, black_box(hero), black_box(cooled), None)))
    });
    gas.advance_by(&mut world, second);

    c.bench_function("queued event -> activation (send + advance 0)", |b| {
        b.iter(|| {
            gas.send_event(hero, black_box(instant));
            gas.advance_by(&mut world, SimDuration::ZERO);
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
