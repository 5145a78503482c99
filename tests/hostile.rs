//! Hostile and broken input: random and spoofed gameplay events, damaged
//! content files, damaged saves and snapshots. Nothing panics; what is
//! refused is refused with a reason and changes nothing.
//!
//! Each property runs a bounded number of cases here. Set `GASKIT_SOAK=N`
//! to multiply every case count by N for a long soak, e.g.
//! `GASKIT_SOAK=200 cargo test --release --test hostile -- --nocapture`
//! (each test prints how many cases it ran).

use std::sync::Arc;

use gaskit::combat::{self, native, CombatComponents, CombatDefs, Profile};
use gaskit::scenario::{Scenario, ScenarioRun};
use gaskit::snapshot::{self, Snapshot};
use gaskit::{
    Catalog, CatalogBuilder, ClientId, GameplayEvent, Origin, SimDuration, SimTime, CORE_TAG_FILES,
};
use hecs::Entity;
use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Case count for this run: `base` times `GASKIT_SOAK` (default 1).
fn cases(base: usize) -> usize {
    let soak = std::env::var("GASKIT_SOAK")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1);
    base * soak
}

const ARENA: &str = r#"(
    seed: 11,
    duration: 600.0,
    combatants: [
        (name: "p1", level: 40, owner: 1, speed: 250, equipment: [("Bronze Scimitar", 1)],
         inventory: [("Air Rune", 50), ("Mind Rune", 50), ("Shrimp", 3)]),
        (name: "p2", level: 35, owner: 2, position: (300, 0), speed: 200,
         equipment: [("Oak Shortbow", 1), ("Bronze Arrow", 100)]),
        (name: "npc", level: 20, position: (0, 400), autocast: "Wind Strike",
         inventory: [("Air Rune", 100), ("Mind Rune", 100)]),
        (name: "far", level: 10, position: (90000, 0)),
        (name: "gone", level: 10, position: (100, 100)),
    ],
    timeline: [
        (at: 0.0, do: Engage("p1", "p2")),
        (at: 0.0, do: Engage("p2", "p1")),
        (at: 0.0, do: Engage("npc", "p1")),
        (at: 1.0, do: Despawn("gone")),
    ],
)"#;

fn arena(catalog: &Arc<Catalog>) -> ScenarioRun {
    let scenario = Scenario::parse(ARENA, "arena.ron", catalog).unwrap();
    let mut run = ScenarioRun::new(catalog.clone(), scenario).unwrap();
    run.advance_to(SimTime::from_micros(3_000_000));
    run
}

/// A random event of any shape: any tag, any or no entities (live, stale,
/// fabricated), absurd magnitudes and object ids, any origin.
fn random_event(rng: &mut ChaCha8Rng, catalog: &Catalog, entities: &[Entity]) -> GameplayEvent {
    let tags = catalog.tags();
    let natives = &catalog.section::<CombatDefs>().unwrap().tags;
    let triggers = [
        native::TRIGGER_ENGAGE,
        native::TRIGGER_CAST,
        native::TRIGGER_DISENGAGE,
        native::TRIGGER_SET_STYLE,
        native::TRIGGER_AUTOCAST_SET,
        native::TRIGGER_EAT,
        native::COMBAT_EVENT_DEATH,
    ];
    let tag = if rng.next_u32() % 3 == 0 {
        tags.iter()
            .nth(rng.next_u32() as usize % tags.len())
            .unwrap()
    } else {
        natives[triggers[rng.next_u32() as usize % triggers.len()]]
    };
    let pick_entity = |rng: &mut ChaCha8Rng| match rng.next_u32() % 6 {
        0 => None,
        1 => Entity::from_bits(rng.next_u64() | 1),
        _ => Some(entities[rng.next_u32() as usize % entities.len()]),
    };
    let mut event = GameplayEvent::new(tag);
    event.target = pick_entity(rng);
    event.instigator = pick_entity(rng);
    event.magnitude = match rng.next_u32() % 7 {
        0 => None,
        1 => Some(f64::NAN),
        2 => Some(f64::INFINITY),
        3 => Some(f64::NEG_INFINITY),
        4 => Some(1e308),
        5 => Some(-1e308),
        _ => Some(f64::from(rng.next_u32() % 200) - 100.0),
    };
    event.object = match rng.next_u32() % 4 {
        0 => None,
        1 => Some(rng.next_u32()),
        _ => Some(rng.next_u32() % 40),
    };
    event.payload = (rng.next_u32() % 2 == 0).then(|| {
        tags.iter()
            .nth(rng.next_u32() as usize % tags.len())
            .unwrap()
    });
    event.origin = match rng.next_u32() % 3 {
        0 => Origin::Server,
        _ => Origin::Client(ClientId(rng.next_u32() % 4)),
    };
    event
}

#[test]
fn random_and_spoofed_events_are_refused_without_a_trace_in_the_state() {
    let catalog = Arc::new(gaskit::combat::default_catalog());
    let mut run = arena(&catalog);
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed);
    let gone = run.fighter("gone").unwrap();
    assert!(!run.world.contains(gone), "a stale handle to test with");
    let mut entities: Vec<Entity> = run.fighters.iter().map(|(_, e)| *e).collect();
    entities.push(gone);

    let total = cases(3_000);
    let (mut refused, mut handled) = (0, 0);
    for case in 0..total {
        let to = entities[rng.next_u32() as usize % entities.len()];
        let event = random_event(&mut rng, &catalog, &entities);
        let before = snapshot::checksum::<CombatComponents>(&run.world, &run.gas);
        let outcome = run.gas.handle_event(&mut run.world, to, event);
        if outcome.activated() || outcome.woken > 0 {
            handled += 1;
        } else {
            refused += 1;
            for (_, result) in &outcome.activations {
                let failure = result.expect_err("not activated");
                let reason = catalog.tags().name(failure.tag(catalog.tags()));
                assert!(
                    reason.starts_with("Activation.Fail."),
                    "case {case}: a refusal names its reason, not {reason}"
                );
            }
            assert_eq!(
                snapshot::checksum::<CombatComponents>(&run.world, &run.gas),
                before,
                "case {case}: a refused {event:?} to {to:?} changed the state"
            );
        }
        // Let the fight go on between bursts, so events meet every state
        // (chasing, mid-swing, dead, respawned).
        if case % 25 == 24 {
            let to = run.gas.now() + SimDuration::from_millis(300);
            run.advance_to(to);
            assert_health_in_bounds(&run);
        }
    }
    println!("{total} random events: {refused} refused unchanged, {handled} handled");
    assert!(
        refused > total / 2 && handled > 20,
        "{refused} refused, {handled} handled"
    );
}

#[test]
fn a_client_cannot_act_for_an_entity_it_does_not_own_or_run_server_abilities() {
    let catalog = Arc::new(gaskit::combat::default_catalog());
    let mut run = arena(&catalog);
    let tags = &catalog.section::<CombatDefs>().unwrap().tags;
    let (p1, p2, npc) = (
        run.fighter("p1").unwrap(),
        run.fighter("p2").unwrap(),
        run.fighter("npc").unwrap(),
    );
    let cases: [(Entity, GameplayEvent); 4] = [
        // Client 2 tries to stop client 1's fight.
        (p1, GameplayEvent::new(tags[native::TRIGGER_DISENGAGE])),
        // Client 2 tries to make the server's npc attack.
        (
            npc,
            GameplayEvent::new(tags[native::TRIGGER_ENGAGE]).target(p2),
        ),
        // Client 2 sends its own fighter a death (server-only ability).
        (
            p2,
            GameplayEvent::new(tags[native::COMBAT_EVENT_DEATH]).target(p2),
        ),
        // ... and a death for someone else's.
        (
            p1,
            GameplayEvent::new(tags[native::COMBAT_EVENT_DEATH]).target(p1),
        ),
    ];
    for (to, mut event) in cases {
        event.origin = Origin::Client(ClientId(2));
        let before = snapshot::checksum::<CombatComponents>(&run.world, &run.gas);
        let outcome = run.gas.handle_event(&mut run.world, to, event);
        assert!(!outcome.activated(), "{event:?} to {to:?} was obeyed");
        let failure = outcome.first_failure().expect("refused with a reason");
        assert_eq!(failure, gaskit::ActivationFailure::Authority, "{event:?}");
        assert_eq!(
            snapshot::checksum::<CombatComponents>(&run.world, &run.gas),
            before
        );
    }
    // The same client may act for its own fighter.
    let own = GameplayEvent {
        origin: Origin::Client(ClientId(2)),
        ..GameplayEvent::new(tags[native::TRIGGER_DISENGAGE])
    };
    assert!(run.gas.handle_event(&mut run.world, p2, own).activated());
}

/// Every fighter's health within `[0, MaxHealth]`.
fn assert_health_in_bounds(run: &ScenarioRun) {
    let attributes = run.gas.catalog().attributes();
    let (health, max) = (
        attributes.get("Health").unwrap(),
        attributes.get("MaxHealth").unwrap(),
    );
    for (name, entity) in &run.fighters {
        if let Ok(system) = run.world.get::<&gaskit::AbilitySystem>(*entity) {
            let (h, m) = (system.current(health), system.current(max));
            assert!((0.0..=m).contains(&h), "{name}: health {h} of {m}");
        }
    }
}

/// One random edit of `text`: delete, insert or replace a character,
/// duplicate or drop a line, or cut the text short.
fn mutate(text: &str, rng: &mut ChaCha8Rng) -> String {
    const INSERTS: &[&str] = &[
        "(", ")", "[", "]", "{", "}", ",", ":", "\"", ".", "#", "//", "/*", "-", "0", "1e400",
        "NaN", "inf", "Some(", "None", "é", "\u{0}", "\n", " ", "name", "Combat.", "..",
    ];
    let mut chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return String::from("(");
    }
    let at = rng.next_u32() as usize % chars.len();
    match rng.next_u32() % 7 {
        0 => {
            chars.remove(at);
        }
        1 | 2 => {
            let insert = INSERTS[rng.next_u32() as usize % INSERTS.len()];
            for (i, c) in insert.chars().enumerate() {
                chars.insert(at + i, c);
            }
        }
        3 => chars[at] = char::from(b' ' + (rng.next_u32() % 95) as u8),
        4 => chars.truncate(at),
        _ => {
            let lines: Vec<&str> = text.lines().collect();
            let line = rng.next_u32() as usize % lines.len().max(1);
            let mut out: Vec<&str> = lines.clone();
            if rng.next_u32() % 2 == 0 {
                out.insert(line, lines.get(line).copied().unwrap_or(""));
            } else if !out.is_empty() {
                out.remove(line);
            }
            return out.join("\n");
        }
    }
    chars.into_iter().collect()
}

/// Every error of a failed build names a shipped file and a position in
/// it, except a tag gaskit requires that no file declares any more (it has
/// no position: the line that declared it is gone), which names the tag.
fn assert_located(errors: &gaskit::LoadErrors, files: &[&str], case: &str) {
    assert!(errors.has_errors(), "{case}: a failed build has an error");
    for error in errors.errors() {
        if error.message.contains("no loaded file declares it") {
            assert!(error.message.starts_with("tag `"), "{case}: {error}");
            continue;
        }
        assert!(
            files.contains(&error.file.as_str()),
            "{case}: error names an unknown file: {error}"
        );
        assert!(
            error.line >= 1 && error.column >= 1,
            "{case}: unlocated: {error}"
        );
        assert!(
            error
                .to_string()
                .contains(&format!("{}:{}:{}", error.file, error.line, error.column)),
            "{case}: the message shows file:line:column: {error}"
        );
    }
}

#[test]
fn damaged_content_files_are_located_errors_never_panics() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xda7a);
    let files: Vec<(&str, &str)> = CORE_TAG_FILES
        .iter()
        .chain(combat::TAG_FILES)
        .chain(combat::CONTENT_FILES)
        .copied()
        .collect();
    let names: Vec<&str> = files.iter().map(|(n, _)| *n).collect();
    let total = cases(300);
    let (mut failed, mut built) = (0, 0);
    for case in 0..total {
        let (victim, original) = files[case % files.len()];
        let damaged = match case % 5 {
            // Random bytes, often not UTF-8.
            0 => (0..rng.next_u32() % 300)
                .map(|_| rng.next_u32() as u8)
                .collect::<Vec<u8>>(),
            // Cut short at a random byte (maybe inside a character).
            1 => original.as_bytes()[..rng.next_u32() as usize % original.len()].to_vec(),
            // One to four random edits.
            _ => {
                let mut text = original.to_string();
                for _ in 0..=rng.next_u32() % 4 {
                    text = mutate(&text, &mut rng);
                }
                text.into_bytes()
            }
        };
        // The files below are the whole content, some damaged: only the
        // combat section is registered, not its (pristine) tag files.
        let mut builder = CatalogBuilder::new();
        builder.add_section::<CombatDefs>();
        for (name, text) in &files {
            let is_tags = name.ends_with(".tags");
            let bytes = if *name == victim {
                &damaged[..]
            } else {
                text.as_bytes()
            };
            if is_tags {
                builder.tags().add_bytes(name, bytes);
            } else {
                builder.add_bytes(name, bytes);
            }
        }
        match builder.build() {
            Ok(_) => built += 1,
            Err(errors) => {
                failed += 1;
                assert_located(&errors, &names, &format!("case {case} ({victim})"));
            }
        }
    }
    println!("{total} damaged catalogs: {failed} refused with located errors, {built} still valid");
    assert!(failed > total / 2);
}

#[test]
fn damaged_profiles_load_with_fallbacks_and_damaged_snapshots_are_refused() {
    let catalog = Arc::new(gaskit::combat::default_catalog());
    let mut run = arena(&catalog);
    let p1 = run.fighter("p1").unwrap();
    let runtime = run.runtime.clone();
    let profile = combat::save_profile(&runtime, &mut run.world, &mut run.gas, p1).unwrap();
    let profile_text = ron::to_string(&profile).unwrap();
    let snapshot_text = Snapshot::<CombatComponents>::save(&run.world, &run.gas)
        .to_ron()
        .unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(0x5a7e);

    let total = cases(400);
    let (mut loaded, mut repaired, mut refused) = (0, 0, 0);
    for case in 0..total {
        let mut text = profile_text.clone();
        // Case 0 is the undamaged save, which must load clean.
        for _ in 0..(rng.next_u32() % 3 + 1) * u32::from(case > 0) {
            text = mutate(&text, &mut rng);
        }
        let Ok(damaged) = ron::from_str::<Profile>(&text) else {
            refused += 1;
            continue;
        };
        let entity = run.world.spawn((
            run.gas.new_ability_system(),
            combat::new_combatant(runtime.defs(), runtime.defs().default_kind()),
        ));
        combat::prepare(&runtime, &mut run.world, &mut run.gas, entity);
        let report = combat::load_profile(&runtime, &mut run.world, &mut run.gas, entity, &damaged)
            .unwrap_or_else(|e| panic!("case {case}: a fresh fighter loads: {e}"));
        if report.is_clean() {
            loaded += 1;
        } else {
            assert!(case > 0, "the undamaged save loads clean: {report:?}");
            repaired += 1;
        }
        let health = catalog.attributes().get("Health").unwrap();
        let max = catalog.attributes().get("MaxHealth").unwrap();
        let system = run.world.get::<&gaskit::AbilitySystem>(entity).unwrap();
        let (h, m) = (system.current(health), system.current(max));
        assert!(
            h > 0.0 && h <= m,
            "case {case}: loaded health {h} of {m} from {text}"
        );
        drop(system);
        run.gas.despawn(&mut run.world, entity);
    }
    println!("{total} damaged profiles: {loaded} clean, {repaired} repaired, {refused} unreadable");
    assert!(loaded > 0 && repaired > 0 && refused > 0);

    let total = cases(60);
    let mut refused = 0;
    for case in 0..total {
        let text = mutate(&snapshot_text, &mut rng);
        match Snapshot::<CombatComponents>::from_ron(&text) {
            Ok(state) => {
                // Only an edit that changes nothing (whitespace) may pass.
                assert_eq!(state.to_ron().unwrap(), snapshot_text, "case {case}");
            }
            Err(error) => {
                refused += 1;
                assert!(error.to_string().starts_with("damaged snapshot"), "{error}");
            }
        }
    }
    println!("{total} damaged snapshots: {refused} refused");
    assert!(refused > total / 2);
}

/// A snapshot that kept its checksum but names a combat kind, item or
/// spell the catalog does not have (a hand-edited file, or content that
/// changed under the same fingerprint) is refused before anything is
/// restored, not restored into a panic at the next poll.
#[test]
fn a_snapshot_naming_combat_content_the_catalog_lacks_is_refused() {
    #[derive(serde::Deserialize)]
    struct Sealed {
        #[allow(dead_code)]
        checksum: u64,
        snapshot: Snapshot<CombatComponents>,
    }
    let catalog = Arc::new(gaskit::combat::default_catalog());
    let run = arena(&catalog);
    let text = Snapshot::<CombatComponents>::save(&run.world, &run.gas)
        .to_ron()
        .unwrap();
    let defs = catalog.section::<CombatDefs>().unwrap();
    let kind = format!("kind:({})", defs.default_kind().index());
    assert!(text.contains(&kind), "{text}");
    let mut fresh = arena(&catalog);
    let before = snapshot::checksum::<CombatComponents>(&fresh.world, &fresh.gas);
    // Restores `damaged` into `fresh`: refused, with nothing restored.
    let mut refusal = |damaged: String| {
        let sealed: Sealed = ron::from_str(&damaged).unwrap();
        let error = sealed
            .snapshot
            .restore(&mut fresh.world, &mut fresh.gas)
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("snapshot does not fit this context: entity"),
            "{error}"
        );
        assert_eq!(
            snapshot::checksum::<CombatComponents>(&fresh.world, &fresh.gas),
            before,
            "nothing restored"
        );
        error
    };

    let first = text.find(&kind).unwrap();
    let error = refusal(format!(
        "{}kind:(99){}",
        &text[..first],
        &text[first + kind.len()..]
    ));
    assert!(
        error.ends_with("combat kind #99 is not in this catalog"),
        "{error}"
    );

    // Shapes play never makes: a worn stack of none (the next shot would
    // underflow it), one rune in two stacks (counted whole, paid from
    // one), and a book that is no book.
    let worn = text.find("equipment:(slots:[(").unwrap();
    let worn_end = worn + text[worn..].find("]),").unwrap();
    let (item_start, _) = text[worn..worn_end].rmatch_indices(',').next().unwrap();
    let emptied = format!("{},0{}", &text[..worn + item_start], &text[worn_end - 1..]);
    let error = refusal(emptied);
    assert!(error.contains("as play never would"), "{error}");
    let stacks = text.find("inventory:(stacks:[(").unwrap() + "inventory:(stacks:[".len();
    let first_stack = &text[stacks..stacks + text[stacks..].find("),(").unwrap() + 1];
    let error = refusal(format!(
        "{}{first_stack},{}",
        &text[..stacks],
        &text[stacks..]
    ));
    assert!(error.contains("one item in two stacks"), "{error}");
    let book = text.find("current:(id:").unwrap() + "current:".len();
    let book_end = book + text[book..].find(')').unwrap() + 1;
    let stunned = catalog.tags().get("Status.Stunned").unwrap();
    let error = refusal(format!(
        "{}(id:{},end:{}){}",
        &text[..book],
        stunned.index(),
        stunned.index() + 1,
        &text[book_end..]
    ));
    assert!(
        error.contains("spellbook is not one of the catalog's books"),
        "{error}"
    );

    // A body with a negative speed is refused the same way.
    let speed = text.find("speed:").unwrap() + "speed:".len();
    let error = refusal(format!("{}-1{}", &text[..speed], &text[speed..]));
    assert!(
        error.ends_with("a body's position or speed is not a finite, non-negative number"),
        "{error}"
    );
}
