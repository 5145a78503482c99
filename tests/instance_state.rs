//! Per-instance ability state on content that is not combat: a bard's
//! performance counts its verses in the instance's own state, which
//! snapshots, checksums and rollbacks carry.

use std::sync::Arc;

use gaskit::prelude::*;
use gaskit::snapshot::{self, Snapshot};
use hecs::{Entity, World};
use serde::{Deserialize, Serialize};

const TAGS: &str = "
Ability.Trigger.Perform
Ability.Event.Verse
Ability.Song
Stage.Verses
";

const CONTENT: &str = r#"(
    attributes: [(name: "Applause")],
    effects: [
        (name: "GE_Encore", modifiers: [(attribute: "Applause", op: Flat, magnitude: Constant(10))]),
    ],
    abilities: [
        (name: "GA_Perform", trigger: "Ability.Trigger.Perform", ability_tags: ["Ability.Song"],
         behaviour: Registered("Perform")),
    ],
)"#;

/// How far a performance has got.
#[derive(Copy, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Performance {
    verses: u32,
}

/// Another behaviour's state, to read a mismatch with.
#[derive(Copy, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Mood {
    cheer: f64,
    name: u8,
}

/// Sings a verse per `Ability.Event.Verse`; after three, an encore. Its
/// teardown records how many verses were sung.
struct Perform {
    verse: Tag,
    encore: EffectId,
    verses: Tag,
}

impl AbilityBehaviour for Perform {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        cx.wait_event(self.verse);
    }

    fn wake(&self, cx: &mut AbilityCx<'_>, _reason: WakeReason) {
        let mut state: Performance = cx.state();
        state.verses += 1;
        cx.set_state(&state);
        if state.verses == 3 {
            let owner = cx.owner;
            cx.apply_effect(owner, EffectSpec::new(self.encore))
                .unwrap();
            cx.end();
        } else {
            cx.wait_event(self.verse);
        }
    }

    fn end(&self, cx: &mut AbilityCx<'_>, _reason: EndReason) {
        let sung: Performance = cx.state();
        let owner = cx.owner;
        cx.gas
            .record_game(GameRecord::new(self.verses, owner).magnitude(f64::from(sung.verses)));
    }
}

fn catalog() -> Arc<Catalog> {
    let mut builder = CatalogBuilder::new();
    builder.tags().add_source("stage.tags", TAGS);
    builder.add_source("stage.ron", CONTENT);
    Arc::new(builder.build().unwrap())
}

fn context(catalog: &Arc<Catalog>) -> Gas {
    let mut gas = Gas::new(catalog.clone());
    let tag = |name: &str| catalog.tags().get(name).unwrap();
    let perform = Perform {
        verse: tag("Ability.Event.Verse"),
        encore: catalog.effects().get("GE_Encore").unwrap(),
        verses: tag("Stage.Verses"),
    };
    gas.register_behaviour("Perform", perform).unwrap();
    gas.trace_mut().set_filter(TraceFilter::ALL);
    gas
}

struct Stage {
    world: World,
    gas: Gas,
    bard: Entity,
}

impl Stage {
    fn new() -> Self {
        let catalog = catalog();
        let mut gas = context(&catalog);
        let mut world = World::new();
        let bard = world.spawn((Name("bard".into()), gas.new_ability_system()));
        let perform = catalog.abilities().get("GA_Perform").unwrap();
        gas.grant_ability(&mut world, bard, perform, 1).unwrap();
        Stage { world, gas, bard }
    }

    fn send(&mut self, tag: &str) {
        let tag = self.gas.catalog().tags().get(tag).unwrap();
        self.gas
            .handle_event(&mut self.world, self.bard, GameplayEvent::new(tag));
    }

    fn state<T: InstanceState>(&self) -> Option<T> {
        let perform = self.gas.catalog().abilities().get("GA_Perform").unwrap();
        let system = self.world.get::<&AbilitySystem>(self.bard).unwrap();
        system.instance_state(system.active_instance(perform)?)
    }

    fn records(&self) -> Vec<f64> {
        self.gas
            .trace()
            .events()
            .iter()
            .filter_map(|e| e.kind.record::<GameRecord>()?.magnitude)
            .collect()
    }
}

#[test]
fn state_lives_with_its_instance_and_the_teardown_reads_it() {
    let mut stage = Stage::new();
    stage.send("Ability.Trigger.Perform");
    assert_eq!(stage.state::<Performance>(), None, "nothing written yet");
    stage.send("Ability.Event.Verse");
    stage.send("Ability.Event.Verse");
    assert_eq!(stage.state(), Some(Performance { verses: 2 }));
    let bard = stage.bard;
    let song = stage.gas.catalog().tags().get("Ability.Song").unwrap();
    let songs: TagSet = [song].into_iter().collect();
    stage
        .gas
        .cancel_abilities(&mut stage.world, bard, &songs, &TagSet::new());
    assert_eq!(stage.records(), [2.0], "the teardown read two verses");

    // A new instance starts from the default.
    stage.send("Ability.Trigger.Perform");
    for _ in 0..3 {
        stage.send("Ability.Event.Verse");
    }
    assert_eq!(stage.records(), [2.0, 3.0]);
    let applause = stage.gas.catalog().attributes().get("Applause").unwrap();
    let system = stage.world.get::<&AbilitySystem>(bard).unwrap();
    assert_eq!(system.current(applause), 10.0);
}

#[test]
fn state_written_as_another_type_reads_as_that_types_default() {
    let mut stage = Stage::new();
    stage.send("Ability.Trigger.Perform");
    stage.send("Ability.Event.Verse");
    assert_eq!(stage.state::<Mood>(), None);
    assert_eq!(stage.state(), Some(Performance { verses: 1 }));
}

#[test]
fn snapshots_checksums_and_rollbacks_carry_the_state() {
    let mut stage = Stage::new();
    stage.send("Ability.Trigger.Perform");
    stage.send("Ability.Event.Verse");
    let one_verse = Snapshot::<()>::save(&stage.world, &stage.gas);
    stage.send("Ability.Event.Verse");
    // Same instant, same everything but the verse count.
    let two_verses = snapshot::checksum::<()>(&stage.world, &stage.gas);
    assert_ne!(one_verse.checksum(), two_verses);
    stage.send("Ability.Event.Verse");
    let finished = snapshot::checksum::<()>(&stage.world, &stage.gas);

    // Into a fresh world and context, through the serialized form.
    let text = one_verse.to_ron().unwrap();
    let mut world = World::new();
    let mut gas = context(&catalog());
    Snapshot::<()>::from_ron(&text)
        .unwrap()
        .restore(&mut world, &mut gas)
        .unwrap();
    let mut again = Stage {
        world,
        gas,
        bard: stage.bard,
    };
    assert_eq!(again.state(), Some(Performance { verses: 1 }));
    again.send("Ability.Event.Verse");
    assert_eq!(
        snapshot::checksum::<()>(&again.world, &again.gas),
        two_verses
    );
    again.send("Ability.Event.Verse");
    assert_eq!(snapshot::checksum::<()>(&again.world, &again.gas), finished);
    assert_eq!(again.records(), [3.0], "the encore after the third verse");
}
