//! The data form of abilities, as written in `abilities/*.ron`.
//!
//! ```ron
//! abilities: [
//!     (
//!         name: "GA_Haste",
//!         trigger: "Action.Trigger.Ability.Buff",
//!         ability_tags: ["Action.Ability.Buff"],
//!         activation_blocked: (any: ["Status.Dead", "Status.Stunned"]),
//!         cooldown: (effect: "GE_Buff_Cooldown", seconds: 60),
//!         behaviour: ApplyEffects([(effect: "GE_Haste", to: Owner)]),
//!     ),
//! ]
//! ```

use serde::{Deserialize, Serialize};

use crate::tags::TagQueryDef;

/// One ability as written in data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AbilityData {
    /// Unique name.
    pub name: String,
    /// The gameplay event tag that activates it (parent-aware: an event
    /// tagged with a descendant also matches).
    pub trigger: String,
    /// The event only triggers this ability while the owner matches this
    /// query; otherwise the ability is not considered at all (no failure is
    /// recorded). Routes one event to different abilities by state, as
    /// `Action.Trigger.Combat.Cast` queues a weave while engaged and casts
    /// standalone otherwise. Judged once, on the owner as the event
    /// arrives, for every ability it could trigger: so one event toggles
    /// between two abilities by state (a prayer's on and off), and the
    /// first one's activation does not route the event to the second.
    /// `Gas::can_activate` asks it too.
    #[serde(default)]
    pub trigger_when: TagQueryDef,
    /// What `cancel_abilities` and other abilities' cancel/block lists match.
    #[serde(default)]
    pub ability_tags: Vec<String>,
    /// Tags the owner holds while the ability is active.
    #[serde(default)]
    pub activation_owned_tags: Vec<String>,
    /// The owner must match this to activate.
    #[serde(default)]
    pub activation_required: TagQueryDef,
    /// The owner must *not* match this to activate (the empty query never blocks).
    #[serde(default)]
    pub activation_blocked: Option<TagQueryDef>,
    /// The event's instigator must match this. An event with no
    /// instigator (or one without an ability system) is judged as holding
    /// no tags: a query that only forbids tags passes, one that needs one
    /// fails.
    #[serde(default)]
    pub source_required: TagQueryDef,
    /// The event's target must match this (and exist) when stated.
    #[serde(default)]
    pub target_required: Option<TagQueryDef>,
    /// Activating cancels the owner's active abilities carrying any of these.
    #[serde(default)]
    pub cancel_abilities_with_tags: Vec<String>,
    /// While active, the owner's abilities carrying any of these cannot activate.
    #[serde(default)]
    pub block_abilities_with_tags: Vec<String>,
    /// The ability is cancelled when the owner gains any of these
    /// (parent-aware: `Action.Modal` cancels on `Action.Modal.Banking`).
    #[serde(default)]
    pub cancel_on_tags_added: Vec<String>,
    /// The ability ends at once when the triggering event's *target* gains
    /// any of these (parent-aware): auto-attack ends the moment its target
    /// gains `Status.Dead`.
    #[serde(default)]
    pub cancel_on_target_tags_added: Vec<String>,
    /// An effect applied to the owner on commit (usually instant, spending
    /// an attribute).
    #[serde(default)]
    pub cost: Option<String>,
    /// The cooldown effect applied on commit.
    #[serde(default)]
    pub cooldown: Option<CooldownData>,
    /// Where activation may come from.
    #[serde(default)]
    pub net: NetPolicy,
    /// The range `(min, max)` a client's event magnitude may take (an
    /// amount to drink, a charge level). Without it, an event from a client
    /// that carries a magnitude is refused: clients do not choose numbers
    /// the ability has not bounded.
    #[serde(default)]
    pub client_magnitude: Option<(f64, f64)>,
    /// Activating again while active ends the running instance and starts
    /// a new one (otherwise it fails with `AlreadyActive`). The checks
    /// first read the owner with the instance running, so one that blocks
    /// itself while it runs could never retrigger: that is a load error.
    #[serde(default)]
    pub retrigger: bool,
    /// What the ability does.
    pub behaviour: BehaviourData,
}

/// A cooldown: an effect whose granted tags gate re-activation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CooldownData {
    /// The cooldown effect.
    pub effect: String,
    /// The duration in seconds, passed to the effect as its SetByCaller
    /// duration when the effect asks for one. A behaviour may decide it
    /// instead (a spell's cast interval).
    #[serde(default)]
    pub seconds: Option<f64>,
}

/// Where an ability may be activated from (the role of GAS's
/// `NetExecutionPolicy`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum NetPolicy {
    /// A client owning the entity may trigger it (predicted), and so may the server.
    #[default]
    LocalPredicted,
    /// Only the server may trigger it (death).
    ServerOnly,
    /// Runs on the local machine only; client events may not trigger it.
    LocalOnly,
}

/// What an ability does when it activates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum BehaviourData {
    /// Commit, apply these effects, end: self-buffs, potions and heals as
    /// pure data.
    ApplyEffects(Vec<EffectApplicationData>),
    /// A behaviour registered with the context under this name (the combat
    /// layer's auto-attack, or game code's own).
    Registered(String),
}

/// One effect an `ApplyEffects` ability applies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EffectApplicationData {
    /// The effect.
    pub effect: String,
    /// Who receives it.
    #[serde(default)]
    pub to: Recipient,
    /// SetByCaller values for the spec.
    #[serde(default)]
    pub set_by_caller: Vec<(String, f64)>,
    /// Put the triggering event's magnitude under this SetByCaller key.
    #[serde(default)]
    pub event_magnitude: Option<String>,
}

/// Who receives an applied effect.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Recipient {
    /// The entity running the ability.
    #[default]
    Owner,
    /// The triggering event's target.
    Target,
    /// The triggering event's instigator.
    Instigator,
}
