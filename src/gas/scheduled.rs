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

/// Room for queued events the store keeps once it has emptied (80 KiB, a
/// slot being 80 bytes);
/// beyond it, what a burst grew is given back when the burst is handled.
/// A million fighters entering combat at one instant queue a million
/// `Combat.Event.EnterCombat` events: kept, their room would cost about 84
/// bytes per fighter for the rest of the fight.
pub(crate) const QUEUED_EVENTS_KEPT: usize = 1024;

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

    /// True for an effect's expiry, the one timer of [`Lane::Expiry`](crate::time::Lane::Expiry).
    pub(crate) fn is_expiry(&self) -> bool {
        matches!(self, Timer::Effect(EffectTimer::Expire { .. }))
    }

    /// True for an instance's wake-up, which stays pending under its key
    /// while the instance runs (see `waits.rs`).
    pub(crate) fn is_wake(&self) -> bool {
        matches!(self, Timer::AbilityWake { .. })
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

    /// A burst of queued events grows the store; once the burst is
    /// handled the store gives that room back, and events queued after it
    /// are delivered as before. A store that never outgrew what it keeps
    /// holds on to its room (no churn in a steady fight). Content that is
    /// not combat: a tithe that pays into a treasury when asked.
    #[test]
    fn a_burst_of_queued_events_gives_its_room_back_once_handled() {
        use crate::{CatalogBuilder, GameplayEvent, Gas, SimDuration};
        let mut builder = CatalogBuilder::new();
        builder.tags().add_source("test.tags", "Action.Tithe\n");
        builder.add_source(
            "test.ron",
            r#"(
                attributes: [(name: "Gold")],
                effects: [(name: "GE_Tithe",
                    modifiers: [(attribute: "Gold", op: Flat, magnitude: Constant(1))])],
                abilities: [(name: "GA_Tithe", trigger: "Action.Tithe",
                    behaviour: ApplyEffects([(effect: "GE_Tithe", to: Owner)]))],
            )"#,
        );
        let mut gas = Gas::new(builder.build().unwrap_or_else(|e| panic!("{e}")));
        let mut world = hecs::World::new();
        let town = world.spawn((gas.new_ability_system(),));
        let tithe = gas.catalog().abilities().get("GA_Tithe").unwrap();
        gas.grant_ability(&mut world, town, tithe, 1).unwrap();
        let gold = gas.catalog().attributes().get("Gold").unwrap();
        let ask = GameplayEvent::new(gas.catalog().tags().get("Action.Tithe").unwrap());
        let treasury = |world: &hecs::World| {
            world
                .get::<&crate::AbilitySystem>(town)
                .unwrap()
                .current(gold)
        };
        let burst = |gas: &mut Gas, world: &mut hecs::World, events: usize| {
            for _ in 0..events {
                gas.send_event(town, ask);
            }
            let grown = gas.queued_events().capacity();
            gas.advance_by(world, SimDuration::ZERO);
            assert!(gas.queued_events().is_empty());
            (grown, gas.queued_events().capacity())
        };

        let small = QUEUED_EVENTS_KEPT / 2;
        let (grown, kept) = burst(&mut gas, &mut world, small);
        assert!(grown >= small);
        assert_eq!(kept, grown, "room within what the store keeps stays");
        assert_eq!(treasury(&world), small as f64);

        let large = 4 * QUEUED_EVENTS_KEPT;
        let (grown, kept) = burst(&mut gas, &mut world, large);
        assert!(grown >= large);
        assert!(
            kept <= QUEUED_EVENTS_KEPT,
            "{kept} slots kept after the burst"
        );
        assert_eq!(treasury(&world), (small + large) as f64);

        // Events queued after the release are delivered as before.
        let (_, kept) = burst(&mut gas, &mut world, 3);
        assert!(kept <= QUEUED_EVENTS_KEPT);
        assert_eq!(treasury(&world), (small + large + 3) as f64);
    }
}
