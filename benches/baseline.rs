//! gaskit against the speed of light: the cost of one resolved attack in a
//! crowd fight, next to the same combat written by hand over plain arrays.
//!
//! The hand-written fight keeps only what every attack must do: the
//! cooldown cadence (next attack = previous + interval, exactly), the hit
//! roll, the damage roll and the health clamp, with the same RNG and the
//! same numbers (intervals, hit chances and hits are read from the warmed-up
//! gaskit arena, so both fights are the same fight). gaskit additionally
//! runs the engagement loop as an ability, stamps the cooldown and applies
//! the damage as gameplay effects, routes XP and refreshes in-combat state:
//! the ratio is the price of the framework.
//!
//! Run: `cargo bench --bench baseline`. After criterion's report, the bench
//! measures both fights again, interleaved, and prints the ratio.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, Criterion};
use gaskit::arena::{Arena, ArenaConfig};
use gaskit::combat::{self, math, AttackSource, Combatant};
use gaskit::prelude::*;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;

const FRAME: SimDuration = SimDuration::from_millis(50);

/// A warmed-up arena: every fighter in range and swinging.
fn warm_arena(combatants: usize) -> Arena {
    let mut arena = Arena::new(ArenaConfig {
        combatants,
        ..ArenaConfig::default()
    })
    .expect("the shipped catalog builds the arena");
    arena.run_for(SimDuration::from_secs(20), FRAME);
    arena
}

/// The same fight over plain arrays.
struct HandWritten {
    now: u64,
    next_attack: Vec<u64>,
    interval: Vec<u64>,
    target: Vec<u32>,
    hit_chance: Vec<f64>,
    min_hit: Vec<u32>,
    max_hit: Vec<u32>,
    health: Vec<f64>,
    max_health: Vec<f64>,
    rng: ChaCha8Rng,
    attacks: u64,
}

impl HandWritten {
    /// Copies the numbers of every fighter out of a warmed-up arena.
    fn from_arena(arena: &Arena) -> Self {
        let world = &arena.world;
        let index: std::collections::HashMap<hecs::Entity, usize> = arena
            .entities
            .iter()
            .enumerate()
            .map(|(i, &e)| (e, i))
            .collect();
        let index_of = |e: hecs::Entity| index.get(&e).copied();
        let health_attr = arena.gas.catalog().attributes().get("Health").unwrap();
        let max_attr = arena.gas.catalog().attributes().get("MaxHealth").unwrap();
        let mut fight = HandWritten {
            now: arena.gas.now().as_micros(),
            next_attack: Vec::new(),
            interval: Vec::new(),
            target: Vec::new(),
            hit_chance: Vec::new(),
            min_hit: Vec::new(),
            max_hit: Vec::new(),
            health: Vec::new(),
            max_health: Vec::new(),
            rng: ChaCha8Rng::seed_from_u64(1),
            attacks: 0,
        };
        for (i, &e) in arena.entities.iter().enumerate() {
            let target = world
                .get::<&Combatant>(e)
                .unwrap()
                .targeting
                .target
                .unwrap();
            let stats = combat::snapshot(&arena.runtime, world, e, arena.gas.now()).unwrap();
            let spell = match stats.source {
                AttackSource::Autocast(spell) => arena.runtime.defs().spell(spell),
                AttackSource::Weapon(_) => None,
            };
            let damage_type = if spell.is_some() {
                combat::DamageType::Magic
            } else {
                stats.damage_type
            };
            let rolls = combat::attack_rolls(
                &arena.runtime,
                world,
                arena.gas.now(),
                e,
                target,
                damage_type,
                stats.style,
                spell,
            )
            .unwrap();
            let system = world.get::<&AbilitySystem>(e).unwrap();
            fight.interval.push(stats.interval.as_micros());
            // Spread first attacks over one interval, as in the arena.
            fight
                .next_attack
                .push(fight.now + (i as u64 * 7_919) % stats.interval.as_micros());
            fight.target.push(index_of(target).unwrap() as u32);
            fight.hit_chance.push(rolls.hit_chance);
            fight.min_hit.push(rolls.min_hit);
            fight.max_hit.push(rolls.max_hit);
            fight.health.push(system.current(health_attr));
            fight.max_health.push(system.current(max_attr));
        }
        fight
    }

    /// One frame: every attack due in it, each attacker's in time order;
    /// the next one is due exactly an interval after the last (no drift).
    fn step(&mut self, frame: u64) {
        let end = self.now + frame;
        for i in 0..self.next_attack.len() {
            while self.next_attack[i] <= end {
                self.attack(i);
                self.next_attack[i] += self.interval[i];
            }
        }
        self.now = end;
    }

    fn attack(&mut self, i: usize) {
        self.attacks += 1;
        if !math::roll_hit(&mut self.rng, self.hit_chance[i]) {
            return;
        }
        let amount = math::roll_between(&mut self.rng, self.min_hit[i], self.max_hit[i]);
        let t = self.target[i] as usize;
        self.health[t] = (self.health[t] - f64::from(amount)).clamp(0.0, self.max_health[t]);
        if self.health[t] == 0.0 {
            // Keep the crowd fighting: the fallen get back up.
            self.health[t] = self.max_health[t];
        }
    }
}

/// Runs frames until at least `attacks` more attacks resolved; returns the
/// time per attack.
fn time_gaskit(arena: &mut Arena, attacks: u64) -> Duration {
    let start_count = arena.attacks_resolved();
    let started = Instant::now();
    let deadline = arena.gas.now() + SimDuration::from_secs(1_000_000);
    while arena.attacks_resolved() - start_count < attacks {
        assert!(arena.gas.now() < deadline, "the arena stopped fighting");
        arena.run_for(FRAME, FRAME);
    }
    started.elapsed() / (arena.attacks_resolved() - start_count) as u32
}

fn time_hand_written(fight: &mut HandWritten, attacks: u64) -> Duration {
    let start_count = fight.attacks;
    let started = Instant::now();
    while fight.attacks - start_count < attacks {
        fight.step(black_box(FRAME.as_micros()));
    }
    started.elapsed() / (fight.attacks - start_count) as u32
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("per resolved attack, 1000 combatants");
    let mut arena = warm_arena(1_000);
    let mut fight = HandWritten::from_arena(&arena);
    group.bench_function("gaskit", |b| {
        b.iter_custom(|iters| time_gaskit(&mut arena, iters) * iters as u32)
    });
    group.bench_function("hand-written", |b| {
        b.iter_custom(|iters| time_hand_written(&mut fight, iters) * iters as u32)
    });
    group.finish();
}

/// Interleaved rounds of both fights; prints the median of each and their
/// ratio.
fn ratio(combatants: usize, rounds: usize, attacks: u64) {
    let mut arena = warm_arena(combatants);
    let mut fight = HandWritten::from_arena(&arena);
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for _ in 0..rounds {
        ours.push(time_gaskit(&mut arena, attacks));
        theirs.push(time_hand_written(&mut fight, attacks));
    }
    ours.sort();
    theirs.sort();
    let (ours, theirs) = (ours[rounds / 2], theirs[rounds / 2]);
    println!(
        "ratio at {combatants:>7} combatants: gaskit {:>6} ns / attack, hand-written {:>5} ns / attack, gaskit = {:.1}x",
        ours.as_nanos(),
        theirs.as_nanos(),
        ours.as_secs_f64() / theirs.as_secs_f64().max(1e-12)
    );
}

criterion_group!(benches, bench);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    ratio(1_000, 7, 20_000);
    ratio(100_000, 3, 200_000);
}
