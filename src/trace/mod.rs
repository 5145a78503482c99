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
//! | `effect_blocked` | Effects | `effect`, `reason` (`requirements`, `immune`, `dead`, `chance`), `by` (immune) |
//! | `effect_removed` | Effects | `effect`, `reason` (`expired`, `removed`, `removed_by`, `owner_died`), `by` |
//! | `effect_inhibited` | Effects | `effect`, `inhibited` (bool: stopped or resumed) |
//! | `effect_stacks_changed` | Effects | `effect`, `stacks` (a stack ran out; gains are `effect_applied`) |
//! | `effect_failed` | Effects | `effect`, `error` |
//! | `attribute_changed` | Attributes | `attribute`, `old`, `new` (current values; meta attributes are not recorded) |
//! | `cue` | Cues | `cue` (a `GameplayCue.*` tag), `event` (`execute`, `add`, `remove`), `effect` (or null), `magnitude`, `tags` (the spec's, when any) |
//! | `ability_activated` | Abilities | `ability`; `target` is the event's target |
//! | `ability_failed` | Abilities | `ability`, `reason` (an `Activation.Fail.*` tag), `message`, and what refused: `blocked_by` (tag), `blocked_by_ability`, `missing` (tag), `cooldown` (tag) with `remaining` (s), `attribute` (a cost), `effect` (cannot apply) |
//! | `ability_ended` | Abilities | `ability`, `reason` |
//! | `tag_changed` | Tags | `tag`, `present` (bool: appeared or vanished) |
//! | `game` | Game | `tag`, `magnitude` (or null), `payload` (tag or null): a [`GameRecord`] |
//!
//! Game modules add their own kinds as [`TraceRecord`]s, rendered through
//! the same two functions; the combat layer's are listed in
//! `gaskit::combat::CombatRecord`.

mod event;
mod game_record;
mod jsonl;
mod observation;
mod record;
mod text;

pub use event::{BlockReason, RemovalReason, TraceCategory, TraceEvent, TraceFilter, TraceKind};
pub use game_record::GameRecord;
pub use jsonl::{render_json, render_jsonl, JsonFields};
pub use observation::Observation;
pub use record::{DynEq, RenderCx, TraceRecord};
pub use text::{entity_name, render_line, render_text, EntityNames, Name};

use std::collections::VecDeque;

use crate::time::SimTime;

/// The record of a simulation, and the queue of what observers are
/// waiting to be told (see [`Gas::observe`](crate::Gas::observe)).
#[derive(Clone, Debug)]
pub struct Trace {
    filter: TraceFilter,
    events: Vec<TraceEvent>,
    /// The categories some observer selects.
    observed: TraceFilter,
    /// Observations not yet delivered, in the order they happened.
    queue: VecDeque<Observation>,
}

impl Default for Trace {
    fn default() -> Self {
        Self::new()
    }
}

impl Trace {
    /// A trace recording every category.
    pub fn new() -> Self {
        Self::with_filter(TraceFilter::ALL)
    }

    fn with_filter(filter: TraceFilter) -> Self {
        Self {
            filter,
            events: Vec::new(),
            observed: TraceFilter::NONE,
            queue: VecDeque::new(),
        }
    }

    /// A trace recording nothing (large simulations).
    pub fn disabled() -> Self {
        Self::with_filter(TraceFilter::NONE)
    }

    /// Records only the categories in `filter` (later events only).
    pub fn set_filter(&mut self, filter: impl Into<TraceFilter>) {
        self.filter = filter.into();
    }

    /// The categories recorded.
    pub fn filter(&self) -> TraceFilter {
        self.filter
    }

    /// True when `category` is recorded or observed. Check this before
    /// building an event that costs something to build.
    #[inline]
    pub fn wants(&self, category: TraceCategory) -> bool {
        self.filter.contains(category) || self.observed.contains(category)
    }

    /// Appends an event if its category is recorded, and queues it for the
    /// observers if one of them selects its category.
    ///
    /// Always inlined: at a call site the kind, hence its category, is
    /// known, so an event nobody wants is never built.
    #[inline(always)]
    pub fn record(&mut self, time: SimTime, kind: TraceKind) {
        let category = kind.category();
        if self.wants(category) {
            self.keep(time, kind, category);
        }
    }

    /// [`record`](Self::record)'s work, for an event someone wants.
    #[inline(never)]
    fn keep(&mut self, time: SimTime, kind: TraceKind, category: TraceCategory) {
        let kept = self.filter.contains(category);
        if self.observed.contains(category) {
            let event = TraceEvent { time, kind };
            if kept {
                self.events.push(event.clone());
            }
            self.queue.push_back(Observation::Event(event));
        } else if kept {
            self.events.push(TraceEvent { time, kind });
        }
    }

    /// The categories observers select (set by the context).
    pub(crate) fn set_observed(&mut self, observed: TraceFilter) {
        self.observed = observed;
    }

    /// Queues an observation that is not a trace event.
    pub(crate) fn observe(&mut self, observation: Observation) {
        self.queue.push_back(observation);
    }

    /// True when observations wait for delivery.
    pub(crate) fn has_observations(&self) -> bool {
        !self.queue.is_empty()
    }

    /// The oldest observation not yet delivered.
    pub(crate) fn next_observation(&mut self) -> Option<Observation> {
        self.queue.pop_front()
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
