//! The trace: a structured record of everything that happened, with its
//! simulated time.
//!
//! Every layer appends to the one [`Trace`] held by the context. Tests
//! assert on it; renderers turn it into text or JSON lines. Recording is
//! filtered by [`TraceCategory`], and checking the filter is the only cost a
//! disabled category pays: events are not even built.
//!
//! Events name entities and definitions by id; renderers resolve names
//! (entities through the [`Name`] component or a roster, see
//! [`EntityNames`]), so raw entity ids never appear in output.
//!
//! # Renderers
//!
//! [`render_text`] writes one event per line with the time in seconds to
//! three decimals, the subject's name, and what happened:
//!
//! ```text
//!    2.400  mage  weave Fire Bolt -> dummy  hit 9 Magic
//!    4.800  bob  activate GA_Death -> bob
//! ```
//!
//! [`render_jsonl`] writes one JSON object per line. Every object has:
//!
//! | field | type | meaning |
//! |---|---|---|
//! | `t` | number | simulated time in seconds |
//! | `kind` | string | the event kind, below |
//! | `source` | string | name of the entity the event is about (the text form's name column) |
//! | `target` | string or null | name of the other entity involved |
//!
//! and the fields of its kind. The core's kinds:
//!
//! | `kind` | category | fields |
//! |---|---|---|
//! | `effect_applied` | Effects | `effect`, `stacks`, `duration` (s or null); `source` holds it, `target` applied it |
//! | `effect_executed` | Effects | `effect` (an instant or periodic execution) |
//! | `effect_blocked` | Effects | `effect`, `reason` (`requirements`, `immune`, `dead`), `by` (immune) |
//! | `effect_removed` | Effects | `effect`, `reason` (`expired`, `removed`, `removed_by`, `owner_died`), `by` |
//! | `effect_inhibited` | Effects | `effect`, `inhibited` (bool: stopped or resumed) |
//! | `effect_failed` | Effects | `effect`, `error` |
//! | `attribute_changed` | Attributes | `attribute`, `old`, `new` (current values; meta attributes are not recorded) |
//! | `cue` | Cues | `cue` (a `GameplayCue.*` tag), `event` (`execute`, `add`, `remove`) |
//! | `ability_activated` | Abilities | `ability`; `target` is the event's target |
//! | `ability_failed` | Abilities | `ability`, `reason` (an `Activation.Fail.*` tag), `message` |
//! | `ability_ended` | Abilities | `ability`, `reason` |
//!
//! Game modules add their own kinds as [`TraceRecord`]s, rendered through
//! the same two functions; the combat layer's are listed in
//! `gaskit::combat::CombatRecord`.

mod event;
mod jsonl;
mod record;
mod text;

pub use event::{BlockReason, RemovalReason, TraceCategory, TraceEvent, TraceFilter, TraceKind};
pub use jsonl::{render_json, render_jsonl, JsonFields};
pub use record::{DynEq, RenderCx, TraceRecord};
pub use text::{entity_name, render_line, render_text, EntityNames, Name};

use crate::time::SimTime;

/// The record of a simulation.
#[derive(Clone, Debug)]
pub struct Trace {
    filter: TraceFilter,
    events: Vec<TraceEvent>,
}

impl Default for Trace {
    fn default() -> Self {
        Self::new()
    }
}

impl Trace {
    /// A trace recording every category.
    pub fn new() -> Self {
        Self {
            filter: TraceFilter::ALL,
            events: Vec::new(),
        }
    }

    /// A trace recording nothing (large simulations).
    pub fn disabled() -> Self {
        Self {
            filter: TraceFilter::NONE,
            events: Vec::new(),
        }
    }

    /// Records only the categories in `filter` (later events only).
    pub fn set_filter(&mut self, filter: impl Into<TraceFilter>) {
        self.filter = filter.into();
    }

    /// The categories recorded.
    pub fn filter(&self) -> TraceFilter {
        self.filter
    }

    /// True when `category` is recorded. Check this before building an event.
    #[inline]
    pub fn wants(&self, category: TraceCategory) -> bool {
        self.filter.contains(category)
    }

    /// Appends an event if its category is recorded.
    #[inline]
    pub fn record(&mut self, time: SimTime, kind: TraceKind) {
        if self.wants(kind.category()) {
            self.events.push(TraceEvent { time, kind });
        }
    }

    /// Every recorded event, oldest first.
    pub fn events(&self) -> &[TraceEvent] {
        &self.events
    }

    /// Removes and returns every recorded event.
    pub fn take(&mut self) -> Vec<TraceEvent> {
        std::mem::take(&mut self.events)
    }

    /// Forgets every recorded event.
    pub fn clear(&mut self) {
        self.events.clear();
    }

    /// Forgets the events after the first `len` (a rollback rewinding the
    /// record with the state). Does nothing if there are not that many.
    pub fn truncate(&mut self, len: usize) {
        self.events.truncate(len);
    }
}

/// One rendered line per event, each ending in a newline.
fn lines(events: &[TraceEvent], render: impl Fn(&TraceEvent) -> String) -> String {
    let mut out = String::new();
    for event in events {
        out.push_str(&render(event));
        out.push('\n');
    }
    out
}
