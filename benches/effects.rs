//! Effect application and expiry: instant, duration and periodic; the
//! time-remaining read the auto-attack loop uses.
//!
//! Run: `cargo bench --bench effects`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use gaskit::prelude::*;

const CONTENT: &str = r#"(effects: [
    (name: "Poison", duration: Duration(Constant(3)), period: (seconds: 1.0),
     modifiers: [(attribute: "Damage", op: Flat, magnitude: Constant(0))]),
    (name: "Haste", duration: Duration(Constant(2)),
     modifiers: [(attribute: "AttackSpeed", op: Mult, magnitude: Constant(1.25))],
     granted_tags: ["Status.Buff.Haste"]),
])"#;

fn bench(c: &mut Criterion) {
    let mut builder = gaskit::combat::default_catalog_builder();
    builder.add_source("bench.ron", CONTENT);
    let catalog = builder.build().unwrap();
    let tags = catalog.tags().clone();
    let effects = catalog.effects().clone();
    let mut gas = Gas::new(catalog);
    gas.trace_mut().set_filter(gaskit::TraceFilter::NONE);
    let mut world = hecs::World::new();
    let target = world.spawn((gas.new_ability_system(),));

    let slash = tags.get("Combat.DamageType.Slash").unwrap();
    let damage = EffectSpec::new(effects.get("GE_Damage").unwrap()).with_set_by_caller(slash, 0.0);
    c.bench_function("instant/apply (damage, drain into Health)", |b| {
        b.iter(|| {
            black_box(
                gas.apply_effect(&mut world, target, black_box(damage.clone()))
                    .unwrap(),
            )
        })
    });

    let attack = tags.get("Cooldown.Combat.Attack").unwrap();
    let cooldown =
        EffectSpec::new(effects.get("GE_Attack_Cooldown").unwrap()).with_set_by_caller(attack, 2.4);
    let step = SimDuration::from_millis(2_500);
    c.bench_function(
        "duration/apply+expire (attack cooldown, grants a tag)",
        |b| {
            b.iter(|| {
                black_box(
                    gas.apply_effect(&mut world, target, black_box(cooldown.clone()))
                        .unwrap(),
                );
                gas.advance_by(&mut world, step);
            })
        },
    );

    // Application alone, on a host holding at most eight cooldowns (a
    // realistic load: the apply path scans the host's few active effects
    // for stacking and immunity). Each application adds one active effect
    // with a tag grant and an expiry timer; the expiries run outside the
    // timed region.
    c.bench_function("duration/apply only (attack cooldown, grants a tag)", |b| {
        b.iter_custom(|iters| {
            let mut timed = std::time::Duration::ZERO;
            let mut left = iters;
            while left > 0 {
                let batch = left.min(8);
                let started = std::time::Instant::now();
                for _ in 0..batch {
                    black_box(
                        gas.apply_effect(&mut world, target, black_box(cooldown.clone()))
                            .unwrap(),
                    );
                }
                timed += started.elapsed();
                gas.advance_by(&mut world, step);
                left -= batch;
            }
            timed
        })
    });

    let haste = EffectSpec::new(effects.get("Haste").unwrap());
    c.bench_function("duration/apply+expire (AttackSpeed modifier + tag)", |b| {
        b.iter(|| {
            black_box(
                gas.apply_effect(&mut world, target, black_box(haste.clone()))
                    .unwrap(),
            );
            gas.advance_by(&mut world, step);
        })
    });

    let poison = EffectSpec::new(effects.get("Poison").unwrap());
    let three = SimDuration::from_secs(3);
    c.bench_function("periodic/apply+3 ticks+expire", |b| {
        b.iter(|| {
            black_box(
                gas.apply_effect(&mut world, target, black_box(poison.clone()))
                    .unwrap(),
            );
            gas.advance_by(&mut world, three);
        })
    });

    gas.apply_effect(&mut world, target, cooldown.clone())
        .unwrap();
    c.bench_function("time_remaining (Cooldown.Combat.Attack)", |b| {
        b.iter(|| black_box(gas.time_remaining(&world, black_box(target), black_box(attack))))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
