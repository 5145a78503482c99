//! [`LineOfSight`]: the hook game code supplies to tell whether one entity
//! can see another.

use hecs::{Entity, World};

use crate::time::SimTime;

/// Whether `from` can see `to`. The engagement loop ends when sight is lost
/// for longer than the attacker kind's tolerance; the engage gate asks it
/// too.
pub trait LineOfSight: Send + Sync {
    /// True when `from` sees `to` at `now`.
    fn visible(&self, world: &World, from: Entity, to: Entity, now: SimTime) -> bool;
}

/// The default: everything is always visible.
#[derive(Copy, Clone, Debug, Default)]
pub struct AlwaysVisible;

impl LineOfSight for AlwaysVisible {
    fn visible(&self, _: &World, _: Entity, _: Entity, _: SimTime) -> bool {
        true
    }
}
