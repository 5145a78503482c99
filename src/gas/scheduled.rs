//! What the context schedules ([`Timer`]), and its saved form.
//!
//! A pending timer's payload lives in the timer queue for as long as it
//! waits, and every fight keeps a few per entity pending (an expiry, a
//! wake-up), so its size is paid per entity and read at every pop. A queued
//! gameplay event is twice the size of everything else a timer carries, so
//! it waits in a store of its own and the timer holds its key: the payload
//! stays at 24 bytes. A saved state carries the event inline, exactly as
//! before, so saves and checksums do not depend on that store.

use hecs::Entity;
use serde::{Deserialize, Serialize};
use slotmap::new_key_type;

use crate::abilities::{GameplayEvent, InstanceKey};
use crate::effects::EffectTimer;
use crate::slots::Slots;

new_key_type! {
    /// A queued gameplay event waiting for its timer.
    pub(crate) struct EventKey;
}

/// Events waiting for their timers, with their receivers.
pub(crate) type QueuedEvents = Slots<EventKey, (Entity, GameplayEvent)>;

/// Everything the context schedules.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Timer {
    /// An effect's expiry or period.
    Effect(EffectTimer),
    /// A queued gameplay event (in the context's store of queued events).
    Event(EventKey),
    /// An ability instance's delay elapsed.
    AbilityWake {
        /// The owner.
        owner: Entity,
        /// The instance.
        instance: InstanceKey,
    },
}

impl Timer {
    /// The entity the timer's handler acts on, when it names one (a
    /// queued event's receiver waits in the event store).
    pub(crate) fn entity(self) -> Option<Entity> {
        match self {
            Timer::AbilityWake { owner, .. } => Some(owner),
            Timer::Effect(
                EffectTimer::Period { entity, .. } | EffectTimer::Expire { entity, .. },
            ) => Some(entity),
            Timer::Event(_) => None,
        }
    }
}

impl From<EffectTimer> for Timer {
    fn from(timer: EffectTimer) -> Self {
        Timer::Effect(timer)
    }
}

/// A pending timer as a saved state holds it: a queued event inline.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Timer")]
pub(crate) enum SavedTimer {
    /// An effect's expiry or period.
    Effect(EffectTimer),
    /// A queued gameplay event.
    Event {
        /// The receiver.
        to: Entity,
        /// The event.
        event: GameplayEvent,
    },
    /// An ability instance's delay elapsed.
    AbilityWake {
        /// The owner.
        owner: Entity,
        /// The instance.
        instance: InstanceKey,
    },
}

impl Timer {
    /// The saved form, with a queued event read from `events`.
    pub(crate) fn save(&self, events: &QueuedEvents) -> SavedTimer {
        match *self {
            Timer::Effect(timer) => SavedTimer::Effect(timer),
            Timer::Event(key) => {
                let (to, event) = events[key];
                SavedTimer::Event { to, event }
            }
            Timer::AbilityWake { owner, instance } => SavedTimer::AbilityWake { owner, instance },
        }
    }
}

impl SavedTimer {
    /// The timer again, with a queued event put back into `events`.
    pub(crate) fn restore(&self, events: &mut QueuedEvents) -> Timer {
        match *self {
            SavedTimer::Effect(timer) => Timer::Effect(timer),
            SavedTimer::Event { to, event } => Timer::Event(events.insert((to, event))),
            SavedTimer::AbilityWake { owner, instance } => Timer::AbilityWake { owner, instance },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timer_payload_is_small() {
        // The reason the events live elsewhere: this is paid per pending
        // timer, several per fighter.
        assert!(std::mem::size_of::<Timer>() <= 24);
    }

    /// The entity a timer names is the one its handler looks up: the
    /// instance's owner, the effect's host; a queued event names none.
    #[test]
    fn a_timer_names_the_entity_its_handler_acts_on() {
        use slotmap::KeyData;
        let mut world = hecs::World::new();
        let (a, b) = (world.spawn(()), world.spawn(()));
        let instance = InstanceKey::from(KeyData::from_ffi(1));
        let effect = crate::effects::EffectKey::from(KeyData::from_ffi(2));
        let wake = Timer::AbilityWake { owner: a, instance };
        let expire = Timer::Effect(EffectTimer::Expire {
            entity: b,
            key: effect,
        });
        let period = Timer::Effect(EffectTimer::Period {
            entity: a,
            key: effect,
        });
        let event = Timer::Event(EventKey::from(KeyData::from_ffi(3)));
        assert_eq!(wake.entity(), Some(a));
        assert_eq!(expire.entity(), Some(b));
        assert_eq!(period.entity(), Some(a));
        assert_eq!(event.entity(), None);
    }
}
