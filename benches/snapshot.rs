//! Save and restore cost of a rollback snapshot: a 100-combatant world in
//! the middle of a fight (effects, timers, chases and engagements live).
//!
//! Run: `cargo bench --bench snapshot`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use gaskit::arena::{Arena, ArenaConfig};
use gaskit::combat::CombatComponents;
use gaskit::snapshot::{self, Snapshot};
use gaskit::SimDuration;

fn bench(c: &mut Criterion) {
    let mut arena = Arena::new(ArenaConfig {
        combatants: 100,
        ..ArenaConfig::default()
    })
    .expect("the shipped catalog builds the arena");
    arena.run_for(SimDuration::from_secs(10), SimDuration::from_millis(50));
    let saved = Snapshot::<CombatComponents>::save(&arena.world, &arena.gas);

    let mut group = c.benchmark_group("snapshot, 100 combatants");
    group.bench_function("save (copy the state)", |b| {
        b.iter(|| {
            black_box(Snapshot::<CombatComponents>::save(
                black_box(&arena.world),
                &arena.gas,
            ))
        })
    });
    group.bench_function("restore", |b| {
        b.iter(|| {
            saved
                .restore(black_box(&mut arena.world), &mut arena.gas)
                .unwrap()
        })
    });
    group.bench_function("checksum of the live state", |b| {
        b.iter(|| {
            black_box(snapshot::checksum::<CombatComponents>(
                black_box(&arena.world),
                &arena.gas,
            ))
        })
    });
    let text = saved.to_ron().unwrap();
    group.bench_function("serialize to RON", |b| {
        b.iter(|| black_box(saved.to_ron().unwrap()))
    });
    group.bench_function("deserialize from RON", |b| {
        b.iter(|| black_box(Snapshot::<CombatComponents>::from_ron(black_box(&text)).unwrap()))
    });
    group.finish();
    println!("serialized size: {} bytes", text.len());
}

criterion_group!(benches, bench);
criterion_main!(benches);
