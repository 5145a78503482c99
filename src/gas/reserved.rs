//! Reserved handles: what a rollback owns, and how a despawned entity's
//! handle is kept while a rollback may still bring the entity back.
//!
//! A rollback ([`Snapshot`](crate::snapshot::Snapshot)) owns the entities
//! that hold an [`AbilitySystem`]: their gaskit components and the game
//! components the snapshot names. Every other entity is the game's, and a
//! restore never touches it. A restore puts each saved entity back under
//! its own handle, so the handle must still be free, or held by the same
//! entity, or by something the rollback owns. hecs reuses a despawned
//! entity's slot for the next spawn, so with a rollback window set
//! ([`Gas::set_rollback_window`]) [`Gas::despawn`] keeps the handle: the
//! entity stays, emptied, holding only [`Reserved`], until the window has
//! passed. A game that despawns rollback entities with a raw
//! `world.despawn` gives their slots away, and a restore that needs one
//! held by a game entity is refused (`SnapshotError::HandleInUse`).

use std::collections::VecDeque;

use hecs::{Entity, World};

use super::Gas;
use crate::abilities::AbilitySystem;
use crate::time::{SimDuration, SimTime};

/// Whether `entity` is in the world and not a kept [`Reserved`] handle:
/// [`Gas::in_play`] for code that holds the world alone (the combat
/// layer's attacker ceiling).
pub(crate) fn in_play(world: &World, entity: Entity) -> bool {
    world.contains(entity) && !world.satisfies::<&Reserved>(entity)
}

/// Component: the handle of an entity despawned through the context,
/// kept while a rollback may still restore it. It holds nothing else.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Reserved {
    /// When the entity was despawned.
    pub since: SimTime,
}

/// The handles being kept, oldest first (roughly: a restore may step the
/// clock back, so a later handle can be older; release waits for it).
pub(super) type ReservedHandles = VecDeque<(SimTime, Entity)>;

impl Gas {
    /// Keeps the handles of entities despawned through
    /// [`despawn`](Self::despawn) for `window` of simulated time (rollback
    /// netcode: the longest rollback), or not at all (`None`, the default:
    /// a server without rollback frees them at once). Handles kept when
    /// the window is switched off are freed at the next instant the clock
    /// reaches (or when the next advance ends), and are out of play until
    /// then.
    pub fn set_rollback_window(&mut self, window: Option<SimDuration>) {
        self.rollback_window = window;
    }

    /// How long despawned entities' handles are kept.
    pub fn rollback_window(&self) -> Option<SimDuration> {
        self.rollback_window
    }

    /// How many despawned entities' handles are being kept.
    pub fn reserved_handles(&self) -> usize {
        self.reserved.len()
    }

    /// Whether `entity` is in play: in the world, and not the handle of an
    /// entity despawned through the context, kept for a rollback (which
    /// stays in the world until its window has passed, so as an answer to
    /// "is it there" it would come a whole window late).
    pub fn in_play(&self, world: &World, entity: Entity) -> bool {
        // Without a window no handle is kept (once those kept under one
        // switched off are freed): one lookup, not two. (Written out
        // rather than through `in_play`: every wake asks, and the match
        // form cost a wake 13 instructions.)
        world.contains(entity)
            && ((self.rollback_window.is_none() && self.reserved.is_empty())
                || !world.satisfies::<&Reserved>(entity))
    }

    /// Takes `entity` out of the world: despawned, or, with a rollback
    /// window, emptied and kept as [`Reserved`]. `false` if it was gone.
    pub(crate) fn retire(&mut self, world: &mut World, entity: Entity) -> bool {
        if world.despawn(entity).is_err() {
            return false;
        }
        if self.rollback_window.is_some() {
            world.spawn_at(entity, (Reserved { since: self.now },));
            self.reserved.push_back((self.now, entity));
        }
        true
    }

    /// Frees the handles kept longer than the rollback window: those
    /// still reserved by the retirement this entry records. A restore may
    /// have brought the entity back, and it may since have been retired
    /// again, later: its handle is then kept for that later retirement's
    /// whole window (its own entry frees it), not freed by this one.
    ///
    /// Asked at every instant the clock reaches, before anything due then
    /// runs, so a handle is free from the same instant whatever the frame
    /// step (a game entity spawned by a handler then gets the same slot).
    #[inline]
    pub(super) fn release_reserved(&mut self, world: &mut World) {
        if !self.reserved.is_empty() {
            self.release_reserved_due(world);
        }
    }

    /// [`release_reserved`](Self::release_reserved) with handles kept.
    #[inline(never)]
    fn release_reserved_due(&mut self, world: &mut World) {
        // A window switched off frees every handle kept under it.
        let window = self.rollback_window.unwrap_or(SimDuration::ZERO);
        while let Some(&(since, entity)) = self.reserved.front() {
            if since + window > self.now {
                break;
            }
            self.reserved.pop_front();
            let this_retirement = world
                .get::<&Reserved>(entity)
                .is_ok_and(|reserved| reserved.since == since);
            if this_retirement && !world.satisfies::<&AbilitySystem>(entity) {
                let _ = world.despawn(entity);
            }
        }
    }
}
