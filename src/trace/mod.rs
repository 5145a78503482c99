//! The trace: a structured record of everything that happened, with its
//! simulated time.
//!
//! Every layer appends to the one [`Trace`] held by the context. Tests
//! assert on it; renderers turn it into text or JSON lines. Recording is
//! filtered by [`TraceCategory`], and checking the filter is the only cost a
//! disabled category pays: events are not even built.
//!
//! Events name entities and definitions by id; renderers resolve names.

mod event;
mod text;

pub use event::{
    AttackOutcome, BlockReason, ChasePhase, RemovalReason, TraceCategory, TraceEvent, TraceKind,
};
pub use text::{entity_name, render_line, render_text, Name};

use crate::time::SimTime;

/// The record of a simulation.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    filter: u32,
    events: Vec<TraceEvent>,
}

impl Trace {
    /// A trace recording every category.
    pub fn new() -> Self {
        Self {
            filter: TraceCategory::ALL,
            events: Vec::new(),
        }
    }

    /// A trace recording nothing (large simulations).
    pub fn disabled() -> Self {
        Self {
            filter: 0,
            events: Vec::new(),
        }
    }

    /// Records only the categories in `mask` (an OR of `TraceCategory` bits).
    pub fn set_filter(&mut self, mask: u32) {
        self.filter = mask;
    }

    /// The current filter mask.
    pub fn filter(&self) -> u32 {
        self.filter
    }

    /// True when `category` is recorded. Check this before building an event.
    #[inline]
    pub fn wants(&self, category: TraceCategory) -> bool {
        self.filter & category as u32 != 0
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
}
