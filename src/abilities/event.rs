//! [`GameplayEvent`]: the one channel through which abilities activate.

use hecs::Entity;
use serde::{Deserialize, Serialize};

use crate::tags::{Tag, TagRegistry};

/// A network client, as the game numbers them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ClientId(pub u32);

/// Component: the client that owns (controls) an entity. Entities without
/// it are owned by the server.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NetOwner(pub ClientId);

/// Where an event came from.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Origin {
    /// The authority (AI, server systems, the local machine of a single-player game).
    #[default]
    Server,
    /// A client, on behalf of the entities it owns.
    Client(ClientId),
}

/// A gameplay event sent to an entity: player input, AI decisions, UI
/// buttons and cheats all use this one channel.
///
/// It is serializable because snapshots hold the events instances were
/// activated by and the events still queued, origin included. **Never
/// deserialize one from a client's message**: a client would choose its
/// own origin (`Server`) and instigator. Read client messages into a
/// [`ClientEvent`], which holds only what a client may set, and turn it
/// into an event with [`ClientEvent::into_event`] on the server's receive
/// path.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameplayEvent {
    /// What happened (`Action.Trigger.Combat.Engage`).
    pub tag: Tag,
    /// Who caused it.
    pub instigator: Option<Entity>,
    /// Whom it is aimed at.
    pub target: Option<Entity>,
    /// A number that goes with it.
    pub magnitude: Option<f64>,
    /// An id whose meaning the ability decides (a spell, an item).
    pub object: Option<u32>,
    /// A tag that goes with it (the chosen style of `SetStyle`).
    pub payload: Option<Tag>,
    /// Where it came from.
    pub origin: Origin,
}

impl GameplayEvent {
    /// A server-originated event with only a tag.
    pub fn new(tag: Tag) -> Self {
        Self {
            tag,
            instigator: None,
            target: None,
            magnitude: None,
            object: None,
            payload: None,
            origin: Origin::Server,
        }
    }

    /// Sets the instigator.
    pub fn instigator(mut self, entity: Entity) -> Self {
        self.instigator = Some(entity);
        self
    }

    /// Sets the target.
    pub fn target(mut self, entity: Entity) -> Self {
        self.target = Some(entity);
        self
    }

    /// Sets the magnitude.
    pub fn magnitude(mut self, value: f64) -> Self {
        self.magnitude = Some(value);
        self
    }

    /// Sets the object id.
    pub fn object(mut self, id: u32) -> Self {
        self.object = Some(id);
        self
    }

    /// Sets the payload tag.
    pub fn payload(mut self, tag: Tag) -> Self {
        self.payload = Some(tag);
        self
    }

    /// Marks the event as sent by `client`.
    pub fn from_client(mut self, client: ClientId) -> Self {
        self.origin = Origin::Client(client);
        self
    }
}

/// What a client may send: the fields of a [`GameplayEvent`] a client
/// chooses. Deserialize client messages into this, never into a
/// `GameplayEvent`; the server's receive path then sets what only it
/// knows ([`into_event`](Self::into_event)). The context still checks
/// what the client chose: the entity must be the client's, the ability
/// must accept client input (`LocalPredicted`), and a magnitude must lie
/// in the ability's `client_magnitude`.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientEvent {
    /// What the client asks for (`Action.Trigger.Combat.Engage`).
    pub tag: Tag,
    /// Whom it is aimed at.
    #[serde(default)]
    pub target: Option<Entity>,
    /// A number, within the ability's `client_magnitude`.
    #[serde(default)]
    pub magnitude: Option<f64>,
    /// An id whose meaning the ability decides (a spell, an item), which
    /// the ability validates.
    #[serde(default)]
    pub object: Option<u32>,
    /// A tag the ability validates (a style).
    #[serde(default)]
    pub payload: Option<Tag>,
}

impl GameplayEvent {
    /// Whether every tag the event names is `tags`' own (whole: the id and
    /// its subtree) and its magnitude, if any, finite: what a save keeps
    /// must be, and a client's event that is not is refused.
    pub(crate) fn is_well_formed(&self, tags: &TagRegistry) -> bool {
        self.tags_known(tags) && self.magnitude.is_none_or(f64::is_finite)
    }

    /// Whether the event's tag and payload are `tags`' own.
    pub(crate) fn tags_known(&self, tags: &TagRegistry) -> bool {
        tags.knows(self.tag) && self.payload.is_none_or(|p| tags.knows(p))
    }
}

impl ClientEvent {
    /// The event the server handles: from `client`, instigated by `sender`
    /// (the entity the client acts as, which the event is sent to).
    pub fn into_event(self, client: ClientId, sender: Entity) -> GameplayEvent {
        GameplayEvent {
            tag: self.tag,
            instigator: Some(sender),
            target: self.target,
            magnitude: self.magnitude,
            object: self.object,
            payload: self.payload,
            origin: Origin::Client(client),
        }
    }
}
