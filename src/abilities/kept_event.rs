//! [`KeptEvent`]: the event that activated a running instance, as the
//! instance keeps it.

use hecs::Entity;
use serde::{Deserialize, Serialize};

use super::event::{ClientId, GameplayEvent, Origin};
use crate::tags::Tag;

/// A [`GameplayEvent`] in 48 bytes rather than 64: which of its optional
/// parts are there sits in one byte of flags, not in a word beside each.
///
/// Every entity reserves a slot for one running ability, which keeps the
/// event that activated it for the whole run (an auto-attack's target),
/// so each byte here is paid by every entity. The event goes back out
/// whole ([`get`](Self::get)), and is saved as the event it is, so saves
/// and checksums read as they did when the instance kept the event itself.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "GameplayEvent", into = "GameplayEvent")]
pub(crate) struct KeptEvent {
    instigator: Option<Entity>,
    target: Option<Entity>,
    /// With [`KeptEvent::MAGNITUDE`], else zero.
    magnitude: f64,
    tag: Tag,
    /// With [`KeptEvent::PAYLOAD`], else the event's own tag.
    payload: Tag,
    /// With [`KeptEvent::OBJECT`], else zero.
    object: u32,
    /// With [`KeptEvent::CLIENT`] (the event came from this client),
    /// else zero (it came from the server).
    client: u32,
    /// Which optional parts are there.
    present: u8,
}

impl KeptEvent {
    // The bits of `present`, one an optional part.
    const MAGNITUDE: u8 = 1;
    const PAYLOAD: u8 = 2;
    const OBJECT: u8 = 4;
    const CLIENT: u8 = 8;

    /// Whom the event is aimed at.
    #[inline]
    pub fn target(&self) -> Option<Entity> {
        self.target
    }

    /// The event, whole.
    #[inline]
    pub fn get(&self) -> GameplayEvent {
        let has = |part: u8| self.present & part != 0;
        GameplayEvent {
            tag: self.tag,
            instigator: self.instigator,
            target: self.target,
            magnitude: has(Self::MAGNITUDE).then_some(self.magnitude),
            object: has(Self::OBJECT).then_some(self.object),
            payload: has(Self::PAYLOAD).then_some(self.payload),
            origin: if has(Self::CLIENT) {
                Origin::Client(ClientId(self.client))
            } else {
                Origin::Server
            },
        }
    }
}

impl From<GameplayEvent> for KeptEvent {
    #[inline]
    fn from(event: GameplayEvent) -> Self {
        let client = match event.origin {
            Origin::Server => None,
            Origin::Client(ClientId(client)) => Some(client),
        };
        let flag = |there: bool, part: u8| if there { part } else { 0 };
        Self {
            instigator: event.instigator,
            target: event.target,
            magnitude: event.magnitude.unwrap_or(0.0),
            tag: event.tag,
            payload: event.payload.unwrap_or(event.tag),
            object: event.object.unwrap_or(0),
            client: client.unwrap_or(0),
            present: flag(event.magnitude.is_some(), Self::MAGNITUDE)
                | flag(event.payload.is_some(), Self::PAYLOAD)
                | flag(event.object.is_some(), Self::OBJECT)
                | flag(client.is_some(), Self::CLIENT),
        }
    }
}

impl From<KeptEvent> for GameplayEvent {
    fn from(kept: KeptEvent) -> Self {
        kept.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every optional part, there or not (a client of id zero and a
    /// magnitude or object of zero included), comes back out as it went
    /// in, and is saved and read back as the event itself is.
    #[test]
    fn a_kept_event_is_the_event_it_keeps() {
        assert_eq!(std::mem::size_of::<KeptEvent>(), 48);
        let entity = |id: u64| Entity::from_bits((1 << 32) | id).unwrap();
        let tag = Tag::from_parts(3, 4);
        for bits in 0..64u32 {
            let on = |bit: u32| bits & (1 << bit) != 0;
            let event = GameplayEvent {
                tag,
                instigator: on(0).then(|| entity(7)),
                target: on(1).then(|| entity(9)),
                magnitude: on(2).then_some(if on(5) { 0.0 } else { -2.5 }),
                object: on(3).then_some(if on(5) { 0 } else { 11 }),
                payload: on(4).then(|| Tag::from_parts(5, 6)),
                origin: if on(5) {
                    Origin::Client(ClientId(if on(0) { 0 } else { 3 }))
                } else {
                    Origin::Server
                },
            };
            let kept = KeptEvent::from(event);
            assert_eq!(kept.get(), event, "{event:?}");
            assert_eq!(kept.target(), event.target);
            let text = ron::to_string(&kept).unwrap();
            assert_eq!(text, ron::to_string(&event).unwrap());
            assert_eq!(ron::from_str::<KeptEvent>(&text).unwrap(), kept);
        }
    }
}
