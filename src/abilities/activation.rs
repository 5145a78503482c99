//! [`Activation`]: what a running instance was activated with (its
//! ability, its level and the event), as the instance keeps it.

use hecs::Entity;

use super::def::AbilityId;
use super::event::{ClientId, GameplayEvent, Origin};
use crate::tags::Tag;

/// An instance's ability, level and activating [`GameplayEvent`] in 48
/// bytes: which of the event's optional parts are there sits in one byte
/// of flags, not in a word beside each, and the ability and level fill
/// what the event's parts leave of the last word.
///
/// Every entity reserves a slot for one running ability, which keeps the
/// event that activated it for the whole run (an auto-attack's target),
/// so each byte here is paid by every entity: kept as an event beside the
/// ability and level, the same parts took 56. The event goes back out
/// whole ([`event`](Self::event)); an instance is saved with its ability,
/// level and event as they always were (see `state.rs`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct Activation {
    instigator: Option<Entity>,
    target: Option<Entity>,
    /// With [`Activation::MAGNITUDE`], else zero.
    magnitude: f64,
    tag: Tag,
    /// With [`Activation::PAYLOAD`], else the event's own tag.
    payload: Tag,
    /// With [`Activation::OBJECT`], else zero.
    object: u32,
    /// With [`Activation::CLIENT`] (the event came from this client),
    /// else zero (it came from the server).
    client: u32,
    level: u32,
    ability: AbilityId,
    /// Which optional parts of the event are there.
    present: u8,
}

impl Activation {
    // The bits of `present`, one an optional part.
    const MAGNITUDE: u8 = 1;
    const PAYLOAD: u8 = 2;
    const OBJECT: u8 = 4;
    const CLIENT: u8 = 8;

    /// `ability` at `level`, activated by `event`.
    #[inline]
    pub fn new(ability: AbilityId, level: u32, event: GameplayEvent) -> Self {
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
            level,
            ability,
            present: flag(event.magnitude.is_some(), Self::MAGNITUDE)
                | flag(event.payload.is_some(), Self::PAYLOAD)
                | flag(event.object.is_some(), Self::OBJECT)
                | flag(client.is_some(), Self::CLIENT),
        }
    }

    /// The ability activated.
    #[inline]
    pub fn ability(&self) -> AbilityId {
        self.ability
    }

    /// The level it was activated at.
    #[inline]
    pub fn level(&self) -> u32 {
        self.level
    }

    /// Whom the event is aimed at.
    #[inline]
    pub fn target(&self) -> Option<Entity> {
        self.target
    }

    /// The event, whole.
    #[inline]
    pub fn event(&self) -> GameplayEvent {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every optional part of the event, there or not (a client of id
    /// zero and a magnitude or object of zero included), comes back out as
    /// it went in, beside the ability and level, in 48 bytes.
    #[test]
    fn an_activation_keeps_its_ability_level_and_event() {
        assert_eq!(std::mem::size_of::<Activation>(), 48);
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
            let level = bits * 1_000_003;
            let kept = Activation::new(AbilityId::new(bits as usize), level, event);
            assert_eq!(kept.event(), event, "{event:?}");
            assert_eq!(kept.target(), event.target);
            assert_eq!(kept.ability(), AbilityId::new(bits as usize));
            assert_eq!(kept.level(), level);
        }
    }
}
