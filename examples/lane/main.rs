//! A second game on gaskit's core, with no combat layer: a hero holds a lane
//! against two grunts and a shaman. Its tags and content are its own
//! (`examples/lane/lane.tags`, `lane.ron`); its code is the creeps' brains,
//! one channelled spell, the bolt's damage formula and two observers. The
//! player and the AI act only through gameplay events.
//!
//! ```sh
//! cargo run --example lane            # the fight's trace and the survivors
//! cargo run --example lane -- --step 0.016   # any frame step, same fight
//! ```

// tests/lane.rs drives the same game, including the parts this binary
// does not call (save and restore).
#[allow(dead_code)]
#[path = "game.rs"]
mod game;

use std::process::ExitCode;

use gaskit::{SimDuration, SimTime};

fn main() -> ExitCode {
    let mut step = SimDuration::from_millis(50);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--step" => {
                let parsed = args
                    .next()
                    .and_then(|s| s.parse::<f64>().ok())
                    .and_then(|s| SimDuration::from_secs_f64(s).ok());
                match parsed {
                    Some(s) => step = s,
                    None => {
                        eprintln!("error: --step takes a number of seconds");
                        return ExitCode::from(2);
                    }
                }
            }
            "--help" | "-h" => {
                println!("usage: lane [--step SECONDS]");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("error: unknown flag `{other}` (try --help)");
                return ExitCode::from(2);
            }
        }
    }
    let mut lane = match game::Lane::new(game::SEED, game::default_script()) {
        Ok(lane) => lane,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let end = SimTime::from_secs_f64(22.0).expect("a valid time");
    lane.run(end, step);
    print!("{}", lane.compact_trace());
    println!("\ncues a client would play:");
    if let Ok(cues) = lane.cues.lock() {
        for line in cues.iter() {
            println!("{line}");
        }
    }
    println!("\nafter {end} s:");
    for (index, (name, _)) in lane.roster.iter().enumerate() {
        let (health, mana) = lane.vitals(index);
        println!("  {name:<8} health {health:>5}  mana {mana:>5}");
    }
    ExitCode::SUCCESS
}
