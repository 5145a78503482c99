//! Rollback, proven with a real rollback library: a two-player duel driven
//! through ggrs's `SyncTestSession`, which every frame rolls back
//! `CHECK_DISTANCE` frames, re-simulates them from a restored snapshot and
//! compares the gaskit state checksums of both simulations.

use std::sync::Arc;

use gaskit::combat::{native, CombatComponents};
use gaskit::scenario::{Scenario, ScenarioRun};
use gaskit::snapshot::{self, Snapshot};
use gaskit::{GameplayEvent, SimDuration};
use ggrs::{Config, GgrsError, GgrsRequest, PredictRepeatLast, SessionBuilder, SyncTestSession};

const FRAMES: usize = 900;
const CHECK_DISTANCE: usize = 4;
const FRAME: SimDuration = SimDuration::from_micros(16_667);

/// Buttons a player presses in one frame.
const ENGAGE: u8 = 1;
const CAST: u8 = 2;
const STYLE: u8 = 4;
const DISENGAGE: u8 = 8;
const EAT: u8 = 16;

struct Duel;

impl Config for Duel {
    type Input = u8;
    type InputPredictor = PredictRepeatLast;
    type State = Snapshot<CombatComponents>;
    type Address = u8;
}

const DUEL: &str = r#"(
    seed: 3,
    duration: 3600.0,
    combatants: [
        (name: "alice", level: 30, speed: 250, equipment: [("Bronze Scimitar", 1)],
         inventory: [("Air Rune", 200), ("Mind Rune", 200), ("Shrimp", 5)]),
        (name: "bob", level: 30, position: (600, 0), speed: 200,
         equipment: [("Oak Shortbow", 1), ("Bronze Arrow", 300)],
         inventory: [("Air Rune", 200), ("Mind Rune", 200), ("Shrimp", 5)]),
    ],
)"#;

/// What player `player` presses on `frame`: a fixed pattern with every
/// kind of input, including presses the rules refuse.
fn buttons(frame: usize, player: usize) -> u8 {
    let f = frame + player * 37;
    let mut pressed = 0;
    if f % 300 == 5 {
        pressed |= ENGAGE;
    }
    if f % 131 == 17 {
        pressed |= CAST;
    }
    if f % 173 == 60 {
        pressed |= STYLE;
    }
    if f % 450 == 400 {
        pressed |= DISENGAGE;
    }
    if f % 257 == 100 {
        pressed |= EAT;
    }
    pressed
}

struct Game {
    run: ScenarioRun,
    frames_advanced: usize,
    loads: usize,
    /// A deliberately broken restore for the control test: the RNG keeps
    /// its live position instead of the saved one.
    forget_rng_on_load: bool,
}

impl Game {
    fn new() -> Game {
        let catalog = Arc::new(gaskit::combat::default_catalog());
        let scenario = Scenario::parse(DUEL, "duel.ron", &catalog).unwrap();
        let run = ScenarioRun::new(catalog, scenario).unwrap();
        Game {
            run,
            frames_advanced: 0,
            loads: 0,
            forget_rng_on_load: false,
        }
    }

    fn advance(&mut self, inputs: &[(u8, ggrs::InputStatus)]) {
        let runtime = self.run.runtime.clone();
        let tags = runtime.tags();
        let fighters: Vec<_> = self.run.fighters.iter().map(|(_, e)| *e).collect();
        let shrimp = runtime.defs().item_named("Shrimp").unwrap();
        let strike = runtime.defs().spell_named("Wind Strike").unwrap();
        for (player, &(pressed, _)) in inputs.iter().enumerate() {
            let me = fighters[player];
            let other = fighters[1 - player];
            let mut send = |event: GameplayEvent| self.run.gas.send_event(me, event);
            if pressed & ENGAGE != 0 {
                // An attack click: walk up, then engage.
                send(
                    GameplayEvent::new(tags[native::TRIGGER_QUEUED_INTERACT])
                        .target(other)
                        .payload(tags[native::TRIGGER_ENGAGE]),
                );
            }
            if pressed & CAST != 0 {
                send(
                    GameplayEvent::new(tags[native::TRIGGER_CAST])
                        .target(other)
                        .object(strike.index() as u32),
                );
            }
            if pressed & STYLE != 0 {
                let style = if player == 0 {
                    native::COMBAT_STYLE_DEFENSIVE
                } else {
                    native::COMBAT_STYLE_CONTROLLED
                };
                send(GameplayEvent::new(tags[native::TRIGGER_SET_STYLE]).payload(tags[style]));
            }
            if pressed & DISENGAGE != 0 {
                send(GameplayEvent::new(tags[native::TRIGGER_DISENGAGE]));
            }
            if pressed & EAT != 0 {
                send(GameplayEvent::new(tags[native::TRIGGER_EAT]).object(shrimp.index() as u32));
            }
        }
        let to = self.run.gas.now() + FRAME;
        self.run.advance_to(to);
        self.frames_advanced += 1;
    }

    fn handle(&mut self, requests: Vec<GgrsRequest<Duel>>) {
        for request in requests {
            match request {
                GgrsRequest::SaveGameState { cell, frame } => {
                    let saved = Snapshot::<CombatComponents>::save(&self.run.world, &self.run.gas);
                    let checksum = u128::from(saved.checksum());
                    cell.save(frame, Some(saved), Some(checksum));
                }
                GgrsRequest::LoadGameState { cell, .. } => {
                    let saved = cell.load().expect("ggrs loads a saved frame");
                    let live_rng = self.run.gas.rng().clone();
                    saved
                        .restore(&mut self.run.world, &mut self.run.gas)
                        .unwrap();
                    if self.forget_rng_on_load {
                        *self.run.gas.rng() = live_rng;
                    }
                    self.loads += 1;
                }
                GgrsRequest::AdvanceFrame { inputs } => self.advance(&inputs),
            }
        }
    }
}

fn session() -> SyncTestSession<Duel> {
    SessionBuilder::<Duel>::new()
        .with_num_players(2)
        .unwrap()
        .with_check_distance(CHECK_DISTANCE)
        .with_max_prediction_window(8)
        .start_synctest_session()
        .unwrap()
}

/// Plays the duel through a sync test.
fn play(forget_rng_on_load: bool) -> Result<Game, GgrsError> {
    let mut game = Game::new();
    game.forget_rng_on_load = forget_rng_on_load;
    let mut session = session();
    for frame in 0..FRAMES {
        for player in 0..2 {
            session.add_local_input(player, buttons(frame, player))?;
        }
        let requests = session.advance_frame()?;
        game.handle(requests);
    }
    Ok(game)
}

#[test]
fn a_duel_survives_ggrs_sync_testing() {
    let game = play(false).expect("no checksum mismatch in any frame");
    // Every frame after the first CHECK_DISTANCE was rolled back and played
    // again from a restored snapshot.
    assert!(
        game.loads >= FRAMES - CHECK_DISTANCE - 1,
        "{} loads",
        game.loads
    );
    assert!(game.frames_advanced >= FRAMES * (CHECK_DISTANCE + 1) - 40);
    // The duel did things worth checking: swings and weaved casts, runes
    // and food spent, styles changed, engagements begun and ended.
    let trace = game.run.gas.trace().events();
    let count = |name: &str| trace.iter().filter(|e| e.kind.name() == name).count();
    assert!(count("attack") >= 10, "{} attacks", count("attack"));
    assert!(count("runes_spent") >= 5 && count("ate") >= 5);
    assert!(count("style_changed") >= 5 && count("engaged") >= 4);
    assert!(count("ability_ended") >= 30);
    // The trace, rewound with every rollback, equals a plain run's.
    let mut plain = Game::new();
    for frame in 0..FRAMES {
        let inputs: Vec<_> = (0..2)
            .map(|p| (buttons(frame, p), ggrs::InputStatus::Confirmed))
            .collect();
        plain.advance(&inputs);
    }
    assert_eq!(game.run.text_trace(), plain.run.text_trace());
    assert_eq!(
        snapshot::checksum::<CombatComponents>(&game.run.world, &game.run.gas),
        snapshot::checksum::<CombatComponents>(&plain.run.world, &plain.run.gas)
    );
}

#[test]
fn the_sync_test_catches_a_state_the_snapshot_would_miss() {
    // Control: if a restore forgot the RNG position, re-simulated frames
    // would roll other numbers. The checksum must notice.
    let result = play(true);
    match result {
        Err(GgrsError::MismatchedChecksum { .. }) => {}
        Err(other) => panic!("expected a checksum mismatch, got {other}"),
        Ok(_) => panic!("a tampered restore went unnoticed"),
    }
}
