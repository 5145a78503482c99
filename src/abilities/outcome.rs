//! Why abilities fail to activate, why they end, and why they wake.

use serde::{Deserialize, Serialize};

use super::def::AbilityId;
use super::event::GameplayEvent;
use crate::attributes::AttributeId;
use crate::effects::{EffectId, EffectKey};
use crate::tags::{native, Tag, TagRegistry};
use crate::time::SimDuration;

/// Why an activation was refused. Nothing was committed: a refused
/// activation burns no cooldown and pays no cost.
///
/// Every reason maps to an `Activation.Fail.*` tag whose developer comment
/// is the player-facing message ([`message`](Self::message)).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ActivationFailure {
    /// The event's origin may not activate this ability on this entity.
    Authority,
    /// A client's event sets what a client may not: another entity as its
    /// instigator, or a magnitude outside the ability's `client_magnitude`.
    ClientInput(ClientField),
    /// The ability is already running and does not retrigger.
    AlreadyActive,
    /// The owner matches the ability's `activation_blocked` query; `tag`
    /// is the owned tag that made it match (when one tag did).
    BlockedByTags {
        /// The owned tag that blocks (the leaf held, e.g. `Status.Stunned`).
        tag: Option<Tag>,
    },
    /// A running ability blocks it (`block_abilities_with_tags`).
    BlockedByAbility(Option<AbilityId>),
    /// The owner does not match `activation_required`; `tag` is the first
    /// required tag it lacks.
    MissingTags {
        /// The required tag missing.
        tag: Option<Tag>,
    },
    /// The instigator does not match `source_required`.
    SourceRequirements,
    /// The target is missing or does not match `target_required`.
    TargetRequirements,
    /// The cooldown effect's tag is still on the owner.
    Cooldown {
        /// The cooldown tag held.
        tag: Tag,
        /// How long it still lasts.
        remaining: SimDuration,
    },
    /// The owner cannot afford the cost.
    Cost {
        /// The attribute the cost would drive below its floor.
        attribute: AttributeId,
    },
    /// Nothing on the owner can run the ability: it is not in the catalog,
    /// not granted to the owner, or its registered behaviour is not
    /// registered with the context (a behaviour's commit in the teardown
    /// of a revoke finds it no longer granted).
    NoBehaviour,
    /// An effect the ability would apply cannot be evaluated with what the
    /// event carries (a missing or non-finite magnitude, a missing source),
    /// or its cost or cooldown would be refused on the owner (application
    /// requirements, the life rule, an immunity): refused before anything
    /// is spent.
    CannotApply(EffectId),
    /// A behaviour's [`commit_with_cooldown`](crate::AbilityCx::commit_with_cooldown)
    /// asked for a cooldown of its own length on an ability whose
    /// cooldown does not take one: its effect (`Some`) lasts a fixed
    /// length rather than a SetByCaller duration, or it has none
    /// (`None`). Nothing was spent.
    UnsettableCooldown(Option<EffectId>),
    /// The behaviour's own validation refused, with an `Activation.Fail.*` tag.
    Refused(Tag),
    /// The event names a tag the catalog does not know, or carries a
    /// magnitude that is not a number, whoever sent it (a client's is
    /// refused earlier, with [`ClientInput`](Self::ClientInput)).
    MalformedEvent,
}

impl ActivationFailure {
    /// The `Activation.Fail.*` tag of this reason.
    pub fn tag(&self, tags: &TagRegistry) -> Tag {
        match *self {
            ActivationFailure::Authority => tags[native::FAIL_AUTHORITY],
            ActivationFailure::ClientInput(_) => tags[native::FAIL_INVALID_PAYLOAD],
            ActivationFailure::AlreadyActive => tags[native::FAIL_ALREADY_ACTIVE],
            ActivationFailure::BlockedByTags { .. } | ActivationFailure::BlockedByAbility(_) => {
                tags[native::FAIL_BLOCKED_BY_TAGS]
            }
            ActivationFailure::MissingTags { .. } => tags[native::FAIL_MISSING_TAGS],
            ActivationFailure::SourceRequirements => tags[native::FAIL_SOURCE_REQUIREMENTS],
            ActivationFailure::TargetRequirements => tags[native::FAIL_TARGET_REQUIREMENTS],
            ActivationFailure::Cooldown { .. } => tags[native::FAIL_COOLDOWN],
            ActivationFailure::Cost { .. } => tags[native::FAIL_COST],
            ActivationFailure::NoBehaviour => tags[native::FAIL_NO_BEHAVIOUR],
            ActivationFailure::CannotApply(_)
            | ActivationFailure::UnsettableCooldown(_)
            | ActivationFailure::MalformedEvent => tags[native::FAIL_INVALID_PAYLOAD],
            ActivationFailure::Refused(tag) => tag,
        }
    }

    /// The player-facing message: the developer comment of the reason's tag
    /// ("Not ready yet." for a cooldown), or the tag's name.
    pub fn message<'a>(&self, tags: &'a TagRegistry) -> &'a str {
        let tag = self.tag(tags);
        tags.comment(tag).unwrap_or_else(|| tags.name(tag))
    }

    /// What exactly refused, for developers, AI and logs (the player sees
    /// [`message`](Self::message)): `Status.Stunned`, `GA_Channel is
    /// running`, `Cooldown.Bolt, 1.500s left`, `Mana`. `None` when the
    /// reason says it all.
    pub fn detail(&self, catalog: &crate::Catalog) -> Option<String> {
        let tags = catalog.tags();
        let ability = |id: AbilityId| {
            catalog
                .abilities()
                .try_def(id)
                .map_or("?", |d| d.name.as_str())
        };
        match *self {
            ActivationFailure::BlockedByTags { tag: Some(tag) }
            | ActivationFailure::MissingTags { tag: Some(tag) } => Some(tags.name(tag).to_owned()),
            ActivationFailure::BlockedByAbility(Some(by)) => {
                Some(format!("{} is running", ability(by)))
            }
            ActivationFailure::Cooldown { tag, remaining } => {
                Some(format!("{}, {remaining} left", tags.name(tag)))
            }
            ActivationFailure::Cost { attribute } => {
                Some(catalog.attributes().name(attribute).to_owned())
            }
            ActivationFailure::ClientInput(ClientField::Instigator) => {
                Some("a client's event names another entity as instigator".to_owned())
            }
            ActivationFailure::ClientInput(ClientField::Magnitude) => {
                Some("a client's magnitude outside the ability's client_magnitude".to_owned())
            }
            ActivationFailure::ClientInput(ClientField::Tag) => {
                Some("a client's event names a tag not in the catalog".to_owned())
            }
            ActivationFailure::CannotApply(effect) => Some(
                catalog
                    .effects()
                    .try_def(effect)
                    .map_or("?", |d| d.name.as_str())
                    .to_owned(),
            ),
            ActivationFailure::UnsettableCooldown(Some(effect)) => Some(format!(
                "{} lasts a fixed length",
                catalog
                    .effects()
                    .try_def(effect)
                    .map_or("?", |d| d.name.as_str())
            )),
            ActivationFailure::UnsettableCooldown(None) => {
                Some("the ability has no cooldown".to_owned())
            }
            _ => None,
        }
    }
}

/// A field of a gameplay event a client may not set as it did.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClientField {
    /// The instigator: a client's event is instigated by the entity it is
    /// sent to (or by no one).
    Instigator,
    /// The magnitude: within the ability's `client_magnitude`, or none.
    Magnitude,
    /// The tag or payload: a tag of the catalog, whole.
    Tag,
}

/// Why an active ability ended. Every end path runs the ability's teardown
/// exactly once, whatever the reason.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EndReason {
    /// The ability finished its work.
    Completed,
    /// Cancelled by `cancel_abilities` or a direct cancel.
    Cancelled,
    /// Cancelled because the owner gained this tag (`cancel_on_tags_added`).
    CancelledByTag(Tag),
    /// Cancelled by another ability's `cancel_abilities_with_tags`.
    CancelledByAbility(AbilityId),
    /// Ended so the same ability could start again.
    Retriggered,
    /// The ability was revoked from the owner.
    Revoked,
    /// The owner was despawned through the context.
    OwnerDespawned,
    /// The ability's target no longer exists.
    TargetLost,
    /// The ability's target gained this tag (`cancel_on_target_tags_added`).
    TargetGainedTag(Tag),
    /// The behaviour ended itself for a reason of its own (a tag).
    Behaviour(Tag),
    /// The behaviour asked to wait on something the catalog does not hold
    /// (a tag or attribute of another catalog, a threshold that is not a
    /// number): ended rather than left waiting for what cannot come.
    InvalidWait,
}

/// Why a waiting ability woke.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum WakeReason {
    /// Its delay elapsed.
    Delay,
    /// A gameplay event it waited for arrived.
    Event(GameplayEvent),
    /// The owner gained the tag it waited for.
    TagAdded(Tag),
    /// The owner lost the tag it waited for.
    TagRemoved(Tag),
    /// The owner's attribute crossed the threshold it waited for (the
    /// value it has now).
    Attribute {
        /// The attribute.
        attribute: AttributeId,
        /// Its current value.
        value: f64,
    },
    /// The effect it waited for ended.
    EffectRemoved(EffectKey),
}
