//! The arena: many combatants fighting in small groups (chase included) with
//! tracing off, to measure what gaskit costs at scale. Prints simulated
//! seconds per wall second, resolved attacks per second, nanoseconds per
//! resolved attack (everything included: the loop, cooldown and damage
//! effects, health, timers), peak memory and bytes per combatant.
//!
//! Run: `cargo run --release --example arena -- --combatants 100000 --seconds 10`
//! (`--help` lists every flag; defaults finish in a few seconds).

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use gaskit::combat::{self, Combatant, Kinematic, Skill, Skills, Vec2};
use gaskit::prelude::*;

const HELP: &str = "\
gaskit arena: many combatants fighting in small groups.

USAGE:
    cargo run --release --example arena -- [FLAGS]

FLAGS:
    --combatants N      how many (default 10000)
    --seconds S         simulated seconds (default 10)
    --seed N            RNG seed (default 1)
    --mix LIST          weapon classes to cycle through: melee,ranged,magic (default all three)
    --group N           combatants per group (default 4)
    --step SECONDS      frame step (default 0.05)
    --help              print this help
";

#[derive(Copy, Clone, PartialEq)]
enum Class {
    Melee,
    Ranged,
    Magic,
}

struct Options {
    combatants: usize,
    seconds: f64,
    seed: u64,
    mix: Vec<Class>,
    group: usize,
    step: f64,
}

fn parse() -> Result<Option<Options>, String> {
    let mut o = Options {
        combatants: 10_000,
        seconds: 10.0,
        seed: 1,
        mix: vec![Class::Melee, Class::Ranged, Class::Magic],
        group: 4,
        step: 0.05,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--help" | "-h" => return Ok(None),
            "--combatants" => {
                o.combatants = value()?
                    .parse()
                    .map_err(|_| "--combatants must be a whole number")?
            }
            "--seconds" => {
                o.seconds = value()?.parse().map_err(|_| "--seconds must be a number")?
            }
            "--seed" => {
                o.seed = value()?
                    .parse()
                    .map_err(|_| "--seed must be a whole number")?
            }
            "--group" => {
                o.group = value()?
                    .parse()
                    .map_err(|_| "--group must be a whole number")?
            }
            "--step" => o.step = value()?.parse().map_err(|_| "--step must be a number")?,
            "--mix" => {
                o.mix = value()?
                    .split(',')
                    .map(|c| match c.trim() {
                        "melee" => Ok(Class::Melee),
                        "ranged" => Ok(Class::Ranged),
                        "magic" => Ok(Class::Magic),
                        other => Err(format!(
                            "unknown class `{other}` in --mix (melee, ranged, magic)"
                        )),
                    })
                    .collect::<Result<_, _>>()?;
            }
            other => return Err(format!("unknown flag `{other}` (see --help)")),
        }
    }
    if o.combatants < 2 || o.group < 2 || !(o.seconds > 0.0) || !(o.step > 0.0) || o.mix.is_empty()
    {
        return Err(
            "need at least 2 combatants, groups of at least 2, positive seconds and step".into(),
        );
    }
    Ok(Some(o))
}

/// Resident and peak memory of this process in bytes (Linux `/proc`).
fn memory() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn main() -> ExitCode {
    let options = match parse() {
        Ok(Some(o)) => o,
        Ok(None) => {
            print!("{HELP}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let catalog = Arc::new(Catalog::with_defaults());
    let mut gas = Gas::with_seed(catalog.clone(), options.seed);
    gas.trace_mut().set_filter(0);
    let runtime =
        combat::install(&mut gas).expect("the shipped catalog has the combat definitions");
    let mut world = hecs::World::new();
    let (rss_before, _) = memory();

    let tags = catalog.tags();
    let item = |name: &str| catalog.combat().item_named(name).expect("shipped item");
    let weapon_slot = tags[native::ITEM_SLOT_WEAPON];
    let ammo_slot = tags[native::ITEM_SLOT_AMMO];
    let strike = catalog
        .combat()
        .spell_named("Wind Strike")
        .expect("shipped spell");
    let abilities: Vec<_> = ["GA_AutoAttack", "GA_Death", "GA_Disengage"]
        .iter()
        .map(|n| catalog.abilities().get(n).expect("shipped ability"))
        .collect();
    let engage = tags[native::TRIGGER_ENGAGE];
    let spawn_started = Instant::now();
    let mut entities = Vec::with_capacity(options.combatants);
    // Groups sit on a grid 5000 cm apart; members start 400-700 cm from
    // each other, so melee fighters chase before their first swing.
    let side = ((options.combatants / options.group) as f64).sqrt().ceil() as usize + 1;
    for i in 0..options.combatants {
        let group = i / options.group;
        let member = i % options.group;
        let centre = Vec2::new(
            (group % side) as f64 * 5000.0,
            (group / side) as f64 * 5000.0,
        );
        let angle = member as f64 * std::f64::consts::TAU / options.group as f64;
        let at = centre + Vec2::new(angle.cos(), angle.sin()) * (350.0 + 50.0 * (i % 7) as f64);
        let class = options.mix[i % options.mix.len()];
        let mut fighter = combat::new_combatant(&catalog, catalog.combat().default_kind());
        // Tough and weak: fights last, so the arena measures steady state.
        fighter.skills = Skills::all_at(1);
        fighter.skills.set_level(Skill::Hitpoints, 99);
        match class {
            Class::Melee => {
                fighter
                    .equipment
                    .put(weapon_slot, item("Bronze Scimitar"), 1);
            }
            Class::Ranged => {
                fighter.equipment.put(weapon_slot, item("Oak Shortbow"), 1);
                fighter
                    .equipment
                    .put(ammo_slot, item("Bronze Arrow"), 1_000_000);
            }
            Class::Magic => {
                fighter.inventory.add(item("Air Rune"), 1_000_000);
                fighter.inventory.add(item("Mind Rune"), 1_000_000);
                fighter.spellbook.autocast = Some(strike);
            }
        }
        let entity = world.spawn((gas.new_ability_system(), fighter, Kinematic::at(at, 250.0)));
        for &ability in &abilities {
            gas.grant_ability(&mut world, entity, ability, 1)
                .expect("just spawned");
        }
        combat::prepare(&runtime, &mut world, &mut gas, entity);
        entities.push(entity);
        if i % 100_000 == 99_999 {
            eprintln!("spawned {} of {}", i + 1, options.combatants);
        }
    }
    // Each member engages the next one in its group.
    for (i, &attacker) in entities.iter().enumerate() {
        let group_start = i - i % options.group;
        let group_len = options.group.min(options.combatants - group_start);
        let target = entities[group_start + (i - group_start + 1) % group_len];
        if target != attacker {
            gas.send_event(attacker, GameplayEvent::new(engage).target(target));
        }
    }
    let spawn_seconds = spawn_started.elapsed().as_secs_f64();
    let (rss_spawned, _) = memory();

    let step = SimDuration::from_secs_f64(options.step).expect("positive step");
    let end = SimTime::from_secs_f64(options.seconds).expect("positive seconds");
    let started = Instant::now();
    let mut last_report = Instant::now();
    while gas.now() < end {
        let to = (gas.now() + step).min(end);
        gas.advance_to(&mut world, to);
        if last_report.elapsed().as_secs_f64() > 2.0 {
            last_report = Instant::now();
            eprintln!(
                "  {:.1} / {} simulated s, {} attacks so far",
                gas.now().as_secs_f64(),
                options.seconds,
                runtime.attacks_resolved()
            );
        }
    }
    let wall = started.elapsed().as_secs_f64();
    let (_, peak) = memory();
    let attacks = runtime.attacks_resolved();
    let engaged = entities
        .iter()
        .filter(|&&e| {
            world
                .get::<&Combatant>(e)
                .is_ok_and(|c| c.targeting.target.is_some())
        })
        .count();

    println!(
        "arena: {} combatants in groups of {}, {} simulated s, seed {}",
        options.combatants, options.group, options.seconds, options.seed
    );
    println!("  spawn + engage          {spawn_seconds:.2} s wall");
    println!(
        "  simulated / wall        {:.2}x real time ({wall:.3} s wall)",
        options.seconds / wall
    );
    println!(
        "  resolved attacks        {attacks} ({:.0} per wall second)",
        attacks as f64 / wall
    );
    println!(
        "  per resolved attack     {:.0} ns all-in",
        wall * 1e9 / attacks.max(1) as f64
    );
    println!(
        "  still engaged at end    {engaged} of {}",
        options.combatants
    );
    println!(
        "  memory                  peak {:.1} MiB, {:.0} bytes per combatant",
        peak as f64 / (1 << 20) as f64,
        rss_spawned.saturating_sub(rss_before) as f64 / options.combatants as f64
    );
    ExitCode::SUCCESS
}
