//! [`GameRecord`]: a ready-made trace record for game code that needs no
//! type of its own: a tag, the entities, a magnitude and a payload tag.

use hecs::Entity;

use super::event::TraceCategory;
use super::jsonl::JsonFields;
use super::record::{RenderCx, TraceRecord};
use crate::tags::Tag;

/// A game event in the trace: quest steps, achievements, AI decisions.
/// Recorded under [`TraceCategory::GAME`].
///
/// Text: `  3.000  hero  Quest.Step.Done -> shrine 2 [Quest.Kind.Main]`;
/// JSON: `"kind":"game"` with `tag`, `magnitude` (number or null) and
/// `payload` (tag or null).
///
/// ```
/// use gaskit::prelude::*;
/// use gaskit::trace::GameRecord;
///
/// let mut builder = CatalogBuilder::new();
/// builder.tags().add_source("game.tags", "Quest.Step.Done\n");
/// let mut gas = Gas::new(builder.build().unwrap());
/// let mut world = hecs::World::new();
/// let hero = world.spawn((Name("hero".into()),));
/// let done = gas.catalog().tags().get("Quest.Step.Done").unwrap();
/// gas.record_game(GameRecord::new(done, hero).magnitude(2.0));
/// let text = gaskit::render_text(&world, gas.catalog(), gas.trace().events());
/// assert_eq!(text, "   0.000  hero  Quest.Step.Done 2\n");
/// ```
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// What happened.
    pub tag: Tag,
    /// Who it happened to.
    pub subject: Entity,
    /// The other entity involved, if any.
    pub other: Option<Entity>,
    /// A number that goes with it.
    pub magnitude: Option<f64>,
    /// A tag that goes with it.
    pub payload: Option<Tag>,
}

impl GameRecord {
    /// `tag` happened to `subject`.
    pub fn new(tag: Tag, subject: Entity) -> Self {
        Self {
            tag,
            subject,
            other: None,
            magnitude: None,
            payload: None,
        }
    }

    /// Names the other entity involved.
    pub fn other(mut self, other: Entity) -> Self {
        self.other = Some(other);
        self
    }

    /// Attaches a number.
    pub fn magnitude(mut self, magnitude: f64) -> Self {
        self.magnitude = Some(magnitude);
        self
    }

    /// Attaches a tag.
    pub fn payload(mut self, payload: Tag) -> Self {
        self.payload = Some(payload);
        self
    }
}

impl TraceRecord for GameRecord {
    fn kind(&self) -> &'static str {
        "game"
    }

    fn category(&self) -> TraceCategory {
        TraceCategory::GAME
    }

    fn parties(&self) -> (Entity, Option<Entity>) {
        (self.subject, self.other)
    }

    fn describe(&self, cx: &RenderCx<'_>) -> String {
        let mut text = cx.tag(self.tag).to_owned();
        if let Some(other) = self.other {
            text.push_str(" -> ");
            text.push_str(&cx.name(other));
        }
        if let Some(magnitude) = self.magnitude {
            text.push_str(&format!(" {magnitude}"));
        }
        if let Some(payload) = self.payload {
            text.push_str(&format!(" [{}]", cx.tag(payload)));
        }
        text
    }

    fn json(&self, cx: &RenderCx<'_>, fields: &mut JsonFields) {
        fields.str("tag", cx.tag(self.tag));
        fields.opt_num("magnitude", self.magnitude);
        fields.opt_str("payload", self.payload.map(|p| cx.tag(p)));
    }
}
