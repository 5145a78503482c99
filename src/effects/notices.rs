//! Notices of lazy ends ([`LazyEnds`]): the ends of effects that [end
//! lazily](super::EffectDef::ends_lazily) on watched hosts, told at their
//! instants. Not state (see `lazy.rs`).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use hecs::Entity;

use super::active::{ActiveEffect, EffectKey};
use super::lazy::end_order;
use crate::time::SimTime;

/// One pending notice: a lazily ending effect's end, to be told at its
/// instant.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Notice {
    order: (SimTime, SimTime, u64, u32),
    /// Whose effect.
    pub entity: Entity,
    /// Which effect.
    pub key: EffectKey,
}

impl Notice {
    /// When it is due.
    pub fn at(&self) -> SimTime {
        self.order.0
    }
}

/// The ends of lazily ending effects on watched hosts (the trace or an
/// observer records effects or tags, or an instance waits on the host's
/// tags or state), due at their instants.
///
/// Not state: a host's lazy effects end at the same instants whether or
/// not they are noticed; only the telling needs these. So it is neither
/// saved nor checksummed, and the context rebuilds it from the hosts when
/// it restores a snapshot or starts watching. A notice left for an effect
/// since refreshed to end later moves to the new end when it comes due,
/// and one left for an effect since cleared finds nothing, so the queue
/// never holds more than about one notice per watched lazy effect.
#[derive(Clone, Debug, Default)]
pub(crate) struct LazyEnds {
    due: BinaryHeap<Reverse<Notice>>,
}

impl LazyEnds {
    /// Notices `key`'s end on `entity` (the effect as it now stands).
    pub fn push(&mut self, entity: Entity, key: EffectKey, effect: &ActiveEffect) {
        self.due.push(Reverse(Notice {
            order: end_order(entity, key, effect),
            entity,
            key,
        }));
    }

    /// When the earliest notice is due.
    #[inline]
    pub fn next_at(&self) -> Option<SimTime> {
        self.due.peek().map(|Reverse(n)| n.at())
    }

    /// Takes the earliest notice (the context decides when it is due: an
    /// instant whose work budget ran out tells it later).
    pub fn pop(&mut self) -> Option<Notice> {
        self.due.pop().map(|Reverse(n)| n)
    }

    /// Forgets every notice (before a rebuild).
    pub fn clear(&mut self) {
        self.due.clear();
    }

    /// The notices, in no particular order (for the invariants).
    pub fn iter(&self) -> impl Iterator<Item = &Notice> + '_ {
        self.due.iter().map(|Reverse(n)| n)
    }

    /// Who holds a pending notice, sorted, to look up (a rebuild's).
    pub fn noticed(&self) -> Vec<(Entity, EffectKey)> {
        let mut noticed: Vec<_> = self.iter().map(|n| (n.entity, n.key)).collect();
        noticed.sort_unstable();
        noticed
    }
}
