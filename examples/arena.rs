//! The arena: many combatants fighting in small groups (chase included) with
//! tracing off, to measure what gaskit costs at scale. Prints simulated
//! seconds per wall second, resolved attacks per second, nanoseconds per
//! resolved attack (everything included: the loop, cooldown and damage
//! effects, health, timers), peak memory and bytes per combatant.
//!
//! Run: `cargo run --release --example arena -- --combatants 100000 --seconds 10`
//! (`--help` lists every flag; defaults finish in a few seconds).

use std::process::ExitCode;
use std::time::Instant;

use gaskit::arena::{Arena, ArenaConfig, WeaponClass};
use gaskit::prelude::*;
use gaskit::Prefetch;

const HELP: &str = "\
gaskit arena: many combatants fighting in small groups.

USAGE:
    cargo run --release --example arena -- [FLAGS]

FLAGS:
    --combatants N      how many (default 10000)
    --seconds S         simulated seconds measured (default 10)
    --warmup S          simulated seconds run first and not measured (default 0):
                        the first seconds include every chase and first allocation
    --seed N            RNG seed (default 1)
    --mix LIST          weapon classes to cycle through: melee,ranged,magic (default all three)
    --group N           combatants per group (default 4)
    --step SECONDS      frame step (default 0.05)
    --prefetch WHEN     auto, always or never: whether the timer loop prefetches for its
                        coming timers (default auto: from 16384 entities)
    --mappings          at the end, list where resident memory lies: each mapping of the
                        process holding a byte or more per combatant (Linux only)
    --help              print this help
";

struct Options {
    combatants: usize,
    seconds: f64,
    warmup: f64,
    seed: u64,
    mix: Vec<WeaponClass>,
    group: usize,
    step: f64,
    prefetch: Prefetch,
    mappings: bool,
}

fn parse() -> Result<Option<Options>, String> {
    let mut o = Options {
        combatants: 10_000,
        seconds: 10.0,
        warmup: 0.0,
        seed: 1,
        mix: WeaponClass::ALL.to_vec(),
        group: 4,
        step: 0.05,
        prefetch: Prefetch::Auto,
        mappings: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--help" | "-h" => return Ok(None),
            "--mappings" => o.mappings = true,
            "--combatants" => {
                o.combatants = value()?
                    .parse()
                    .map_err(|_| "--combatants must be a whole number")?
            }
            "--warmup" => o.warmup = value()?.parse().map_err(|_| "--warmup must be a number")?,
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
            "--prefetch" => {
                o.prefetch = match value()?.as_str() {
                    "auto" => Prefetch::Auto,
                    "always" => Prefetch::Always,
                    "never" => Prefetch::Never,
                    other => {
                        return Err(format!(
                            "--prefetch must be auto, always or never, not `{other}`"
                        ))
                    }
                }
            }
            "--mix" => {
                o.mix = value()?
                    .split(',')
                    .map(|c| match c.trim() {
                        "melee" => Ok(WeaponClass::Melee),
                        "ranged" => Ok(WeaponClass::Ranged),
                        "magic" => Ok(WeaponClass::Magic),
                        other => Err(format!(
                            "unknown class `{other}` in --mix (melee, ranged, magic)"
                        )),
                    })
                    .collect::<Result<_, _>>()?;
            }
            other => return Err(format!("unknown flag `{other}` (see --help)")),
        }
    }
    let whole_micros = |seconds: f64| {
        SimDuration::from_secs_f64(seconds).is_ok_and(|d| d >= SimDuration::from_micros(1))
    };
    if o.combatants < 2 || o.group < 2 || o.mix.is_empty() {
        return Err("need at least 2 combatants and groups of at least 2".into());
    }
    if !whole_micros(o.seconds) || !whole_micros(o.step) {
        return Err("--seconds and --step must be finite and at least a microsecond".into());
    }
    if SimDuration::from_secs_f64(o.warmup).is_err() {
        return Err("--warmup must be finite and not negative".into());
    }
    Ok(Some(o))
}

/// The wall time of each measured step, in seconds. Throughput hides how
/// it is spread: the arena's swings fall on the combat tick (0.6 s), so
/// the step holding a tick does most of the work and the steps between
/// do little. A server stepping at a fixed rate cares about the slowest.
struct StepWalls(Vec<f64>);

impl StepWalls {
    fn with_capacity(steps: usize) -> Self {
        Self(Vec::with_capacity(steps))
    }

    fn push(&mut self, seconds: f64) {
        self.0.push(seconds);
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    /// The bytes the log itself has written: the arena's measuring, not a
    /// fighter's memory, so not counted against them.
    fn bytes(&self) -> usize {
        std::mem::size_of_val(self.0.as_slice())
    }

    fn median(&self) -> f64 {
        let mut sorted = self.0.clone();
        sorted.sort_by(f64::total_cmp);
        sorted.get(sorted.len() / 2).copied().unwrap_or(0.0)
    }

    fn slowest(&self) -> f64 {
        self.0.iter().copied().fold(0.0, f64::max)
    }

    /// How many steps took longer than `seconds` of wall time.
    fn longer_than(&self, seconds: f64) -> usize {
        self.0.iter().filter(|&&wall| wall > seconds).count()
    }
}

/// Resident and peak memory of this process in bytes (Linux `/proc`).
fn memory() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    (kib_field(&status, "VmRSS:"), kib_field(&status, "VmHWM:"))
}

/// Resident memory held in transparent huge pages, in bytes (Linux
/// `/proc`; 0 elsewhere). At scale each scattered read may also miss the
/// TLB, and 2 MiB pages make that rarer: glibc's heap uses them when the
/// process starts with `GLIBC_TUNABLES=glibc.malloc.hugetlb=1` (README,
/// Prefetching).
fn huge_pages() -> u64 {
    let rollup = std::fs::read_to_string("/proc/self/smaps_rollup").unwrap_or_default();
    kib_field(&rollup, "AnonHugePages:")
}

/// One mapping of the process's address space, as `/proc/self/smaps`
/// lists it.
#[derive(Debug, PartialEq)]
struct Mapping {
    /// Its path, `[heap]` for malloc's heap, or `anonymous` (a large
    /// allocation, which malloc maps on its own).
    what: String,
    /// Bytes of address space.
    size: u64,
    /// Bytes of it resident.
    resident: u64,
}

/// The mappings listed in `smaps` text, in its order. Where the resident
/// memory of a large run lies, which valgrind's heap profile cannot reach
/// at a million fighters: malloc's heap holds the per-entity blocks, and
/// each large allocation (a component column, the timer pool) is a mapping
/// of its own, of which only what was written is resident.
fn mappings(smaps: &str) -> Vec<Mapping> {
    let mut found: Vec<Mapping> = Vec::new();
    for line in smaps.lines() {
        if line.starts_with("Rss:") {
            if let Some(last) = found.last_mut() {
                last.resident = kib_field(line, "Rss:");
            }
            continue;
        }
        // A mapping's header: `start-end perms offset device inode [path]`;
        // every other line starts with a field name.
        let mut fields = line.split_whitespace();
        let Some((start, end)) = fields.next().and_then(|range| range.split_once('-')) else {
            continue;
        };
        let (Ok(start), Ok(end)) = (u64::from_str_radix(start, 16), u64::from_str_radix(end, 16))
        else {
            continue;
        };
        found.push(Mapping {
            what: fields.nth(4).unwrap_or("anonymous").to_string(),
            size: end.saturating_sub(start),
            resident: 0,
        });
    }
    found
}

/// The value of a `/proc` line `name  N kB`, in bytes.
fn kib_field(text: &str, name: &str) -> u64 {
    text.lines()
        .find(|l| l.starts_with(name))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
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
    let (rss_before, _) = memory();
    let spawn_started = Instant::now();
    let config = ArenaConfig {
        combatants: options.combatants,
        group: options.group,
        mix: options.mix.clone(),
        seed: options.seed,
        trace: false,
    };
    let mut arena = match Arena::with_progress(config, |n| {
        eprintln!("spawned {n} of {}", options.combatants)
    }) {
        Ok(arena) => arena,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let spawn_seconds = spawn_started.elapsed().as_secs_f64();
    let (rss_spawned, _) = memory();
    arena.gas.set_prefetch(options.prefetch);

    let step = SimDuration::from_secs_f64(options.step).expect("checked positive");
    let warmup = SimDuration::from_secs_f64(options.warmup).expect("checked");
    if warmup > SimDuration::ZERO {
        let warm_started = Instant::now();
        arena.run_for(warmup, step);
        eprintln!(
            "warm-up: {} simulated s in {:.2} s wall",
            options.warmup,
            warm_started.elapsed().as_secs_f64()
        );
    }
    let attacks_before = arena.attacks_resolved();
    let end = arena.gas.now() + SimDuration::from_secs_f64(options.seconds).expect("checked");
    // Each step's wall time, with room for every step made before the
    // clock starts (the measured loop allocates nothing of its own).
    let mut step_walls =
        StepWalls::with_capacity((options.seconds / options.step).ceil() as usize + 1);
    let started = Instant::now();
    let mut last_report = Instant::now();
    while arena.gas.now() < end {
        let step_started = Instant::now();
        arena.step(step, end);
        step_walls.push(step_started.elapsed().as_secs_f64());
        if last_report.elapsed().as_secs_f64() > 2.0 {
            last_report = Instant::now();
            eprintln!(
                "  {:.1} / {} simulated s, {} attacks so far",
                arena.gas.now().as_secs_f64() - options.warmup,
                options.seconds,
                arena.attacks_resolved()
            );
        }
    }
    let wall = started.elapsed().as_secs_f64();
    let (rss_end, peak) = memory();
    let huge = huge_pages();
    let attacks = arena.attacks_resolved() - attacks_before;
    let engaged = arena.engaged();

    println!(
        "arena: {} combatants in groups of {}, {} simulated s after {} s of warm-up, seed {}, prefetch {}",
        options.combatants,
        options.group,
        options.seconds,
        options.warmup,
        options.seed,
        if arena.gas.prefetch().applies(arena.world.len()) { "on" } else { "off" }
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
        "  step wall time          median {:.2} ms, slowest {:.1} ms; {} of {} steps took longer than the {:.1} ms they simulate",
        step_walls.median() * 1e3,
        step_walls.slowest() * 1e3,
        step_walls.longer_than(options.step),
        step_walls.len(),
        options.step * 1e3
    );
    println!(
        "  memory                  peak {:.1} MiB; per combatant {:.0} bytes after spawn, {:.0} in the fight",
        peak as f64 / (1 << 20) as f64,
        rss_spawned.saturating_sub(rss_before) as f64 / options.combatants as f64,
        (rss_end.saturating_sub(rss_before)).saturating_sub(step_walls.bytes() as u64) as f64
            / options.combatants as f64
    );
    println!(
        "  in huge pages           {:.1} MiB",
        huge as f64 / (1 << 20) as f64
    );
    if options.mappings {
        print_mappings(options.combatants);
    }
    ExitCode::SUCCESS
}

/// Lists the mappings holding at least a resident byte per combatant,
/// largest first, in bytes per combatant.
fn print_mappings(combatants: usize) {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap_or_default();
    let per = |bytes: u64| bytes as f64 / combatants as f64;
    let mut large: Vec<Mapping> = mappings(&smaps)
        .into_iter()
        .filter(|m| per(m.resident) >= 1.0)
        .collect();
    large.sort_by_key(|m| std::cmp::Reverse(m.resident));
    println!("  resident by mapping     bytes per combatant (of the mapping's size)");
    for m in &large {
        println!(
            "    {:>10.1} ({:>8.1})  {}",
            per(m.resident),
            per(m.size),
            m.what
        );
    }
}

#[cfg(test)]
mod tests {
    use super::{mappings, Mapping, StepWalls};

    #[test]
    fn mappings_are_read_with_their_size_and_resident_bytes() {
        let smaps = "\
55595b381000-55595b3a1000 rw-p 00000000 00:00 0                          [heap]
Size:                128 kB
Rss:                  96 kB
VmFlags: rd wr mr mw me ac sd
7fa2f73f1000-7fa2f75f1000 rw-p 00000000 00:00 0
Size:               2048 kB
KernelPageSize:        4 kB
Rss:                1024 kB
7fa400000000-7fa400001000 r-xp 00001000 08:01 1234                       /usr/lib/libc.so.6
Rss:                   4 kB
";
        assert_eq!(
            mappings(smaps),
            vec![
                Mapping {
                    what: "[heap]".into(),
                    size: 128 << 10,
                    resident: 96 << 10
                },
                Mapping {
                    what: "anonymous".into(),
                    size: 2048 << 10,
                    resident: 1024 << 10
                },
                Mapping {
                    what: "/usr/lib/libc.so.6".into(),
                    size: 4 << 10,
                    resident: 4 << 10
                },
            ]
        );
        assert_eq!(mappings("Rss: 4 kB\nnot a mapping\n"), vec![]);
    }

    #[test]
    fn step_walls_name_the_median_the_slowest_and_the_overruns() {
        let mut walls = StepWalls::with_capacity(5);
        for seconds in [0.002, 0.540, 0.0, 0.051, 0.001] {
            walls.push(seconds);
        }
        assert_eq!(walls.len(), 5);
        assert_eq!(walls.median(), 0.002);
        assert_eq!(walls.slowest(), 0.540);
        assert_eq!(walls.longer_than(0.05), 2);
        assert_eq!(walls.longer_than(0.540), 0);
    }

    #[test]
    fn no_steps_report_zeros() {
        let walls = StepWalls::with_capacity(0);
        assert_eq!(
            (walls.median(), walls.slowest(), walls.longer_than(0.05)),
            (0.0, 0.0, 0)
        );
    }
}
