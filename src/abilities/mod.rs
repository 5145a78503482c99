//! The ability system: abilities as data, the per-entity component,
//! gameplay events, activation rules, commit, and long-running instances.
//!
//! # Activation
//!
//! A gameplay event sent to an entity activates every granted ability whose
//! trigger matches the event's tag (parent-aware), in grant order. Each
//! activation runs these checks, in this order, and stops at the first
//! failure, which is returned and recorded in the trace:
//!
//! 1. authority: a client may only trigger `LocalPredicted` abilities on
//!    entities it owns ([`NetOwner`]); `ServerOnly` needs the server;
//! 2. already active (unless the ability retriggers);
//! 3. blocked: the owner matches `activation_blocked`, or an active ability
//!    blocks one of this ability's tags;
//! 4. required: the owner matches `activation_required`;
//! 5. source and target requirements;
//! 6. cooldown: the owner holds a tag its cooldown effect grants;
//! 7. cost: the owner can afford the cost effect;
//! 8. the behaviour's own validation.
//!
//! Only then does the instance start: owned tags are granted, abilities
//! with `cancel_abilities_with_tags` are cancelled, and the behaviour runs,
//! committing (cost and cooldown) as it decides. A refused activation burns
//! no cooldown and pays no cost.

mod behaviour;
mod blocks;
mod data;
mod def;
mod event;
mod kept_event;
mod loose;
mod outcome;
mod saved_state;
mod state;
mod system;

pub use behaviour::{AbilityBehaviour, AbilityCx, Activation, InstanceState};
pub use data::{
    AbilityData, BehaviourData, CooldownData, EffectApplicationData, NetPolicy, Recipient,
};
pub use def::{
    AbilityDef, AbilityDefs, AbilityId, Behaviour, BehaviourId, Cooldown, EffectApplication,
};
pub use event::{ClientEvent, ClientId, GameplayEvent, NetOwner, Origin};
pub use outcome::{ActivationFailure, ClientField, EndReason, WakeReason};
pub use state::{InstanceKey, Wait};
pub use system::AbilitySystem;

pub(crate) use state::{Granted, Instance, TargetedBy};
