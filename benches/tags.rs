//! Tag checks, queries and counted-tag updates.
//!
//! Run: `cargo bench --bench tags`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use gaskit::{Tag, TagCounts, TagQueryDef, TagRegistry, TagSet};

/// `count` distinct leaves of the registry, spread over the whole taxonomy
/// (a fixed pseudo-random pick, so every run measures the same set).
fn sample(registry: &TagRegistry, count: usize) -> TagSet {
    let mut leaves: Vec<Tag> = registry.iter().filter(|t| t.is_leaf()).collect();
    assert!(leaves.len() >= count, "the taxonomy has enough leaves");
    leaves.sort_by_key(|t| (t.index() as u32).wrapping_mul(2_654_435_761));
    leaves.into_iter().take(count).collect()
}

fn bench(c: &mut Criterion) {
    let registry = gaskit::combat::default_tag_registry_builder()
        .build()
        .unwrap();
    let owned = sample(&registry, 32);
    let leaf = owned.iter().nth(17).unwrap();
    let parent = registry.get("Combat").unwrap();
    let absent_leaf = registry
        .iter()
        .filter(|t| t.is_leaf())
        .find(|t| !owned.has_exact(*t))
        .unwrap();

    c.bench_function("has/leaf (set of 32)", |b| {
        b.iter(|| black_box(&owned).has(black_box(leaf)))
    });
    c.bench_function("has/parent (set of 32)", |b| {
        b.iter(|| black_box(&owned).has(black_box(parent)))
    });
    c.bench_function("has/absent (set of 32)", |b| {
        b.iter(|| black_box(&owned).has(black_box(absent_leaf)))
    });

    let four: TagSet = owned.iter().step_by(8).collect();
    c.bench_function("has_all/4 of 32", |b| {
        b.iter(|| black_box(&owned).has_all(black_box(&four)))
    });
    c.bench_function("has_all_exact/4 of 32", |b| {
        b.iter(|| black_box(&owned).has_all_exact(black_box(&four)))
    });

    let query = TagQueryDef::parse(
        r#"(all: ["Combat"], none: ["Status.Dead", "Action.Modal"], any_of: [(any: ["Status.Stunned", "Skill"]), (none: ["State"])])"#,
        "bench.ron",
        &registry,
    )
    .unwrap();
    c.bench_function("query/nested (set of 32)", |b| {
        b.iter(|| black_box(&query).matches(black_box(&owned)))
    });

    let mut counts = TagCounts::new();
    for tag in owned.iter() {
        counts.add(tag);
    }
    let stunned = registry.get("Status.Stunned").unwrap();
    c.bench_function("counts/add+remove new tag (32 held)", |b| {
        b.iter(|| {
            black_box(counts.add(black_box(stunned)));
            black_box(counts.remove(black_box(stunned)).unwrap());
        })
    });
    c.bench_function("counts/add+remove held tag (32 held)", |b| {
        b.iter(|| {
            black_box(counts.add(black_box(leaf)));
            black_box(counts.remove(black_box(leaf)).unwrap());
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
