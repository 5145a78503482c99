//! The gaskit duel: two shipped combatants fight to the death on the
//! embedded default data, and the duel prints who fights with what, a
//! readable trace with health bars, and a summary per side (swings, hits,
//! misses, damage, measured DPS against the analytic expectation, time of
//! death). The same seed gives the same duel at any frame step.
//!
//! Run: `cargo run --release --example duel [-- --seed 7 --step 0.0069]`
//! (`--help` lists every flag). `--inspect alice@10` prints the entity
//! inspector for a fighter at an instant; `--report fight.svg` (or `.html`)
//! draws the fight (see `report.rs`). Neither changes the fight.

mod report;
mod timeline;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Arc;

use gaskit::combat::CombatInspect;
use gaskit::combat::{
    expectation, snapshot, AttackOutcome, CombatRecord, Combatant, Expectation, Skill,
};
use gaskit::inspect::Inspector;
use gaskit::scenario::{Scenario, ScenarioRun};
use gaskit::{EntityNames, SimDuration, SimTime, Tag, TraceEvent, TraceFilter, TraceKind};
use hecs::Entity;

/// The default duel: a swordsman closes in on an archer.
const DEFAULT_DUEL: &str = r#"(
    seed: 1,
    duration: 300.0,
    step: 0.05,
    combatants: [
        (name: "alice", levels: {"Skill.Combat.Melee": 50, "Skill.Combat.Defense": 35, "Skill.Combat.Hitpoints": 18},
         position: (0, 0), speed: 250,
         equipment: [("Rune Scimitar", 1), ("Bronze Platebody", 1), ("Bronze Full Helm", 1)],
         inventory: [("Gold Bar", 1), ("Lobster", 2)]),
        (name: "bob", levels: {"Skill.Combat.Ranged": 50, "Skill.Combat.Defense": 35, "Skill.Combat.Hitpoints": 18},
         position: (1500, 0), speed: 200, style: "Combat.Style.Defensive",
         equipment: [("Yew Longbow", 1), ("Iron Arrow", 200), ("Leather Body", 1)],
         inventory: [("Gold Bar", 2)]),
    ],
    timeline: [
        (at: 0.0, do: Engage("alice", "bob")),
        (at: 0.0, do: Engage("bob", "alice")),
    ],
)"#;

const HELP: &str = "\
gaskit duel: two combatants fight to the death.

USAGE:
    cargo run --release --example duel -- [FLAGS]

FLAGS:
    --seed N              RNG seed (default: the scenario's)
    --step SECONDS        frame step; results do not depend on it (default: the scenario's)
    --duration SECONDS    stop after this long if nobody dies (default: the scenario's)
    --scenario PATH       run a scenario file instead of the default duel
    --trace-jsonl PATH    also write the full trace as JSON lines to PATH
    --inspect NAME@SECONDS
                          print the inspector for fighter NAME at that instant
                          (repeatable)
    --report PATH         draw the fight as a picture: PATH.svg, or PATH.html
                          with the SVG inline
    --quiet               print the summary only (and what --inspect asks for)
    --help                print this help
";

#[derive(Default)]
struct Options {
    seed: Option<u64>,
    step: Option<f64>,
    duration: Option<f64>,
    scenario: Option<String>,
    trace_jsonl: Option<String>,
    inspect: Vec<(String, SimTime)>,
    report: Option<String>,
    quiet: bool,
}

fn parse_args(args: impl Iterator<Item = String>) -> Result<Option<Options>, String> {
    let mut options = Options::default();
    let mut args = args.peekable();
    while let Some(flag) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        let number = |name: &str, text: String| -> Result<f64, String> {
            match text.parse::<f64>() {
                Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
                _ => Err(format!(
                    "{name} must be a positive number of seconds, not `{text}`"
                )),
            }
        };
        match flag.as_str() {
            "--help" | "-h" => return Ok(None),
            "--quiet" | "-q" => options.quiet = true,
            "--seed" => {
                let text = value("--seed")?;
                options.seed = Some(
                    text.parse()
                        .map_err(|_| format!("--seed must be a whole number, not `{text}`"))?,
                );
            }
            "--step" => options.step = Some(number("--step", value("--step")?)?),
            "--duration" => options.duration = Some(number("--duration", value("--duration")?)?),
            "--scenario" => options.scenario = Some(value("--scenario")?),
            "--trace-jsonl" => options.trace_jsonl = Some(value("--trace-jsonl")?),
            "--inspect" => options.inspect.push(parse_inspect(&value("--inspect")?)?),
            "--report" => {
                let path = value("--report")?;
                if !(path.ends_with(".svg") || path.ends_with(".html")) {
                    return Err(format!("--report writes .svg or .html, not `{path}`"));
                }
                options.report = Some(path);
            }
            other => return Err(format!("unknown flag `{other}` (see --help)")),
        }
    }
    Ok(Some(options))
}

/// `NAME@SECONDS`, as `--inspect` takes it.
fn parse_inspect(text: &str) -> Result<(String, SimTime), String> {
    let bad = || format!("--inspect takes NAME@SECONDS (like alice@10), not `{text}`");
    let (name, seconds) = text.rsplit_once('@').ok_or_else(bad)?;
    let seconds: f64 = seconds.parse().map_err(|_| bad())?;
    if name.is_empty() || !seconds.is_finite() || seconds < 0.0 {
        return Err(bad());
    }
    let at = SimTime::from_secs_f64(seconds).map_err(|e| format!("--inspect {text}: {e}"))?;
    Ok((name.to_owned(), at))
}

fn main() -> ExitCode {
    let options = match parse_args(std::env::args().skip(1)) {
        Ok(Some(options)) => options,
        Ok(None) => {
            print!("{HELP}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    // Everything goes to one buffer written at the end, so a closed pipe
    // (`| head`) ends the program quietly instead of panicking mid-print.
    let mut out = String::new();
    let result = run(&options, &mut out);
    let _ = std::io::stdout().write_all(out.as_bytes());
    match result {
        Ok(_) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the duel `options` describe, writing what it prints to `out`;
/// returns the finished run.
fn run(options: &Options, out: &mut String) -> Result<ScenarioRun, String> {
    let catalog = Arc::new(gaskit::combat::default_catalog());
    let (file, text) = match &options.scenario {
        None => ("default duel".to_owned(), DEFAULT_DUEL.to_owned()),
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("error: cannot read scenario `{path}`: {e}"))?;
            (path.clone(), text)
        }
    };
    let mut scenario = Scenario::parse(&text, &file, &catalog).map_err(|e| e.to_string())?;
    if let Some(seed) = options.seed {
        scenario.seed = seed;
    }
    if let Some(duration) = options.duration {
        scenario.duration = SimDuration::from_secs_f64(duration)
            .map_err(|e| format!("error: --duration {duration}: {e}"))?;
    }
    if let Some(step) = options.step {
        scenario.step =
            SimDuration::from_secs_f64(step).map_err(|e| format!("error: --step {step}: {e}"))?;
    }
    if scenario.step.is_zero() {
        return Err("error: --step rounds to zero microseconds".into());
    }
    scenario.trace_filter = TraceFilter::ALL;
    let mut run = ScenarioRun::new(catalog.clone(), scenario).map_err(|e| format!("error: {e}"))?;
    // The whole fight, however long: the report, the summary and the
    // JSON-lines file read every event.
    run.gas.trace_mut().set_capacity(None);

    if !options.quiet {
        let _ = writeln!(
            out,
            "gaskit duel: seed {}, frame step {}s, on the embedded default data\n",
            run.scenario().seed,
            // Exactly as given (0.0069 s, not the 0.006 s of three decimals).
            run.scenario().step.as_secs_f64()
        );
        for (name, entity) in run.fighters.clone() {
            let _ = writeln!(out, "  {name:<8} {}", loadout(&run, entity));
        }
        for warning in &run.warnings {
            let _ = writeln!(out, "  warning: {warning}");
        }
        let _ = writeln!(out);
    }
    let expected = expectations(&run);
    let mut looks = inspections_asked(&run, &options.inspect)?;
    let inspector = Inspector::new().with(CombatInspect(run.runtime.clone()));
    let mut inspected = String::new();

    // Frame by frame until someone dies or time is up. The fight ends at
    // the first death's own instant, wherever the frames fall: what came
    // after it in the frame it fell in is left out of everything reported,
    // and an inspection after it is not reached. An inspection between
    // two frames advances to its own instant first, so the fight is the
    // same with or without it.
    let end = SimTime::ZERO + run.scenario().duration;
    let step = run.scenario().step;
    let mut now = SimTime::ZERO;
    let mut died_at = None;
    let mut scanned = 0;
    let dead = dead_tag(&run);
    // The inputs at the very start, even in a duel of no length.
    run.advance_to(SimTime::ZERO);
    'frames: while now < end {
        let next = (now + step).min(end);
        while let Some((name, entity, at)) = looks.first().filter(|(_, _, at)| *at <= next) {
            run.advance_to((*at).max(now));
            died_at = died_at.or(first_death(run.gas.trace().events(), dead, &mut scanned));
            if died_at.is_some_and(|died| died < *at) {
                break 'frames;
            }
            // A fighter despawned by the scenario says so; the duel goes on.
            let _ = match inspector.inspect(&run.world, &run.gas, *entity) {
                Ok(seen) => writeln!(inspected, "{seen}"),
                Err(error) => writeln!(inspected, "{name} at {at}: cannot inspect: {error}\n"),
            };
            looks.remove(0);
        }
        now = next;
        run.advance_to(now);
        died_at = died_at.or(first_death(run.gas.trace().events(), dead, &mut scanned));
        if died_at.is_some() {
            break;
        }
    }
    let now = died_at.unwrap_or(now);
    for (name, _, at) in looks {
        let _ = writeln!(
            inspected,
            "{name} at {at}: not reached, the fight ended at {now}\n"
        );
    }

    let events: Vec<TraceEvent> = run
        .gas
        .trace()
        .events()
        .iter()
        .filter(|e| e.time <= now)
        .cloned()
        .collect();
    if !options.quiet {
        print_trace(&run, &events, out);
    }
    if !inspected.is_empty() {
        let _ = write!(out, "\ninspector\n\n{inspected}");
    }
    print_summary(&run, &events, &expected, now, out);
    if let Some(path) = &options.report {
        let picture = report::draw(&run, &events, now, path.ends_with(".html"))?;
        std::fs::write(path, picture).map_err(|e| format!("error: cannot write `{path}`: {e}"))?;
        if !options.quiet {
            let _ = writeln!(out, "\nfight report written to {path}");
        }
    }

    if let Some(path) = &options.trace_jsonl {
        let jsonl = gaskit::render_jsonl(run.fighters.as_slice(), run.gas.catalog(), &events);
        std::fs::write(path, jsonl).map_err(|e| format!("error: cannot write `{path}`: {e}"))?;
        if !options.quiet {
            let _ = writeln!(
                out,
                "\nfull trace written to {path} ({} events)",
                events.len()
            );
        }
    }
    Ok(run)
}

/// The `--inspect` requests as `(name, fighter, instant)`, earliest first;
/// a name no fighter has is an error listing the fighters.
fn inspections_asked(
    run: &ScenarioRun,
    asked: &[(String, SimTime)],
) -> Result<Vec<(String, Entity, SimTime)>, String> {
    let mut looks = Vec::new();
    for (name, at) in asked {
        let Some((_, entity)) = run.fighters.iter().find(|(n, _)| n == name) else {
            let known: Vec<&str> = run.fighters.iter().map(|(n, _)| n.as_str()).collect();
            return Err(format!(
                "error: --inspect: no fighter named `{name}` (fighters: {})",
                known.join(", ")
            ));
        };
        looks.push((name.clone(), *entity, *at));
    }
    looks.sort_by_key(|&(_, _, at)| at);
    Ok(looks)
}

/// The catalog's `Status.Dead`, which marks a death.
fn dead_tag(run: &ScenarioRun) -> Option<Tag> {
    run.gas.catalog().tags().get("Status.Dead")
}

/// Who `event` shows dying: the death flow's record, or `Status.Dead`
/// appearing on them (a fighter without the death ability dies without
/// the flow, and the duel ends there all the same).
fn died(event: &TraceEvent, dead: Option<Tag>) -> Option<Entity> {
    match (event.record(), &event.kind) {
        (Some(&CombatRecord::Died { entity, .. }), _) => Some(entity),
        (
            _,
            &TraceKind::TagChanged {
                entity,
                tag,
                present: true,
            },
        ) if dead.is_some_and(|dead| tag.matches(dead)) => Some(entity),
        _ => None,
    }
}

/// The instant of the first death among `events`, looking only past the
/// `scanned` events a call before already looked through (the trace keeps
/// everything and only grows, so each frame reads its own events, not the
/// whole fight).
fn first_death(events: &[TraceEvent], dead: Option<Tag>, scanned: &mut usize) -> Option<SimTime> {
    let new = events.get(*scanned..).unwrap_or_default();
    *scanned = events.len();
    new.iter().find(|e| died(e, dead).is_some()).map(|e| e.time)
}

fn loadout(run: &ScenarioRun, entity: Entity) -> String {
    let catalog = run.gas.catalog();
    let combatant = run
        .world
        .get::<&Combatant>(entity)
        .expect("fighters are combatants");
    let items: Vec<String> = combatant
        .equipment
        .iter()
        .map(|(_, item, q)| {
            let name = &run.runtime.defs().item(item).expect("known item").name;
            if q > 1 {
                format!("{q} x {name}")
            } else {
                name.clone()
            }
        })
        .collect();
    let health = catalog
        .attributes()
        .get("Health")
        .expect("shipped attribute");
    let hp = run
        .world
        .get::<&gaskit::AbilitySystem>(entity)
        .map_or(0.0, |s| s.current(health));
    let weapon = match snapshot(&run.runtime, &run.world, entity, run.gas.now()) {
        Some(stats) => format!(
            "{:?}, {} per attack, reach {} cm",
            stats.damage_type, stats.interval, stats.range_cm
        ),
        None => "unarmed".into(),
    };
    format!(
        "level {} melee / {} ranged / {} defense, {} HP | {} | {}",
        combatant.skills.level(Skill::Melee),
        combatant.skills.level(Skill::Ranged),
        combatant.skills.level(Skill::Defense),
        hp,
        if items.is_empty() {
            "nothing worn".into()
        } else {
            items.join(", ")
        },
        weapon
    )
}

/// What each fighter's attack promises against each other fighter, from
/// the loadouts at the start (the summary picks each one's actual target).
fn expectations(run: &ScenarioRun) -> HashMap<(Entity, Entity), Expectation> {
    let mut out = HashMap::new();
    for (_, attacker) in &run.fighters {
        for (_, target) in &run.fighters {
            if attacker == target {
                continue;
            }
            let now = run.gas.now();
            if let Some(e) = expectation(&run.runtime, &run.world, now, *attacker, *target) {
                out.insert((*attacker, *target), e);
            }
        }
    }
    out
}

fn bar(current: f64, max: f64) -> String {
    let width = 20;
    let filled = if max > 0.0 {
        ((current / max) * width as f64).round() as usize
    } else {
        0
    };
    format!(
        "[{}{}] {current}/{max}",
        "#".repeat(filled.min(width)),
        "-".repeat(width - filled.min(width))
    )
}

fn print_trace(run: &ScenarioRun, events: &[TraceEvent], out: &mut String) {
    let catalog = run.gas.catalog();
    let names = run.fighters.as_slice();
    let health = catalog
        .attributes()
        .get("Health")
        .expect("shipped attribute");
    let max_health = catalog
        .attributes()
        .get("MaxHealth")
        .expect("shipped attribute");
    // Each fighter starts at the schema's MaxHealth, full (Health starts
    // at it); the trace records only what moves from there, and a fighter
    // whose level gives that same maximum records nothing.
    let start = catalog.attributes().def(max_health).base;
    let mut hp: HashMap<Entity, (f64, f64)> = HashMap::new();
    for (_, entity) in &run.fighters {
        hp.insert(*entity, (start, start));
    }
    let mut pending: Option<(String, Entity)> = None;
    let flush = |pending: &mut Option<(String, Entity)>,
                 hp: &HashMap<Entity, (f64, f64)>,
                 out: &mut String| {
        if let Some((line, target)) = pending.take() {
            let (current, max) = hp.get(&target).copied().unwrap_or_default();
            let _ = writeln!(
                out,
                "{line:<52} {} {}",
                names.name_of(target),
                bar(current, max)
            );
        }
    };
    for event in events {
        match &event.kind {
            TraceKind::AttributeChanged {
                entity,
                attribute,
                new,
                ..
            } => {
                let slot = hp.entry(*entity).or_default();
                if *attribute == health {
                    slot.0 = *new;
                } else if *attribute == max_health {
                    slot.1 = *new;
                }
                if *attribute == health && pending.as_ref().is_some_and(|(_, t)| t == entity) {
                    flush(&mut pending, &hp, out);
                }
            }
            TraceKind::AbilityFailed { .. } => {
                flush(&mut pending, &hp, out);
                let _ = writeln!(out, "{}", gaskit::render_line(names, catalog, event));
            }
            _ => match event.record::<CombatRecord>() {
                Some(CombatRecord::Attack { target, .. }) => {
                    flush(&mut pending, &hp, out);
                    pending = Some((gaskit::render_line(names, catalog, event), *target));
                }
                Some(
                    CombatRecord::Engaged { .. }
                    | CombatRecord::Chase { .. }
                    | CombatRecord::WeaveQueued { .. }
                    | CombatRecord::AttackFailed { .. }
                    | CombatRecord::Died { .. }
                    | CombatRecord::Respawned { .. }
                    | CombatRecord::LevelUp { .. },
                ) => {
                    flush(&mut pending, &hp, out);
                    let _ = writeln!(out, "{}", gaskit::render_line(names, catalog, event));
                }
                _ => {}
            },
        }
    }
    flush(&mut pending, &hp, out);
}

/// One fighter's line of the summary.
#[derive(Debug)]
struct SummaryRow {
    name: String,
    /// Whom it attacked (its first attack's target).
    target: Option<Entity>,
    attacks: usize,
    hits: usize,
    /// Failed accuracy rolls (a hit the target refused is neither).
    misses: usize,
    damage: u32,
    dps: f64,
    /// What its attack promised against that target at the start.
    expected: Option<Expectation>,
    died: Option<SimTime>,
}

fn summary_rows(
    run: &ScenarioRun,
    events: &[TraceEvent],
    expected: &HashMap<(Entity, Entity), Expectation>,
    fight_end: SimTime,
) -> Vec<SummaryRow> {
    let names = run.fighters.as_slice();
    let dead = dead_tag(run);
    let death_of = |entity: Entity| {
        events
            .iter()
            .find(|e| died(e, dead) == Some(entity))
            .map(|e| e.time)
    };
    run.fighters
        .iter()
        .map(|&(_, entity)| {
            let attacks: Vec<(Entity, AttackOutcome)> = events
                .iter()
                .filter_map(|e| match e.record() {
                    Some(&CombatRecord::Attack {
                        attacker,
                        target,
                        outcome,
                        ..
                    }) if attacker == entity => Some((target, outcome)),
                    _ => None,
                })
                .collect();
            let target = attacks.first().map(|(t, _)| *t);
            let damage: u32 = attacks.iter().map(|(_, o)| o.dealt()).sum();
            let seconds = fight_end.as_secs_f64();
            SummaryRow {
                name: names.name_of(entity).to_owned(),
                target,
                attacks: attacks.len(),
                hits: attacks
                    .iter()
                    .filter(|(_, o)| matches!(o, AttackOutcome::Hit(_)))
                    .count(),
                misses: attacks
                    .iter()
                    .filter(|(_, o)| matches!(o, AttackOutcome::Miss))
                    .count(),
                damage,
                dps: if seconds > 0.0 {
                    f64::from(damage) / seconds
                } else {
                    0.0
                },
                expected: target.and_then(|t| expected.get(&(entity, t)).copied()),
                died: death_of(entity),
            }
        })
        .collect()
}

fn fight_end(events: &[TraceEvent], dead: Option<Tag>, end: SimTime) -> SimTime {
    events
        .iter()
        .find(|e| died(e, dead).is_some())
        .map_or(end, |e| e.time)
}

fn print_summary(
    run: &ScenarioRun,
    events: &[TraceEvent],
    expected: &HashMap<(Entity, Entity), Expectation>,
    end: SimTime,
    out: &mut String,
) {
    let names = run.fighters.as_slice();
    let fight_end = fight_end(events, dead_tag(run), end);
    let _ = writeln!(out, "\nsummary (fight lasted {fight_end} s)");
    let _ = writeln!(
        out,
        "  {:<8} {:<8} {:>6} {:>5} {:>6} {:>7} {:>6}  {:>6} {:>4} {:>8} {:>9}",
        "",
        "target",
        "swings",
        "hits",
        "misses",
        "damage",
        "DPS",
        "hit %",
        "max",
        "expected",
        "died at"
    );
    for row in summary_rows(run, events, expected, fight_end) {
        let short = |name: &str| name.chars().take(8).collect::<String>();
        let target = row
            .target
            .map_or_else(|| "-".to_owned(), |t| short(&names.name_of(t)));
        let (chance, max, dps) = match row.expected {
            Some(e) => (
                format!("{:.1}", e.rolls.hit_chance * 100.0),
                e.rolls.max_hit.to_string(),
                format!("{:.2}", e.dps()),
            ),
            None => ("-".into(), "-".into(), "-".into()),
        };
        let died = row.died.map_or_else(|| "-".to_owned(), |t| t.to_string());
        let _ = writeln!(
            out,
            "  {:<8} {:<8} {:>6} {:>5} {:>6} {:>7} {:>6.2}  {:>6} {:>4} {:>8} {:>9}",
            short(&row.name),
            target,
            row.attacks,
            row.hits,
            row.misses,
            row.damage,
            row.dps,
            chance,
            max,
            dps,
            died
        );
    }
    let _ = writeln!(
        out,
        "  (hit %, max and expected DPS: each fighter's attack against its own target, from the start)"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three fighters: alice hits an armoured dummy, bob hits alice.
    const THREE: &str = r#"(
        seed: 3,
        duration: 30.0,
        combatants: [
            (name: "alice", level: 40, equipment: [("Rune Scimitar", 1)]),
            (name: "bob", level: 40, position: (200, 0), equipment: [("Rune Scimitar", 1)]),
            (name: "dummy", level: 40, position: (-200, 0),
             equipment: [("Bronze Platebody", 1), ("Bronze Full Helm", 1)]),
        ],
        timeline: [
            (at: 0.0, do: Engage("alice", "dummy")),
            (at: 0.0, do: Engage("bob", "alice")),
        ],
    )"#;

    /// The report names a target despawned during the fight as the trace
    /// does, by its fighter's name (it read `#1`).
    #[test]
    fn the_report_names_a_despawned_target() {
        let catalog = Arc::new(gaskit::combat::default_catalog());
        let text = THREE.replace(
            "(at: 0.0, do: Engage(\"bob\", \"alice\")),",
            "(at: 2.0, do: Despawn(\"dummy\")),",
        );
        let scenario = Scenario::parse(&text, "three.ron", &catalog).unwrap();
        let mut run = ScenarioRun::new(catalog, scenario).unwrap();
        let end = SimTime::from_secs_f64(5.0).unwrap();
        run.advance_to(end);
        let events = run.gas.trace().events().to_vec();
        let lines = timeline::read(&run, &events, end);
        assert_eq!(lines[0].target.as_deref(), Some("dummy"));
    }

    #[test]
    fn each_fighter_is_measured_against_its_own_target() {
        let catalog = Arc::new(gaskit::combat::default_catalog());
        let scenario = Scenario::parse(THREE, "three.ron", &catalog).unwrap();
        let mut run = ScenarioRun::new(catalog, scenario).unwrap();
        let expected = expectations(&run);
        let end = SimTime::from_secs_f64(30.0).unwrap();
        run.advance_to(end);
        let events = run.gas.trace().events().to_vec();
        let rows = summary_rows(
            &run,
            &events,
            &expected,
            fight_end(&events, dead_tag(&run), end),
        );
        let who = |name: &str| run.fighter(name).unwrap();
        let (alice, bob, dummy) = (who("alice"), who("bob"), who("dummy"));
        assert_eq!(rows[0].target, Some(dummy));
        assert_eq!(rows[1].target, Some(alice));
        assert_eq!(rows[2].target, None, "the dummy attacks nobody");
        // Alice's expectation is against the armoured dummy, not bob.
        let vs_dummy = expectation_at_start(&expected, alice, dummy);
        let vs_bob = expectation_at_start(&expected, alice, bob);
        assert_eq!(rows[0].expected, Some(vs_dummy));
        assert!(vs_dummy.rolls.hit_chance < vs_bob.rolls.hit_chance);
        assert!(vs_dummy.dps() < vs_bob.dps());
        assert_eq!(
            rows[1].expected,
            Some(expectation_at_start(&expected, bob, alice))
        );
        assert_eq!(rows[2].expected, None);
    }

    /// The duel `options` ask for, the picture it drew (when asked) and
    /// the finished run.
    fn duel(options: Options) -> (String, Option<String>, ScenarioRun) {
        let mut out = String::new();
        let run = run(&options, &mut out).unwrap_or_else(|e| panic!("{e}"));
        let picture = options
            .report
            .as_ref()
            .map(|path| std::fs::read_to_string(path).unwrap());
        (out, picture, run)
    }

    fn report_path(name: &str) -> String {
        let dir = std::env::temp_dir().join(format!("gaskit-duel-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name).to_string_lossy().into_owned()
    }

    fn skirmish() -> String {
        format!("{}/docs/skirmish.ron", env!("CARGO_MANIFEST_DIR"))
    }

    /// The picture against the trace it was drawn from: valid XML, one
    /// health line per fighter, one circle per attack record.
    fn check_picture(svg: &str, run: &ScenarioRun) {
        let document = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("not XML: {e}"));
        let count = |tag: &str| {
            document
                .descendants()
                .filter(|n| n.tag_name().name() == tag)
                .count()
        };
        let attacks = run
            .gas
            .trace()
            .events()
            .iter()
            .filter(|e| matches!(e.record(), Some(CombatRecord::Attack { .. })))
            .count();
        assert!(attacks > 20, "a fight worth drawing: {attacks} attacks");
        // Axes and ticks are polylines too; a health series has its colour.
        let health = report::svg_colour(report::HEALTH);
        let health_lines = document
            .descendants()
            .filter(|n| n.tag_name().name() == "polyline")
            .filter(|n| n.attribute("stroke") == Some(health.as_str()))
            .count();
        assert_eq!(
            health_lines,
            run.fighters.len(),
            "one health series per fighter"
        );
        assert_eq!(count("circle"), attacks, "one marker per attack");
        for (name, _) in &run.fighters {
            assert!(svg.contains(&format!("{name} attacking")), "{name}'s panel");
        }
    }

    /// The duel stops at the first death's own instant, so its trace,
    /// summary and report read the same at any frame step (the header
    /// names the step, and is all that differs).
    #[test]
    fn the_duel_reads_the_same_at_any_frame_step() {
        let at_step = |step: f64| {
            let trace = report_path(&format!("step-{step}.jsonl"));
            let options = Options {
                step: Some(step),
                trace_jsonl: Some(trace.clone()),
                ..Options::default()
            };
            let (out, _, _) = duel(options);
            let body: Vec<String> = out
                .lines()
                .filter(|l| !l.starts_with("gaskit duel:") && !l.contains(&trace))
                .map(str::to_owned)
                .collect();
            (body, std::fs::read_to_string(&trace).unwrap())
        };
        let (fine, fine_jsonl) = at_step(0.05);
        assert!(fine.iter().any(|l| l.contains(" died")), "someone dies");
        for step in [0.7, 5.0, 300.0] {
            let (coarse, coarse_jsonl) = at_step(step);
            assert_eq!(coarse, fine, "step {step}");
            assert_eq!(coarse_jsonl, fine_jsonl, "step {step}");
        }
    }

    /// A fighter whose level gives the schema's own MaxHealth (Hitpoints
    /// 10: 40) records no change of it, and its bar still reads out of 40.
    #[test]
    fn a_fighter_at_the_schemas_maximum_health_has_a_full_bar() {
        let path = report_path("level10.ron");
        std::fs::write(
            &path,
            r#"(seed: 3, duration: 20.0, combatants: [
                (name: "alice", level: 40, equipment: [("Rune Scimitar", 1)]),
                (name: "bob", level: 10, position: (100, 0)),
            ], timeline: [(at: 0.0, do: Engage("alice", "bob"))])"#,
        )
        .unwrap();
        let options = Options {
            scenario: Some(path),
            ..Options::default()
        };
        let (out, _, _) = duel(options);
        let bob_bars: Vec<&str> = out.lines().filter(|l| l.contains("bob [")).collect();
        assert!(!bob_bars.is_empty(), "{out}");
        assert!(bob_bars.iter().all(|l| l.ends_with("/40")), "{bob_bars:#?}");
    }

    #[test]
    fn the_report_of_the_default_duel_draws_every_fighter_and_attack() {
        let options = Options {
            report: Some(report_path("duel.svg")),
            quiet: true,
            ..Options::default()
        };
        let (_, picture, run) = duel(options);
        check_picture(&picture.unwrap(), &run);
    }

    #[test]
    fn the_report_of_six_fighters_as_html_holds_the_svg_inline() {
        let options = Options {
            scenario: Some(skirmish()),
            report: Some(report_path("skirmish.html")),
            quiet: true,
            ..Options::default()
        };
        let (_, picture, run) = duel(options);
        assert_eq!(run.fighters.len(), 6);
        let page = picture.unwrap();
        assert!(page.starts_with("<!DOCTYPE html>") && !page.contains("<script"));
        let svg = &page[page.find("<svg").unwrap()..page.rfind("</svg>").unwrap() + "</svg>".len()];
        check_picture(svg, &run);
        // The stun, the bank window and the weaves are on the picture's data.
        let lines = timeline::read(&run, run.gas.trace().events(), run.gas.now());
        let cleric = lines.iter().find(|l| l.name == "cleric").unwrap();
        assert_eq!(cleric.stuns, [(15.0, 18.0)]);
        let rogue = lines.iter().find(|l| l.name == "rogue").unwrap();
        assert_eq!(rogue.modals, [(40.0, 44.0)]);
        let mage = lines.iter().find(|l| l.name == "mage").unwrap();
        let weaves = mage
            .attacks
            .iter()
            .filter(|a| a.kind == timeline::AttackKind::Weave)
            .count();
        assert_eq!(weaves, 3);
    }

    #[test]
    fn a_death_and_its_respawn_are_on_the_report() {
        let path = format!(
            "{}/tests/scenarios/death_item_retention_respawn.ron",
            env!("CARGO_MANIFEST_DIR")
        );
        let options = Options {
            scenario: Some(path),
            report: Some(report_path("death.svg")),
            quiet: true,
            ..Options::default()
        };
        let (_, picture, run) = duel(options);
        let lines = timeline::read(&run, run.gas.trace().events(), run.gas.now());
        let victim = lines.iter().find(|l| l.name == "victim").unwrap();
        // Killed, and back at full health, at the one instant.
        assert_eq!(victim.deaths.len(), 1);
        assert_eq!(victim.respawns, victim.deaths);
        let (_, last) = *victim.health.last().unwrap();
        let max_health = run.gas.catalog().attributes().get("MaxHealth").unwrap();
        let entity = run.fighter("victim").unwrap();
        let full = run
            .world
            .get::<&gaskit::AbilitySystem>(entity)
            .unwrap()
            .current(max_health);
        assert_eq!(last, full, "respawned at full health");
        assert!(victim.health.iter().any(|&(_, hp)| hp == 0.0));
        let svg = picture.unwrap();
        for colour in [report::DEATH, report::RESPAWN].map(report::svg_colour) {
            assert!(svg.contains(&colour), "a {colour} mark");
        }
    }

    /// A fighter without the death ability still dies (`Status.Dead` at
    /// zero Health) and the duel stops there, as at any death: the summary
    /// says when, and the fight's length is the death's instant, not the
    /// scenario's whole 32 s (it ran on, and read "died at -").
    #[test]
    fn a_death_without_the_death_flow_ends_the_duel() {
        let path = format!(
            "{}/tests/scenarios/death_without_the_death_ability.ron",
            env!("CARGO_MANIFEST_DIR")
        );
        let options = Options {
            scenario: Some(path),
            quiet: true,
            ..Options::default()
        };
        let (out, _, run) = duel(options);
        let ghoul = run.fighter("ghoul").unwrap();
        let dead = dead_tag(&run).unwrap();
        let died_at = run
            .gas
            .trace()
            .events()
            .iter()
            .find(|e| {
                e.kind
                    == TraceKind::TagChanged {
                        entity: ghoul,
                        tag: dead,
                        present: true,
                    }
            })
            .map(|e| e.time)
            .expect("the ghoul died");
        assert!(died_at < SimTime::from_secs(30), "{died_at}");
        assert!(
            out.contains(&format!("summary (fight lasted {died_at} s)")),
            "{out}"
        );
        assert_eq!(run.warnings.len(), 1);
        assert!(
            run.warnings[0].starts_with("fighter `ghoul`: ")
                && run.warnings[0].contains("grant GA_Death"),
            "{:?}",
            run.warnings
        );
        let ghoul_row = out
            .lines()
            .find(|l| l.trim_start().starts_with("ghoul"))
            .unwrap();
        assert!(ghoul_row.ends_with(&died_at.to_string()), "{ghoul_row}");
    }

    /// The README's excerpts of the default duel and of `--inspect
    /// alice@10` are what the duel prints: every line of each (`...`
    /// marks lines cut) appears in its output, in order.
    #[test]
    fn the_readme_excerpts_are_what_the_duel_prints() {
        let readme = std::fs::read_to_string("README.md").unwrap();
        let block_after = |marker: &str| -> Vec<String> {
            let from = readme.find(marker).unwrap_or_else(|| panic!("{marker}"));
            let start = from + readme[from..].find("```text\n").unwrap() + "```text\n".len();
            let end = start + readme[start..].find("```").unwrap();
            readme[start..end]
                .lines()
                .filter(|line| line.trim() != "...")
                .map(str::to_owned)
                .collect()
        };
        let in_order = |excerpt: &[String], out: &str| {
            let mut lines = out.lines();
            for wanted in excerpt {
                assert!(
                    lines.any(|line| line == wanted),
                    "README line not printed (or out of order): {wanted:?}\n{out}"
                );
            }
        };
        let (plain, _, _) = duel(Options::default());
        let fight = block_after("The duel pits a swordsman");
        assert!(fight.len() > 20, "{fight:?}");
        in_order(&fight, &plain);
        let (looked, _, _) = duel(Options {
            inspect: vec![("alice".into(), SimTime::from_secs(10))],
            quiet: true,
            ..Options::default()
        });
        let inspected = block_after("cargo run --release --example duel -- --inspect alice@10");
        assert!(inspected.len() > 20, "{inspected:?}");
        in_order(&inspected, &looked);
    }

    #[test]
    fn inspecting_and_drawing_change_nothing_in_the_fight() {
        let plain = duel(Options {
            quiet: true,
            ..Options::default()
        });
        let looked = duel(Options {
            inspect: vec![
                ("alice".into(), SimTime::from_secs_f64(10.0).unwrap()),
                // Between two frames, and past the end of the fight.
                ("bob".into(), SimTime::from_secs_f64(3.021).unwrap()),
                ("bob".into(), SimTime::from_secs(999)),
            ],
            report: Some(report_path("same.svg")),
            quiet: true,
            ..Options::default()
        });
        let (_, _, plain) = plain;
        let (out, _, looked) = looked;
        assert_eq!(looked.jsonl_trace(), plain.jsonl_trace());
        let checksum = |run: &ScenarioRun| {
            gaskit::snapshot::checksum::<gaskit::combat::CombatComponents>(&run.world, &run.gas)
        };
        assert_eq!(checksum(&looked), checksum(&plain));
        assert!(
            out.contains("alice at 10.000") && out.contains("bob at 3.021"),
            "{out}"
        );
        assert!(out.contains("bob at 999.000: not reached"), "{out}");
    }

    #[test]
    fn inspecting_a_despawned_fighter_says_so_and_the_duel_goes_on() {
        let path = report_path("despawn.ron");
        std::fs::write(
            &path,
            r#"(seed: 2, duration: 6.0, combatants: [
                (name: "alice", level: 40, equipment: [("Rune Scimitar", 1)]),
                (name: "bob", level: 40, position: (100, 0)),
            ], timeline: [
                (at: 0.0, do: Engage("alice", "bob")),
                (at: 2.0, do: Despawn("bob")),
            ])"#,
        )
        .unwrap();
        let (out, _, run) = duel(Options {
            scenario: Some(path),
            inspect: vec![
                ("bob".into(), SimTime::from_secs(1)),
                ("bob".into(), SimTime::from_secs(3)),
            ],
            quiet: true,
            ..Options::default()
        });
        assert!(out.contains("bob at 1.000\n"), "{out}");
        assert!(
            out.contains("bob at 3.000: cannot inspect: entity"),
            "{out}"
        );
        assert_eq!(
            run.gas.now(),
            SimTime::from_secs(6),
            "the duel ran to its end"
        );
    }

    #[test]
    fn bad_inspect_and_report_flags_are_clear_errors() {
        let args = |list: &[&str]| parse_args(list.iter().map(|s| s.to_string()));
        for bad in ["alice", "alice@", "@3", "alice@-1", "alice@soon"] {
            let error = args(&["--inspect", bad]).err().unwrap();
            assert!(error.contains("NAME@SECONDS"), "{error}");
        }
        assert!(args(&["--report", "fight.png"])
            .err()
            .unwrap()
            .contains(".svg or .html"));
        let mut out = String::new();
        let options = Options {
            inspect: vec![("carol".into(), SimTime::ZERO)],
            ..Options::default()
        };
        let error = run(&options, &mut out).err().unwrap();
        assert!(
            error.contains("no fighter named `carol` (fighters: alice, bob)"),
            "{error}"
        );
    }

    fn expectation_at_start(
        expected: &HashMap<(Entity, Entity), Expectation>,
        attacker: Entity,
        target: Entity,
    ) -> Expectation {
        expected[&(attacker, target)]
    }
}
