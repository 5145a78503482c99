//! Attribute recompute with 0, 4, 16 and 64 modifiers, and derived-profile
//! evaluation.
//!
//! Run: `cargo bench --bench attributes`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use gaskit::{Attributes, ModOp, SourceId};

const CONTENT: &str = r#"(
    attributes: [
        (name: "Power", base: 10, cap: 2.0),
        (name: "Vitality", base: 3),
        (name: "Strength", base: 10),
        (name: "AttackPower", base: 20),
        (name: "Toughness", base: 1),
        (name: "Armor", base: 0, min: 0),
        (name: "CombatPower", base: 0),
    ],
    derived: [
        (name: "Hero", rules: [
            (target: "Toughness", base: 100, terms: [("Vitality", 10)]),
            (target: "Armor", base: 5, terms: [("Strength", 0.5), ("Vitality", 0.1)]),
            (target: "CombatPower", terms: [("AttackPower", 1), ("Armor", 0.25), ("Toughness", 0.01)]),
        ]),
    ],
)"#;

fn bench(c: &mut Criterion) {
    let mut builder = gaskit::combat::default_catalog_builder();
    builder.add_source("bench.ron", CONTENT);
    let catalog = builder.build().unwrap();
    let schema = catalog.attributes();
    let power = schema.get("Power").unwrap();

    let mut group = c.benchmark_group("recompute");
    for count in [0usize, 4, 16, 64] {
        let mut values = Attributes::new(schema);
        let ops = [ModOp::Flat, ModOp::Points, ModOp::Mult];
        for i in 0..count {
            let value = 1.0 + i as f64 / 100.0;
            values
                .add_modifier(schema, power, ops[i % 3], value, SourceId(i as u64))
                .unwrap();
        }
        group.bench_with_input(BenchmarkId::from_parameter(count), &count, |b, _| {
            b.iter(|| black_box(values.refresh(schema, black_box(power))))
        });
    }
    group.finish();

    let hero = schema.profile("Hero").unwrap();
    let strength = schema.get("Strength").unwrap();
    let vitality = schema.get("Vitality").unwrap();
    let mut values = Attributes::with_profile(schema, hero).unwrap();
    c.bench_function("derived/source change through 3 chained rules", |b| {
        let mut toggle = false;
        b.iter(|| {
            toggle = !toggle;
            let v = if toggle { 12.0 } else { 10.0 };
            black_box(values.set_base(schema, vitality, black_box(v)).unwrap());
        })
    });
    c.bench_function("derived/source change through 2 chained rules", |b| {
        let mut toggle = false;
        b.iter(|| {
            toggle = !toggle;
            let v = if toggle { 12.0 } else { 10.0 };
            black_box(values.set_base(schema, strength, black_box(v)).unwrap());
        })
    });
    c.bench_function("modifier/add+remove (16 held)", |b| {
        let mut values = Attributes::new(schema);
        for i in 0..16 {
            values
                .add_modifier(schema, power, ModOp::Flat, i as f64, SourceId(i))
                .unwrap();
        }
        b.iter(|| {
            values
                .add_modifier(schema, power, ModOp::Mult, 1.5, SourceId(99))
                .unwrap();
            black_box(values.remove_modifiers(schema, SourceId(99)));
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
