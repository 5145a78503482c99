//! The ability system: abilities as data, the per-entity component,
//! gameplay events, activation rules, commit, and long-running instances.
//!
//! # Activation
//!
//! A gameplay event sent to an entity activates every granted ability whose
//! trigger matches the event's tag (parent-aware), in grant order. Each
//! activation runs the checks listed on
//! [`Gas::activate_ability`](crate::Gas::activate_ability), in that order,
//! and stops at the first failure, which is returned and recorded in the
//! trace.
//!
//! When every check passes, the instance starts: owned tags are granted,
//! abilities with `cancel_abilities_with_tags` are cancelled, and the
//! behaviour runs, committing (cost and cooldown) as it decides. A refused
//! activation burns no cooldown and pays no cost.

mod activation;
mod behaviour;
mod blocks;
mod data;
mod def;
mod event;
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

#[cfg(test)]
pub(crate) use state::ReactiveWaits;
pub(crate) use state::{Granted, Instance, StateText, TargetedBy};
