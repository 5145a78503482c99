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
//! | `ability_failed` | Abilities | `ability`, `reason` (an `Activation.Fail.*` tag), `message`, and what refused: `blocked_by` (tag), `blocked_by_ability`, `missing` (tag), `cooldown` (tag) with `remaining` (s), `attribute` (a cost), `effect` (cannot apply), `client_field` (`instigator`, `magnitude`, `tag`: what a client may not set) |
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

use crate::time::SimTime;

/// The record of a simulation, and the queue of what observers are
/// waiting to be told (see [`Gas::observe`](crate::Gas::observe)).
///
/// # Bounded by default
///
/// A server runs for weeks, so the default trace keeps only the newest
/// events: at most [`Trace::DEFAULT_CAPACITY`]; when full, the oldest half
/// is dropped (counted in [`dropped`](Self::dropped)). Tests and tools
/// that want everything ask for it ([`Trace::unbounded`],
/// [`set_capacity(None)`](Self::set_capacity)); large simulations record
/// nothing ([`Trace::disabled`]).
///
/// # Draining, and rollback
///
/// Every event recorded is numbered in order, from zero: the retained
/// events are numbered [`first_seq`](Self::first_seq) on. A consumer that
/// ships the trace elsewhere drains it with [`take`](Self::take) (or
/// [`take_until`](Self::take_until), for rollback games that only ship
/// confirmed frames). A snapshot restore rewinds the trace with the state:
/// events recorded after the save are forgotten, and the next events take
/// their numbers again. If the restore took back events already drained,
/// the next drain says so ([`Drained::retract_from`]): the consumer
/// forgets what it received from that number on, and receives the
/// re-simulated events under the same numbers, so it sees each event
/// exactly once.
#[derive(Clone, Debug)]
pub struct Trace {
    filter: TraceFilter,
    events: Vec<TraceEvent>,
    /// The sequence number of `events[0]`.
    first_seq: u64,
    /// The most events kept (`None`: all).
    capacity: Option<usize>,
    /// Events dropped for the capacity.
    dropped: u64,
    /// The lowest sequence number a restore took back after it had been
    /// drained, until the next drain reports it.
    retracted: Option<u64>,
    /// The categories some observer selects.
    observed: TraceFilter,
    /// How many times `filter` or `observed` was set: what watches lazy
    /// ends may have changed since a reader last looked.
    filter_changes: u64,
    /// Observations not yet delivered, in the order they happened.
    queue: Vec<Observation>,
    /// The room of the last batch delivered, kept for the next: see
    /// [`take_observations`](Self::take_observations).
    spare: Vec<Observation>,
}

/// What [`Trace::take`] hands over.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Drained {
    /// The sequence number of `events[0]`.
    pub first_seq: u64,
    /// The events, oldest first.
    pub events: Vec<TraceEvent>,
    /// A restore took back events from this number on after they had been
    /// drained: forget them (the re-simulated ones follow, numbered again).
    pub retract_from: Option<u64>,
}

impl Default for Trace {
    fn default() -> Self {
        Self::new()
    }
}

impl Trace {
    /// The events a default trace keeps: the last few minutes of a busy
    /// duel, a few megabytes at most.
    pub const DEFAULT_CAPACITY: usize = 16_384;

    /// A trace recording every category, keeping the newest
    /// [`DEFAULT_CAPACITY`](Self::DEFAULT_CAPACITY) events.
    pub fn new() -> Self {
        Self::with_filter(TraceFilter::ALL, Some(Self::DEFAULT_CAPACITY))
    }

    /// A trace recording every category and keeping every event (tests,
    /// tools, replays; memory grows with the simulation).
    pub fn unbounded() -> Self {
        Self::with_filter(TraceFilter::ALL, None)
    }

    fn with_filter(filter: TraceFilter, capacity: Option<usize>) -> Self {
        Self {
            filter,
            events: Vec::new(),
            first_seq: 0,
            capacity,
            dropped: 0,
            retracted: None,
            observed: TraceFilter::NONE,
            filter_changes: 0,
            queue: Vec::new(),
            spare: Vec::new(),
        }
    }

    /// A trace recording nothing (large simulations).
    pub fn disabled() -> Self {
        Self::with_filter(TraceFilter::NONE, Some(Self::DEFAULT_CAPACITY))
    }

    /// Keeps at most `capacity` events (`None`: all). A smaller capacity
    /// drops the oldest events now. A capacity of one or two keeps one.
    pub fn set_capacity(&mut self, capacity: Option<usize>) {
        self.capacity = capacity.map(|c| c.max(1));
        if let Some(capacity) = self.capacity {
            if self.events.len() > capacity {
                self.drop_oldest(self.events.len() - capacity);
            }
        }
    }

    /// The most events kept (`None`: all).
    pub fn capacity(&self) -> Option<usize> {
        self.capacity
    }

    /// How many events were dropped for the capacity.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The sequence number of the oldest retained event.
    pub fn first_seq(&self) -> u64 {
        self.first_seq
    }

    /// The sequence number the next event will take.
    pub fn next_seq(&self) -> u64 {
        self.first_seq + self.events.len() as u64
    }

    fn drop_oldest(&mut self, count: usize) {
        self.events.drain(..count);
        self.first_seq += count as u64;
        self.dropped += count as u64;
    }

    /// Records only the categories in `filter` (later events only).
    pub fn set_filter(&mut self, filter: impl Into<TraceFilter>) {
        self.filter = filter.into();
        self.filter_changes += 1;
    }

    /// How many times what the trace records or observes was set.
    pub(crate) fn filter_changes(&self) -> u64 {
        self.filter_changes
    }

    /// True when some observer selects a category of `categories`
    /// (recorded or not).
    pub(crate) fn observes_any(&self, categories: TraceFilter) -> bool {
        self.observed.intersects(categories)
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

    /// True when some category of `categories` is recorded or observed.
    #[inline]
    pub fn wants_any(&self, categories: TraceFilter) -> bool {
        self.filter.intersects(categories) || self.observed.intersects(categories)
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

    /// [`record`](Self::record) of an event built only when its `category`
    /// is wanted. For the events of every step (an effect applied,
    /// executed or removed): a built event nobody wants is still dropped
    /// through its drop glue, a call per event.
    #[inline(always)]
    pub(crate) fn record_with(
        &mut self,
        time: SimTime,
        category: TraceCategory,
        build: impl FnOnce() -> TraceKind,
    ) {
        if self.wants(category) {
            let kind = build();
            debug_assert_eq!(kind.category(), category, "an event of another category");
            self.keep(time, kind, category);
        }
    }

    /// [`record`](Self::record)'s work, for an event someone wants.
    #[inline(never)]
    fn keep(&mut self, time: SimTime, kind: TraceKind, category: TraceCategory) {
        let kept = self.filter.contains(category);
        if kept && self.capacity.is_some_and(|c| self.events.len() >= c) {
            // Half at a time: dropping is amortised, the vector stays one slice.
            let capacity = self.capacity.unwrap_or(1);
            self.drop_oldest(capacity.div_ceil(2).min(self.events.len()));
        }
        if self.observed.contains(category) {
            let event = TraceEvent { time, kind };
            if kept {
                self.events.push(event.clone());
            }
            self.queue.push(Observation::Event(event));
        } else if kept {
            self.events.push(TraceEvent { time, kind });
        }
    }

    /// The categories observers select (set by the context).
    pub(crate) fn set_observed(&mut self, observed: TraceFilter) {
        self.observed = observed;
        self.filter_changes += 1;
    }

    /// Queues an observation that is not a trace event.
    pub(crate) fn observe(&mut self, observation: Observation) {
        self.queue.push(observation);
    }

    /// True when observations wait for delivery.
    pub(crate) fn has_observations(&self) -> bool {
        !self.queue.is_empty()
    }

    /// Every observation not yet delivered, oldest first, as a batch the
    /// deliverer reads in place (an observation is as large as an
    /// execution: taken out one by one, each would be copied); what is
    /// observed meanwhile queues anew, behind the batch. The queue
    /// continues in the room of the last batch delivered, so neither
    /// allocates once both have grown.
    pub(crate) fn take_observations(&mut self) -> Vec<Observation> {
        std::mem::replace(&mut self.queue, std::mem::take(&mut self.spare))
    }

    /// Gives back a delivered batch's room, for the next.
    pub(crate) fn recycle_observations(&mut self, mut batch: Vec<Observation>) {
        batch.clear();
        self.spare = batch;
    }

    /// Every retained event, oldest first.
    pub fn events(&self) -> &[TraceEvent] {
        &self.events
    }

    /// Drains every retained event.
    pub fn take(&mut self) -> Drained {
        let first_seq = self.first_seq;
        let events = std::mem::take(&mut self.events);
        self.first_seq += events.len() as u64;
        Drained {
            first_seq,
            events,
            retract_from: self.retracted.take(),
        }
    }

    /// Drains the retained events that happened before `time`: the frames
    /// a rollback game has confirmed, which no restore will take back.
    pub fn take_until(&mut self, time: SimTime) -> Drained {
        let count = self.events.partition_point(|e| e.time < time);
        let first_seq = self.first_seq;
        let events: Vec<TraceEvent> = self.events.drain(..count).collect();
        self.first_seq += count as u64;
        Drained {
            first_seq,
            events,
            retract_from: self.retracted.take(),
        }
    }

    /// Forgets every retained event (they count as drained).
    pub fn clear(&mut self) {
        self.first_seq = self.next_seq();
        self.events.clear();
    }

    /// Forgets the events numbered `seq` and after (a restore rewinding
    /// the record with the state). Events already drained from there on
    /// are reported by the next drain.
    pub(crate) fn rewind_to(&mut self, seq: u64) {
        if seq >= self.next_seq() {
            return;
        }
        if seq >= self.first_seq {
            self.events.truncate((seq - self.first_seq) as usize);
        } else {
            // Drained (or dropped) events are taken back too.
            self.events.clear();
            self.first_seq = seq;
            self.retracted = Some(self.retracted.map_or(seq, |r| r.min(seq)));
        }
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
