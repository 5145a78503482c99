//! Why abilities fail to activate, why they end, and why they wake.

use serde::{Deserialize, Serialize};

use super::def::AbilityId;
use super::event::GameplayEvent;
use crate::effects::EffectId;
use crate::tags::{native, Tag, TagRegistry};

/// Why an activation was refused. Nothing was committed: a refused
/// activation burns no cooldown and pays no cost.
///
/// Every reason maps to an `Activation.Fail.*` tag whose developer comment
/// is the player-facing message ([`message`](Self::message)).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ActivationFailure {
    /// The event's origin may not activate this ability on this entity.
    Authority,
    /// The ability is already running and does not retrigger.
    AlreadyActive,
    /// The owner matches the ability's `activation_blocked` query, or an
    /// active ability blocks it.
    BlockedByTags,
    /// The owner does not match `activation_required`.
    MissingTags,
    /// The instigator does not match `source_required`.
    SourceRequirements,
    /// The target is missing or does not match `target_required`.
    TargetRequirements,
    /// The cooldown effect's tag is still on the owner.
    Cooldown,
    /// The owner cannot afford the cost.
    Cost,
    /// The ability's registered behaviour is not registered with the context.
    NoBehaviour,
    /// An effect the ability would apply cannot be evaluated with what the
    /// event carries (a missing or non-finite magnitude, a missing source):
    /// refused before anything is spent.
    CannotApply(EffectId),
    /// The behaviour's own validation refused, with an `Activation.Fail.*` tag.
    Refused(Tag),
}

impl ActivationFailure {
    /// The `Activation.Fail.*` tag of this reason.
    pub fn tag(&self, tags: &TagRegistry) -> Tag {
        match *self {
            ActivationFailure::Authority => tags[native::FAIL_AUTHORITY],
            ActivationFailure::AlreadyActive => tags[native::FAIL_ALREADY_ACTIVE],
            ActivationFailure::BlockedByTags => tags[native::FAIL_BLOCKED_BY_TAGS],
            ActivationFailure::MissingTags => tags[native::FAIL_MISSING_TAGS],
            ActivationFailure::SourceRequirements => tags[native::FAIL_SOURCE_REQUIREMENTS],
            ActivationFailure::TargetRequirements => tags[native::FAIL_TARGET_REQUIREMENTS],
            ActivationFailure::Cooldown => tags[native::FAIL_COOLDOWN],
            ActivationFailure::Cost => tags[native::FAIL_COST],
            ActivationFailure::NoBehaviour => tags[native::FAIL_NO_BEHAVIOUR],
            ActivationFailure::CannotApply(_) => tags[native::FAIL_INVALID_PAYLOAD],
            ActivationFailure::Refused(tag) => tag,
        }
    }

    /// The player-facing message: the developer comment of the reason's tag
    /// ("Not ready yet." for a cooldown), or the tag's name.
    pub fn message<'a>(&self, tags: &'a TagRegistry) -> &'a str {
        let tag = self.tag(tags);
        tags.comment(tag).unwrap_or_else(|| tags.name(tag))
    }
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
}
