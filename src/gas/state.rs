//! The context's own state, saved and restored by [`crate::snapshot`].

use std::collections::VecDeque;

use hecs::{Entity, World};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::{Gas, SavedTimer};
use crate::abilities::AbilitySystem;
use crate::time::{Lane, SavedTimers, SimTime, TimerKey};

/// Everything in a [`Gas`] that changes while the game runs: the clock,
/// the pending timers (effect expiries and periods, queued events, ability
/// wake-ups), the RNG position and the reconcile bookkeeping. The catalog,
/// behaviours and hooks are code and content, supplied by the context a
/// state is restored into; the trace is an output, rewound to its length.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct GasState {
    now: SimTime,
    #[serde(deserialize_with = "SavedTimers::deserialize_valid")]
    timers: SavedTimers<SavedTimer>,
    rng: ChaCha8Rng,
    dirty: VecDeque<Entity>,
    live_holders: Vec<Entity>,
    attributes_moved: bool,
    /// The work budget of the save's instant ran out: the lazy ends still
    /// untold at it are told at the next microsecond.
    #[serde(default)]
    budget_spent: bool,
    /// The work the save's instant has done so far (a call its budget
    /// stopped may come back to it), counted on after a restore.
    #[serde(default)]
    instant_work: u64,
    /// Where the trace stood (the next event's number). Not serialized:
    /// the trace is an output, so it is not part of a checksum or a file;
    /// a restore from a file leaves the context's trace alone.
    #[serde(skip, default = "no_trace_position")]
    trace_seq: u64,
}

/// A deserialized state rewinds nothing.
fn no_trace_position() -> u64 {
    u64::MAX
}

impl GasState {
    /// The clock at the save.
    pub(crate) fn now(&self) -> SimTime {
        self.now
    }

    /// Each pending timer's instant, lane and key, with its payload.
    pub(crate) fn timer_entries(
        &self,
    ) -> impl Iterator<Item = (SimTime, Lane, TimerKey, &SavedTimer)> + '_ {
        self.timers.entries()
    }

    /// Entities waiting for a reconcile, whose components carry the
    /// matching `queued` flag.
    pub(crate) fn dirty(&self) -> &VecDeque<Entity> {
        &self.dirty
    }
}

impl Gas {
    /// A copy of the context's state, over `world`.
    ///
    /// The holders of live captures are saved as those that still hold
    /// one: the list drops the others only when a refresh walks it, which
    /// a restored context (its index of what they read rebuilt) does at
    /// once where the saved one might not for a while, so two equal
    /// states would otherwise save, and checksum, apart.
    pub(crate) fn save_state(&self, world: &World) -> GasState {
        GasState {
            now: self.now,
            timers: self.timers.save().map(|t| t.save(&self.queued_events)),
            rng: self.rng.clone(),
            dirty: self.dirty.clone(),
            live_holders: self
                .live_holders
                .iter()
                .copied()
                .filter(|&holder| {
                    world
                        .get::<&AbilitySystem>(holder)
                        .is_ok_and(|system| self.holds_live_capture(&system))
                })
                .collect(),
            attributes_moved: self.attributes_moved,
            budget_spent: self.budget_spent == Some(self.now),
            instant_work: if self.instant_work.0 == self.now {
                self.instant_work.1
            } else {
                0
            },
            trace_seq: self.trace.next_seq(),
        }
    }

    /// Puts `state` back. The trace is rewound to where it stood when the
    /// state was saved (a rollback within one context); a trace that has
    /// not got that far (a fresh context) is left as it is.
    pub(crate) fn load_state(&mut self, state: &GasState) {
        self.now = state.now;
        // Keys of queued events are the store's own business (nothing
        // saves them): refilled from the saved timers, keeping its memory.
        self.queued_events.clear();
        let events = &mut self.queued_events;
        self.timers
            .load(&state.timers.map(|saved| saved.restore(events)));
        // Restored from within a wake-up (never between steps), the timer
        // that woke it is no longer the one to re-arm.
        self.waking = None;
        self.rng = state.rng.clone();
        self.dirty = state.dirty.clone();
        self.live_holders = state.live_holders.clone();
        // In the order a run keeps them (a save from text may not be).
        self.live_holders.sort_unstable();
        self.live_holders.dedup();
        self.attributes_moved = state.attributes_moved;
        self.budget_spent = state.budget_spent.then_some(state.now);
        self.moved.clear();
        self.live_readers = None;
        self.trace.rewind_to(state.trace_seq);
        // What the abandoned timeline left in flight belongs to it: the
        // observations not yet delivered and the effects its work had yet
        // to cause. The restored instant counts on from the work the save
        // had done at it (a restored context and a fresh one alike), so
        // its budget runs out where the saved run's does.
        drop(self.trace.take_observations());
        // And the batch a delivery holds, if an observer restored.
        self.restores = self.restores.wrapping_add(1);
        self.follow_ups.clear();
        self.instant_work = (state.now, state.instant_work);
    }
}
